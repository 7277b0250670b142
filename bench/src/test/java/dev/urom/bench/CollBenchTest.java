// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollBenchTest {
    private static final List<String> IMPLS = CollBenchOptions.IMPLS;
    private static final long KIB64 = 64 << 10;
    private static final long MIB = 1 << 20;

    /** pure latency by impl at 64 KiB and 1 MiB; overlap as given. */
    private static CollResults results(double cPure, double javaPure, double overlap) {
        List<CollResults.Row> rows = new ArrayList<>();
        for (long bytes : List.of(8L, KIB64, MIB)) {
            rows.add(new CollResults.Row("bcast", "offload-c", bytes, cPure, cPure, cPure, overlap));
            rows.add(new CollResults.Row("bcast", "offload-java", bytes, javaPure, javaPure, javaPure, 95));
            rows.add(new CollResults.Row("bcast", "mpi-host-cpus", bytes, 100, 150, 100, 50));
            rows.add(new CollResults.Row("bcast", "mpi-all-cpus", bytes, 80, 120, 80, 50));
        }
        return new CollResults(rows, Map.of("offload-c", 10.0, "offload-java", 20.0));
    }

    private static Figure figure(List<Figure> figures, String id) {
        return figures.stream()
                .filter(f -> f.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no figure " + id));
    }

    @Test
    void theTargetsSitOnTheirRows() {
        List<Figure> figures =
                CollBench.figures(List.of("bcast"), List.of(8L, KIB64, MIB), IMPLS, results(100, 160, 89), Map.of());

        // 2 round trips; 3 sizes x 4 impls x 4 figures; Java vs C at 64 KiB and 1 MiB.
        assertThat(figures).hasSize(2 + 3 * 4 * 4 + 2);
        assertThat(figure(figures, "offload_c_round_trip_us").value()).isEqualTo(10);
        assertThat(figure(figures, "bcast_8_offload_java_pure_us")).satisfies(f -> {
            assertThat(f.baselineLabel()).isEqualTo("command round trip");
            assertThat(f.ratio()).isEqualTo(8.0);
            assertThat(f.target()).isNull();
        });
        assertThat(figure(figures, "bcast_65536_offload_c_overlap_pct")).satisfies(f -> {
            assertThat(f.target()).isEqualTo(">= 90.0 %");
            assertThat(f.met()).isFalse();
        });
        assertThat(figure(figures, "bcast_65536_offload_java_overlap_pct").met())
                .isTrue();
        assertThat(figure(figures, "bcast_8_offload_c_overlap_pct").target())
                .as("below 64 KiB: no target")
                .isNull();
        assertThat(figure(figures, "bcast_65536_mpi_all_cpus_overlap_pct").target())
                .isNull();
        assertThat(figure(figures, "bcast_1048576_offload_c_pure_us")).satisfies(f -> {
            assertThat(f.baselineLabel()).isEqualTo("better Open MPI (mpi-all-cpus)");
            assertThat(f.baselineValue()).isEqualTo(80);
            assertThat(f.met()).as("100 <= 1.5 x 80").isTrue();
        });
        assertThat(figure(figures, "bcast_1048576_offload_java_pure_us").met())
                .as("160 > 1.5 x 80")
                .isFalse();
        assertThat(figure(figures, "bcast_65536_offload_java_pure_vs_c")).satisfies(f -> {
            assertThat(f.baselineLabel()).isEqualTo("offload-c");
            assertThat(f.ratio()).isEqualTo(1.6);
            assertThat(f.met()).isFalse();
        });
        assertThat(new Report(Map.of(), figures).targetsTotal()).isEqualTo(4 + 2 + 2);
    }

    @Test
    void anImplementationNotMeasuredHasOneRowWhyAndItsTargetsNotMeasured() {
        CollResults mpiOnly = new CollResults(
                results(1, 1, 1).rows().stream()
                        .filter(r -> r.impl().startsWith("mpi-"))
                        .toList(),
                Map.of());
        Map<String, String> notMeasured = Map.of(
                "offload-c",
                "no worker_coll.so in plugins/coll/target",
                "offload-java",
                "mpirun exited with status 1: rank 0: the service has no plugin named worker_coll_java: FAILED");

        List<Figure> figures =
                CollBench.figures(List.of("bcast"), List.of(8L, KIB64, MIB), IMPLS, mpiOnly, notMeasured);
        Report report = new Report(Map.of(), figures);

        assertThat(figure(figures, "offload_c_not_measured").unmeasured()).isEqualTo("no plugin file");
        assertThat(figure(figures, "offload_java_not_measured").unmeasured()).isEqualTo("run failed");
        assertThat(figure(figures, "offload_java_round_trip_us").unmeasured()).isEqualTo("offload-java not measured");
        assertThat(figure(figures, "bcast_1048576_offload_c_pure_us").target()).isEqualTo("ratio <= 1.5");
        assertThat(report.targetsTotal()).isZero();
        // overlap at 64 KiB and 1 MiB for both; latency at 1 MiB for both; Java vs C at both sizes.
        assertThat(report.targetsUnmeasured()).isEqualTo(4 + 2 + 2);
        assertThat(report.table()).contains("0 of 0 targets met (8 more not measured)", "| -");
        assertThat(figures)
                .filteredOn(f -> f.id().startsWith("bcast_") && f.unmeasured() == null)
                .hasSize(3 * 2 * 4);
    }

    @Test
    void reasonsShortenForTheTable() {
        assertThat(CollBench.shortReason("no worker_coll_java.jar (give --plugins DIR, or build plugins/coll)"))
                .isEqualTo("no plugin file");
        assertThat(CollBench.shortReason("the daemon did not start: the daemon ended with status 1"))
                .isEqualTo("no daemon");
        assertThat(CollBench.shortReason("mpirun ran past --timeout-s 60")).isEqualTo("timed out");
        assertThat(CollBench.shortReason("mpirun exited with status 1: no output"))
                .isEqualTo("run failed");
    }

    @Test
    void theFailureLineIsTheOneThatSaysWhat() {
        assertThat(CollBench.failureLine(List.of(
                        "[..][DOCA][ERR][x.c:1] reading the plugin list failed",
                        "rank 1: the service has no plugin" + " named worker_coll_java: FAILED",
                        "rank 1: coll FAILED (DOCA_ERROR_NOT_FOUND)")))
                .isEqualTo("rank 1: the service has no plugin named worker_coll_java: FAILED");
        assertThat(CollBench.failureLine(List.of("a", "[..][DOCA][ERR] x ERROR y", "rank 0: coll FAILED (z)")))
                .isEqualTo("[..][DOCA][ERR] x ERROR y");
        assertThat(CollBench.failureLine(List.of("one", "two", "  "))).isEqualTo("two");
        assertThat(CollBench.failureLine(List.of())).isEqualTo("(no output)");
    }

    @Test
    void sizesReadAsPeopleWriteThem() {
        assertThat(CollBench.size(8)).isEqualTo("8 B");
        assertThat(CollBench.size(1536)).isEqualTo("1536 B");
        assertThat(CollBench.size(64 << 10)).isEqualTo("64 KiB");
        assertThat(CollBench.size(4 << 20)).isEqualTo("4 MiB");
    }

    @Test
    void everyRankRunsUnderTasksetWithTheBenchmarksOptions() {
        CollBenchOptions options = CollBenchOptions.parse(
                List.of("--sizes", "8:1024", "--iterations", "5", "--colls", "bcast", "--ranks", "3"),
                CpuList.parse("0-3"));

        List<String> command = CollBench.mpirunCommand(
                options,
                Path.of("/x/urom_coll"),
                options.placement().hosts(),
                Path.of("/r/c.json"),
                "offload-c",
                List.of("--impl", "both", "-p", "worker_coll"));

        assertThat(String.join(" ", command))
                .startsWith("mpirun --oversubscribe --bind-to none")
                .endsWith(
                        "-np 3 taskset -c 0-1 /x/urom_coll --bench --sizes 8:1024 --colls bcast --iterations 5 --results /r/c.json"
                                + " --label offload-c --impl both -p worker_coll");
        assertThat(command.contains("--allow-run-as-root"))
                .isEqualTo(dev.urom.framework.security.UnixAccounts.effectiveUid() == 0);
        assertThat(command).doesNotContain("--warmup");
    }

    @Test
    void theChartsHaveAPanelPerMeasuredCollectiveAndALinePerImplementationInOrder(@TempDir Path dir) throws Exception {
        CollResults results = results(100, 160, 89);

        List<Plots.Panel> latency = CollCharts.panels(results, List.of("allreduce", "bcast"), true);
        List<Plots.Panel> overlap = CollCharts.panels(results, List.of("bcast"), false);

        assertThat(latency).hasSize(1);
        assertThat(latency.get(0).axisLabel()).isEqualTo("bcast: pure latency, µs");
        assertThat(latency.get(0).lines()).extracting(Plots.Line::name).containsExactlyElementsOf(IMPLS);
        assertThat(latency.get(0).lines().get(1).x()).containsExactly(8, KIB64, MIB);
        assertThat(latency.get(0).lines().get(1).y()).containsExactly(160, 160, 160);
        assertThat(overlap.get(0).lines().get(0).y()).containsExactly(89, 89, 89);
        CollBenchOptions options = CollBenchOptions.parse(List.of("--colls", "bcast"), CpuList.parse("0-1"));
        Path json = dir.resolve("coll.json");
        assertThat(CollCharts.write("CollBench", json, results, options)).isTrue();
        assertThat(dir.resolve("coll-latency-by-size.png")).isNotEmptyFile();
        assertThat(dir.resolve("coll-overlap-by-size.png")).isNotEmptyFile();
        assertThat(CollCharts.write("CollBench", json, CollResults.empty(), options))
                .isFalse();
    }
}
