// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CollBenchOptionsTest {
    private static final CpuList TWO = CpuList.parse("0-1");

    @Test
    void noArgumentsGiveTheDefaultsAndSplitTheCpusInHalves() {
        CollBenchOptions options = CollBenchOptions.parse(List.of(), TWO);

        assertThat(options.json()).isNull();
        assertThat(options.ranks()).isEqualTo(2);
        assertThat(options.sizes()).hasSize(20).startsWith(8L).endsWith(4L << 20);
        assertThat(options.colls()).containsExactly("allreduce", "alltoall", "allgather", "bcast");
        assertThat(options.impls()).containsExactly("offload-c", "offload-java", "mpi-host-cpus", "mpi-all-cpus");
        assertThat(options.iterations()).isZero();
        assertThat(options.warmup()).isEqualTo(-1);
        assertThat(options.placement()).isEqualTo(new CollPlacement(CpuList.parse("0"), CpuList.parse("1"), TWO));
        assertThat(options.plugins()).isNull();
        assertThat(options.program()).isNull();
        assertThat(options.timeoutS()).isEqualTo(CollBenchOptions.DEFAULT_TIMEOUT_S);
    }

    @Test
    void everyOptionIsRead() {
        CollBenchOptions options = CollBenchOptions.parse(
                List.of(
                        "--json",
                        "out/c.json",
                        "--ranks",
                        "4",
                        "--sizes",
                        "16:1024",
                        "--colls",
                        "bcast,allreduce",
                        "--iterations",
                        "7",
                        "--warmup",
                        "0",
                        "--impls",
                        "mpi-all-cpus,offload-java",
                        "--host-cpus",
                        "0-1",
                        "--worker-cpus",
                        "2-3",
                        "--dist",
                        "d",
                        "--plugins",
                        "p",
                        "--program",
                        "bin/urom_coll",
                        "--worker-user",
                        "nobody",
                        "--timeout-s",
                        "60"),
                CpuList.parse("0-7"));

        assertThat(options)
                .isEqualTo(new CollBenchOptions(
                        Path.of("out/c.json"),
                        4,
                        16,
                        1024,
                        List.of("allreduce", "bcast"),
                        7,
                        0,
                        List.of("offload-java", "mpi-all-cpus"),
                        new CollPlacement(CpuList.parse("0,1"), CpuList.parse("2-3"), CpuList.parse("0-7")),
                        Path.of("d"),
                        Path.of("p"),
                        Path.of("bin/urom_coll"),
                        "nobody",
                        60));
        assertThat(options.sizes()).containsExactly(16L, 32L, 64L, 128L, 256L, 512L, 1024L);
        assertThat(options.measures("offload-c")).isFalse();
    }

    @Test
    void badValuesAreOneLineNamingTheOption() {
        assertThatThrownBy(() -> parse("--sizes", "0:8"))
                .hasMessage("--sizes '0:8' is not MIN:MAX bytes with 1 <= MIN <= MAX <= 1073741824");
        assertThatThrownBy(() -> parse("--sizes", "64:8")).hasMessageStartingWith("--sizes '64:8' is not");
        assertThatThrownBy(() -> parse("--sizes", "8")).hasMessageStartingWith("--sizes '8' is not");
        assertThatThrownBy(() -> parse("--sizes", "8:2147483648"))
                .hasMessageStartingWith("--sizes '8:2147483648' is not");
        assertThatThrownBy(() -> parse("--colls", "allreduce,reduce"))
                .hasMessage("--colls 'allreduce,reduce': 'reduce' is not one of allreduce,alltoall,allgather,bcast");
        assertThatThrownBy(() -> parse("--colls", "bcast,bcast")).hasMessage("--colls 'bcast,bcast' names bcast twice");
        assertThatThrownBy(() -> parse("--impls", "")).hasMessageStartingWith("--impls '': '' is not one of");
        assertThatThrownBy(() -> parse("--ranks", "0")).hasMessage("--ranks '0' is not a whole number from 1 to 1024");
        assertThatThrownBy(() -> parse("--iterations", "0"))
                .hasMessage("--iterations '0' is not a whole number from 1 to 1000000");
        assertThatThrownBy(() -> parse("--warmup", "-1"))
                .hasMessage("--warmup '-1' is not a whole number from 0 to 1000000");
        assertThatThrownBy(() -> parse("--host-cpus", "1-0"))
                .hasMessage("--host-cpus '1-0' has a range that goes down: 1-0");
        assertThatThrownBy(() -> parse("--worker-cpus", "a")).hasMessage("--worker-cpus 'a' is not a CPU list (0-3,8)");
        assertThatThrownBy(() -> parse("--frobnicate", "1"))
                .hasMessage("unknown argument '--frobnicate'; " + CollBenchOptions.USAGE);
        assertThatThrownBy(() -> parse("--json")).hasMessage("--json needs a value; " + CollBenchOptions.USAGE);
    }

    @Test
    void cpuListsArePlacedDisjointOnAllowedCpus() {
        assertThatThrownBy(() -> parse("--host-cpus", "0", "--worker-cpus", "0"))
                .hasMessage("--host-cpus 0 and --worker-cpus 0 share CPUs");
        assertThatThrownBy(() -> parse("--worker-cpus", "5"))
                .hasMessage("--worker-cpus 5 names CPUs this process may not use (allowed: 0-1)");
        assertThatThrownBy(() -> parse("--host-cpus", "0-1"))
                .hasMessage(
                        "hosts and workers need a CPU each and none is left for the workers (allowed: 0-1); give --host-cpus and --worker-cpus");
        assertThatThrownBy(() -> CollPlacement.of(CpuList.parse("3"), null, null))
                .hasMessageContaining("none is left for the workers");
        assertThat(CollPlacement.of(CpuList.parse("0-15"), null, null))
                .isEqualTo(new CollPlacement(CpuList.parse("0-7"), CpuList.parse("8-15"), CpuList.parse("0-15")));
        assertThat(CollPlacement.of(CpuList.parse("0-2"), null, null))
                .isEqualTo(new CollPlacement(CpuList.parse("0"), CpuList.parse("1-2"), CpuList.parse("0-2")));
        assertThat(CollPlacement.of(CpuList.parse("0-3"), null, CpuList.parse("0")))
                .isEqualTo(new CollPlacement(CpuList.parse("1-3"), CpuList.parse("0"), CpuList.parse("0-3")));
        assertThat(CollPlacement.of(CpuList.parse("0-3"), null, null).describe())
                .isEqualTo("hosts (MPI ranks) on CPUs 0-1, daemon and workers on 2-3; Open MPI alone on all: 0-3");
    }

    @Test
    void cpuListsReadAndWriteAsTasksetDoes() {
        assertThat(CpuList.parse("8,0-3,2").cpus()).containsExactly(0, 1, 2, 3, 8);
        assertThat(CpuList.parse("8,0-3,2,9-10")).hasToString("0-3,8-10");
        assertThat(CpuList.parse("5")).hasToString("5");
        for (String bad : List.of("", ",", "1,", "-1", "1-2-3", "x", "+1", "65536")) {
            assertThatThrownBy(() -> CpuList.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(CpuList.allowed().size()).isPositive();
    }

    @Test
    void aUsageErrorIsOneLineOnStderrAndExitStatusTwoBeforeAnythingRuns() {
        PrintStream before = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertThat(CollBench.start(List.of("--ranks", "zero"), () -> TWO)).isEqualTo(2);
            assertThat(CollBench.start(List.of("--host-cpus", "0-1"), () -> TWO))
                    .isEqualTo(2);
        } finally {
            System.setErr(before);
        }
        assertThat(err.toString(StandardCharsets.UTF_8).lines())
                .containsExactly(
                        "CollBench: --ranks 'zero' is not a whole number from 1 to 1024",
                        "CollBench: hosts and workers need a CPU each and none is left for the workers (allowed: 0-1); give --host-cpus and --worker-cpus");
    }

    private static CollBenchOptions parse(String... args) {
        return CollBenchOptions.parse(List.of(args), TWO);
    }
}
