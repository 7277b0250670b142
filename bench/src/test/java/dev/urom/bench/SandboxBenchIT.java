package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.testkit.TestWorkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One short real run: a daemon in this JVM, two worker processes per sandbox plugin in one domain,
 * the C floor. Needs plugins/sandbox built.
 */
@Timeout(300)
class SandboxBenchIT {

    @Test
    void shortRunMeasuresEveryFigureAndLeavesNothingBehind() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        long runFoldersBefore = runFolders(tmp);
        List<Path> made = new ArrayList<>();

        Report report = SandboxBench.run(new SandboxBenchOptions(null, 50, 200, 5, TestWorkers.security().workerUser()), made::add);

        assertThat(report.figures()).hasSize(12).allSatisfy(f -> assertThat(f.value()).isPositive());
        assertThat(report.figures()).filteredOn(f -> f.baselineValue() != null).hasSize(8)
                .allSatisfy(f -> assertThat(f.baselineValue()).isPositive());
        assertThat(report.table()).contains("round trip p50, 8 B, C plugin", "bandwidth MEM_MAP 1 MiB, Java plugin",
                "floor bandwidth 4016 B").doesNotContain("targets met");
        assertThat(made).as("two /dev/shm files and two plugin sockets per plugin").hasSize(8)
                .allSatisfy(path -> assertThat(path).doesNotExist());
        assertThat(made).filteredOn(path -> path.getFileName().toString().endsWith(".sock")).hasSize(4);
        assertThat(runFolders(tmp)).isEqualTo(runFoldersBefore);
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive)).isEmpty();
    }

    private static long runFolders(Path tmp) throws Exception {
        try (Stream<Path> entries = Files.list(tmp)) {
            return entries.filter(p -> p.getFileName().toString().startsWith("urom-sandbox-bench")).count();
        }
    }
}
