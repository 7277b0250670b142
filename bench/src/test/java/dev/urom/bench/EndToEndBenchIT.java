// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.urom.service.testkit.TestWorkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One short real run: a daemon in this JVM, a worker process with both graph plugins, the C host
 * (a worker per plugin), the C floor and the gRPC peer. Needs plugins/graph built (see {@link
 * GraphPluginFiles}) and the bench module's programs (host-c's libraries).
 */
@Timeout(300)
class EndToEndBenchIT {

    @Test
    void shortRunMeasuresEveryFigureAndLeavesNothingBehind() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        long runFoldersBefore = runFolders(tmp);

        Report report = EndToEndBench.run(
                new BenchOptions(null, 200, 1, TestWorkers.security().workerUser()));

        assertThat(report.figures())
                .hasSize(33)
                .allSatisfy(f -> assertThat(f.value()).isPositive());
        assertThat(report.targetsTotal()).isEqualTo(9);
        assertThat(report.figures().subList(0, 13)).allSatisfy(f -> {
            assertThat(f.id()).contains("cpu_");
            assertThat(f.parts())
                    .hasSizeGreaterThanOrEqualTo(2)
                    .allSatisfy((process, micros) ->
                            assertThat(micros).as(f.id() + " " + process).isPositive());
            assertThat(f.value())
                    .isCloseTo(
                            f.parts().values().stream()
                                    .mapToDouble(Double::doubleValue)
                                    .sum(),
                            within(1e-9));
        });
        assertThat(report.figures())
                .filteredOn(f -> f.id().startsWith("cpu_") || f.id().startsWith("c_host_cpu_"))
                .hasSize(8)
                .allSatisfy(f -> assertThat(f.parts()).containsOnlyKeys("host", "worker"))
                .allSatisfy(f -> assertThat(f.ratio()).isPositive());
        assertThat(report.table())
                .contains(
                        "CPU per round trip, C plugin",
                        "per process",
                        "round trip p50, C plugin",
                        "throughput 16 in flight, Java plugin",
                        "worker start p50",
                        "C host round trip p50, C plugin",
                        "C host throughput 16 in flight, Java plugin");
        assertThat(runFolders(tmp)).isEqualTo(runFoldersBefore);
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive))
                .isEmpty();
    }

    private static long runFolders(Path tmp) throws Exception {
        try (Stream<Path> entries = Files.list(tmp)) {
            return entries.filter(p -> p.getFileName().toString().startsWith(RunFolder.namePrefix("urom-e2e")))
                    .count();
        }
    }
}
