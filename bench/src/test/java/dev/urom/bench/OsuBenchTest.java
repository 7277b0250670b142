// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OsuBenchTest {
    private static final List<Long> SIZES = List.of(8L, 65536L);

    @Test
    void onlyTheRanksLoadTheLibraryAndOnlyTheIdleRunRaisesTheThreshold() {
        OsuBenchOptions options =
                OsuBenchOptions.parse(List.of("--osu", "omb", "--sizes", "8:1024"), CpuList.parse("0-1"));
        Path library = Path.of("dist/lib/liburom_mpi.so");
        Path program = Path.of("omb/osu_iallreduce");

        List<String> plain = OsuBench.command(options, OsuBench.OPEN_MPI, library, program, List.of("-c"));
        List<String> urom = OsuBench.command(options, OsuBench.UROM, library, program, List.of("-c"));
        List<String> idle = OsuBench.command(options, OsuBench.UROM_IDLE, library, program, List.of("-c"));

        assertThat(plain.subList(plain.indexOf("taskset"), plain.size()))
                .containsExactly("taskset", "-c", "0", program.toString(), "-c");
        assertThat(urom.subList(urom.indexOf("taskset"), urom.size()))
                .containsExactly(
                        "taskset",
                        "-c",
                        "0",
                        "env",
                        "LD_PRELOAD=" + library,
                        "UROM_MPI_STATS=1",
                        "UROM_MPI_MIN_BYTES=0",
                        program.toString(),
                        "-c");
        assertThat(idle).contains("UROM_MPI_MIN_BYTES=2048");
        assertThat(plain.subList(0, plain.indexOf("taskset"))).doesNotContain("LD_PRELOAD=" + library);
        assertThat(plain).doesNotContain("--mca");
    }

    @Test
    void overTcpOpenMpiIsToldToUseLoopbackAndTheWorkersToo() {
        OsuBenchOptions options =
                OsuBenchOptions.parse(List.of("--osu", "omb", "--transport", "tcp"), CpuList.parse("0-1"));

        List<String> plain =
                OsuBench.command(options, OsuBench.OPEN_MPI, Path.of("lib.so"), Path.of("omb/osu_ibcast"), List.of());

        assertThat(String.join(" ", plain.subList(0, plain.indexOf("-np"))))
                .endsWith("--mca btl tcp,self --mca btl_tcp_if_include lo");
        assertThat(options.transport().workerEnvironment()).containsEntry("UCX_TLS", "tcp,self");
    }

    @Test
    void targetsAreTheOverlapFrom64KiBTheIdleCostAndProofOfOffload() {
        Map<String, OsuOutput> outputs = new LinkedHashMap<>();
        outputs.put(
                OsuBench.OPEN_MPI,
                table(new OsuOutput.Row(8, 3, 1.5, 1.5, 0, true), new OsuOutput.Row(65536, 40, 20, 20, 2, true)));
        outputs.put(
                OsuBench.UROM,
                table(
                        new OsuOutput.Row(8, 200, 100, 100, 95, true),
                        new OsuOutput.Row(65536, 410, 400, 400, 97.5, true)));
        outputs.put(
                OsuBench.UROM_IDLE,
                table(new OsuOutput.Row(8, 3, 1.5, 1.5, 0, true), new OsuOutput.Row(65536, 40, 20, 23, 2, true)));

        List<Figure> figures = OsuBench.benchmarkFigures(
                "osu_iallreduce", SIZES, outputs, Map.of(OsuBench.UROM, new OsuBench.Stats(40, 0, 0, 1)), Map.of());

        assertThat(met(figures, "iallreduce_65536_urom_overlap_pct")).isTrue();
        assertThat(byId(figures, "iallreduce_8_urom_overlap_pct").target()).isNull();
        assertThat(byId(figures, "iallreduce_65536_urom_pure_us").baselineValue())
                .isEqualTo(20.0);
        assertThat(byId(figures, "iallreduce_idle_ratio").value())
                .isCloseTo(Math.sqrt(1.15), org.assertj.core.data.Offset.offset(1e-9));
        assertThat(met(figures, "iallreduce_idle_ratio")).isFalse();
        assertThat(met(figures, "iallreduce_offloaded")).isTrue();
    }

    @Test
    void theKernelsFiguresAreMediansTakenOneByOne() {
        List<OsuBench.Kernel> runs = List.of(
                OsuBench.Kernel.find("fft2d n=1024 ranks=2 batches=8: 64571.9 us per FFT, compute 58261.3 us,"
                                + " waiting 6308.9 us")
                        .orElseThrow(),
                new OsuBench.Kernel(60000, 59000, 1000),
                new OsuBench.Kernel(70000, 50000, 20000));

        assertThat(OsuBench.Kernel.median(runs)).isEqualTo(new OsuBench.Kernel(64571.9, 58261.3, 6308.9));
        assertThat(OsuBench.Kernel.median(runs.subList(1, 3))).isEqualTo(new OsuBench.Kernel(65000, 54500, 10500));
    }

    @Test
    void aRunThatGaveNothingLeavesItsTargetsUnmet() {
        Map<String, OsuOutput> outputs =
                Map.of(OsuBench.OPEN_MPI, table(new OsuOutput.Row(65536, 40, 20, 20, 2, true)));

        List<Figure> figures = OsuBench.benchmarkFigures(
                "osu_ibcast", SIZES, outputs, Map.of(), Map.of("osu_ibcast urom", "run failed"));

        assertThat(byId(figures, "ibcast_65536_urom_overlap_pct").unmeasured()).isEqualTo("not measured");
        assertThat(byId(figures, "ibcast_offloaded").unmeasured()).isEqualTo("not measured");
        assertThat(byId(figures, "ibcast_idle_ratio").unmeasured()).isEqualTo("not measured");
    }

    @Test
    void theProgramsAreFoundBelowTheFolderAndAMissingOneIsNamed(@TempDir Path dir) throws IOException {
        Path program = Files.createDirectories(dir.resolve("c/mpi/collective/non_blocking"))
                .resolve("osu_ibcast");
        Files.writeString(program, "#!/bin/sh\n");
        Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));

        assertThat(OsuBench.find(dir, "osu_ibcast")).isEqualTo(program);
        assertThatThrownBy(() -> OsuBench.find(dir, "osu_ialltoall"))
                .hasMessage("--osu " + dir
                        + " holds no executable osu_ialltoall; build the OSU Micro-Benchmarks with mpicc first");
        assertThatThrownBy(() -> OsuBench.find(dir.resolve("none"), "osu_ibcast"))
                .hasMessage("--osu " + dir.resolve("none") + " is not a folder");
    }

    private static OsuOutput table(OsuOutput.Row... rows) {
        return new OsuOutput("test", List.of(rows));
    }

    private static Figure byId(List<Figure> figures, String id) {
        return figures.stream()
                .filter(f -> f.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no figure " + id));
    }

    private static Boolean met(List<Figure> figures, String id) {
        return byId(figures, id).met();
    }
}
