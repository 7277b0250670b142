// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class OsuBenchOptionsTest {
    private static final CpuList TWO = CpuList.parse("0-1");

    @Test
    void onlyTheOsuFolderIsNeeded() {
        OsuBenchOptions options = OsuBenchOptions.parse(List.of("--osu", "omb"), TWO);

        assertThat(options.osu()).isEqualTo(Path.of("omb"));
        assertThat(options.benchmarks())
                .containsExactly("osu_iallreduce", "osu_ialltoall", "osu_iallgather", "osu_ibcast");
        assertThat(options.sizes()).hasSize(20).startsWith(8L).endsWith(4L << 20);
        assertThat(options.type()).isEqualTo("mpi_float");
        assertThat(options.kernelN()).isEqualTo(1024);
        assertThat(options.transport()).isEqualTo(MpiTransport.SHM);
        assertThat(options.placement()).isEqualTo(new CollPlacement(CpuList.parse("0"), CpuList.parse("1"), TWO));
        assertThat(OsuBench.osuArgs(options)).containsExactly("-m", "8:4194304", "-c", "-T", "mpi_float");
    }

    @Test
    void everyOptionIsRead() {
        OsuBenchOptions options = OsuBenchOptions.parse(
                List.of(
                        "--osu",
                        "omb",
                        "--json",
                        "o.json",
                        "--benchmarks",
                        "osu_ibcast,osu_iallreduce",
                        "--ranks",
                        "3",
                        "--sizes",
                        "64:256",
                        "--type",
                        "mpi_int",
                        "--iterations",
                        "9",
                        "--warmup",
                        "0",
                        "--host-cpus",
                        "0-2",
                        "--worker-cpus",
                        "3",
                        "--dist",
                        "d",
                        "--plugins",
                        "p",
                        "--worker-user",
                        "nobody",
                        "--kernel-n",
                        "0",
                        "--timeout-s",
                        "30",
                        "--transport",
                        "tcp"),
                CpuList.parse("0-3"));

        assertThat(options)
                .isEqualTo(new OsuBenchOptions(
                        Path.of("omb"),
                        Path.of("o.json"),
                        List.of("osu_iallreduce", "osu_ibcast"),
                        3,
                        64,
                        256,
                        "mpi_int",
                        9,
                        0,
                        new CollPlacement(CpuList.parse("0-2"), CpuList.parse("3"), CpuList.parse("0-3")),
                        Path.of("d"),
                        Path.of("p"),
                        "nobody",
                        0,
                        30,
                        MpiTransport.TCP));
        assertThat(OsuBench.osuArgs(options))
                .containsExactly("-m", "64:256", "-c", "-T", "mpi_int", "-i", "9", "-x", "0");
    }

    @Test
    void badValuesAreOneLineNamingTheOption() {
        assertThatThrownBy(() -> OsuBenchOptions.parse(List.of(), TWO)).hasMessageStartingWith("--osu DIR is required");
        assertThatThrownBy(() -> parse("--type", "mpi_double"))
                .hasMessage("--type 'mpi_double' is not one of mpi_float,mpi_int,mpi_char");
        assertThatThrownBy(() -> parse("--transport", "ib")).hasMessage("--transport 'ib' is not shm or tcp");
        assertThatThrownBy(() -> parse("--kernel-n", "100"))
                .hasMessage("--kernel-n 100 is not 0 or a power of two from 8 to 16384");
        assertThatThrownBy(() -> parse("--benchmarks", "osu_ibarrier"))
                .hasMessageStartingWith("--benchmarks 'osu_ibarrier': 'osu_ibarrier' is not one of");
        assertThatThrownBy(() -> parse("--sizes", "9:8")).hasMessageStartingWith("--sizes '9:8' is not MIN:MAX");
    }

    private static OsuBenchOptions parse(String option, String value) {
        return OsuBenchOptions.parse(List.of("--osu", "omb", option, value), TWO);
    }
}
