// SPDX-License-Identifier: Apache-2.0
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
 * One short real run: a daemon in this JVM, two worker processes per sandbox plugin in one domain on
 * each UCX setting (defaults, TCP), ucx_perftest, the C floor. Needs plugins/sandbox built and
 * ucx-utils installed.
 */
@Timeout(300)
class SandboxBenchIT {

    @Test
    void shortRunMeasuresEveryFigureAndLeavesNothingBehind() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        long runFoldersBefore = runFolders(tmp);
        List<Path> made = new ArrayList<>();

        Report report = SandboxBench.run(
                new SandboxBenchOptions(
                        null, 50, 200, 5, 200, TestWorkers.security().workerUser()),
                made::add);

        // Per UCX setting (shm, tcp): 5 figures per plugin and 5 of ucx_perftest; then 4 of the floor.
        assertThat(report.figures()).hasSize(2 * (2 * 5 + 5) + 4);
        assertThat(report.figures())
                .filteredOn(f -> f.unmeasured() == null)
                .allSatisfy(f -> assertThat(f.value()).isPositive());
        assertThat(report.figures())
                .filteredOn(f -> f.baselineValue() != null)
                .hasSize(2 * 2 * 5)
                .allSatisfy(f -> assertThat(f.baselineValue()).isPositive());
        for (String setting : List.of("shm", "tcp")) {
            assertThat(figure(report, "bounce_round_trip_native_" + setting)).satisfies(f -> {
                assertThat(f.unmeasured()).isNull();
                assertThat(f.met()).isNotNull();
                assertThat(f.baselineLabel()).isEqualTo("tag_lat x2 mean");
            });
            assertThat(figure(report, "sandbox_region_bandwidth_native_" + setting)
                            .met())
                    .isNotNull();
            assertThat(figure(report, "sandbox_region_bandwidth_java_" + setting)
                            .met())
                    .isNotNull();
            assertThat(figure(report, "bounce_round_trip_java_" + setting)).satisfies(f -> {
                assertThat(f.unmeasured()).as("the Java plugin runs BOUNCE").isNull();
                assertThat(f.met()).isNotNull();
                assertThat(f.baselineLabel()).isEqualTo("tag_lat x2 mean");
            });
        }
        assertThat(report.targetsTotal()).isEqualTo(2 * 2 * 2);
        assertThat(report.table())
                .contains(
                        "BOUNCE round trip, 8 B, C plugin, shared memory",
                        "BOUNCE round trip, 8 B, C plugin, TCP loopback",
                        "BOUNCE round trip, 8 B, Java plugin, shared memory",
                        "bandwidth MEM_MAP 1 MiB, Java plugin, TCP loopback",
                        "host ping-pong p50, 8 B, C plugin, shared memory",
                        "ucx_perftest tag_lat round trip (2x one-way p50), 8 B, TCP loopback",
                        "ucx_perftest -e (error handling) tag_bw, 1 MiB, shared memory",
                        "floor bandwidth 4016 B",
                        "targets met");
        assertThat(made)
                .as("every /dev/shm file and plugin socket made is gone")
                .allSatisfy(path -> assertThat(path).doesNotExist());
        assertThat(made)
                .as("two /dev/shm files per plugin and setting")
                .filteredOn(path -> !path.getFileName().toString().endsWith(".sock"))
                .hasSize(8);
        assertThat(runFolders(tmp)).isEqualTo(runFoldersBefore);
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive))
                .isEmpty();
    }

    private static Figure figure(Report report, String id) {
        return report.figures().stream()
                .filter(f -> f.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no figure " + id));
    }

    private static long runFolders(Path tmp) throws Exception {
        try (Stream<Path> entries = Files.list(tmp)) {
            return entries.filter(
                            p -> p.getFileName().toString().startsWith(RunFolder.namePrefix("urom-sandbox-bench")))
                    .count();
        }
    }
}
