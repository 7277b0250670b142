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
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny real {@code bench coll} run: the sample built from the distribution (cli/target/urom), 2
 * ranks, sizes 8 B to 1 KiB, every collective, 5 iterations after 1. Needs Open MPI (mpirun, mpicc)
 * and taskset. It checks that every figure asked for is there and holds together (both plugins and
 * both Open MPI placements), never how fast, and that no process or run folder outlives the run.
 */
@Timeout(600)
class CollBenchIT {
    private static final List<Long> SIZES = List.of(8L, 16L, 32L, 64L, 128L, 256L, 512L, 1024L);

    @TempDir
    Path dir;

    @Test
    void aTinyRunMeasuresWhatItCanReportsTheRestAndLeavesNothingBehind() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        long runFoldersBefore = runFolders(tmp);
        List<String> args =
                new ArrayList<>(List.of("--ranks", "2", "--sizes", "8:1024", "--iterations", "5", "--warmup", "1"));
        String workerUser = TestWorkers.security().workerUser();
        if (workerUser != null) {
            args.addAll(List.of("--worker-user", workerUser));
        }
        CollBenchOptions options = CollBenchOptions.parse(args, CpuList.allowed());
        List<String> progress = new ArrayList<>();

        CollBench.Outcome outcome = CollBench.run(options, progress::add);

        CollResults results = outcome.results();
        for (String impl : List.of(CollBenchOptions.MPI_HOST_CPUS, CollBenchOptions.MPI_ALL_CPUS)) {
            for (String coll : CollBenchOptions.COLLS) {
                for (long bytes : SIZES) {
                    assertThat(results.row(coll, impl, bytes))
                            .as(coll + " " + bytes + " " + impl)
                            .hasValueSatisfying(CollBenchIT::holdsTogether);
                }
            }
        }
        Report report = outcome.report();
        assertThat(report.settings())
                .containsEntry("hostCpus", options.placement().hosts().toString())
                .containsEntry("workerCpus", options.placement().workers().toString())
                .containsEntry("mpiAllCpus", CpuList.allowed().toString())
                .containsEntry("ranks", 2)
                .containsEntry("sizes", "8:1024");
        assertThat(report.table())
                .contains("bcast 1 KiB, mpi-all-cpus: pure latency", "allreduce 8 B, mpi-host-cpus: overlap");
        assertThat(progress)
                .anyMatch(line -> line.startsWith("daemon pid ")
                        && line.contains(" on CPUs " + options.placement().workers()));
        assertThat(outcome.notMeasured()).isEmpty();
        assertThat(report.settings()).containsEntry("mpiHostCpusRun", "beside the C plugin, daemon and workers up");
        for (String impl : List.of(CollBenchOptions.OFFLOAD_C, CollBenchOptions.OFFLOAD_JAVA)) {
            assertThat(results.roundTripsUs().get(impl))
                    .as(impl + " round trip")
                    .isPositive();
            for (String coll : CollBenchOptions.COLLS) {
                for (long bytes : SIZES) {
                    assertThat(results.row(coll, impl, bytes))
                            .as(coll + " " + bytes + " " + impl)
                            .hasValueSatisfying(CollBenchIT::holdsTogether);
                }
                Figure eight = report.figures().stream()
                        .filter(f -> f.id().equals(coll + "_8_" + impl.replace('-', '_') + "_pure_us"))
                        .findFirst()
                        .orElseThrow();
                assertThat(eight.baselineLabel()).isEqualTo("command round trip");
            }
        }
        Path json = dir.resolve("coll.json");
        report.writeJson(json);
        assertThat(CollCharts.write("CollBench", json, results, options)).isTrue();
        assertThat(dir.resolve("coll-latency-by-size.png")).isNotEmptyFile();
        assertThat(dir.resolve("coll-overlap-by-size.png")).isNotEmptyFile();
        assertThat(runFolders(tmp)).as("the run folder is gone").isEqualTo(runFoldersBefore);
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive))
                .as("no daemon, worker or mpirun left")
                .isEmpty();
    }

    private static void holdsTogether(CollResults.Row row) {
        assertThat(row.pureUs()).isPositive();
        assertThat(row.overallUs()).isPositive();
        assertThat(row.computeUs()).isPositive();
        assertThat(row.overlapPct()).isBetween(0.0, 100.0);
    }

    private static long runFolders(Path tmp) throws Exception {
        try (Stream<Path> entries = Files.list(tmp)) {
            return entries.filter(p -> p.getFileName().toString().startsWith(RunFolder.namePrefix("urom-coll-bench")))
                    .count();
        }
    }
}
