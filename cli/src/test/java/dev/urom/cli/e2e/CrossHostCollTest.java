// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The coll plugins across two hosts ({@link TwoHosts}): each host has its own daemon, on a Unix
 * socket so that its worker learns its host's process and reads and writes its buffers; both
 * daemons hold the same key, which each rank proves (a domain across daemons needs a key
 * principal's seals). Rank 0's TCP rendezvous carries the domain's allgather across the link, and
 * the workers' allreduce and alltoall go over it: the link's packet counters show at least one
 * packet per 64 KiB of the allreduce's vector each way.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CrossHostCollTest {
    /** Doubles of the allreduce (2 MB), and bytes per rank of the alltoall. */
    private static final int COUNT = 250_000;

    private static KeyedTwoHosts xh;

    @BeforeAll
    static void startADaemonOnEachHost() throws Exception {
        // Short names: each worker's socket lies below the daemon's (SOCKET.workers/worker-I-L.sock), and a Unix
        // socket's path holds at most 107 bytes wherever the clone is.
        xh = KeyedTwoHosts.create(Files.createDirectory(
                        Path.of("target", "xh" + ProcessHandle.current().pid()))
                .toAbsolutePath());
        for (int n = 0; n < 2; n++) {
            Path host = Files.createDirectories(xh.dir.resolve("host" + n));
            Path plugins = Files.createDirectories(host.resolve("plugins"));
            Path build = Path.of(System.getProperty("urom.coll.build", "../plugins/coll/target"));
            Files.copy(build.resolve("worker_coll.so"), plugins.resolve("worker_coll.so"));
            Files.copy(build.resolve("worker_coll_java.jar"), plugins.resolve("worker_coll_java.jar"));
            xh.startDaemon(
                    n,
                    TwoHosts.java(
                            xh.dir,
                            n,
                            "dev.urom.cli.Main",
                            "daemon",
                            "--listen",
                            "unix:" + socket(n),
                            "--auth-keys",
                            xh.keys.toString(),
                            "--log-dir",
                            host.resolve("log").toString(),
                            "--worker-user",
                            "root"),
                    plugins);
        }
    }

    @AfterAll
    static void stopTheDaemonsAndTheHosts() throws Exception {
        if (xh != null) {
            xh.close();
        }
    }

    @ParameterizedTest(name = "rank 0 {0}, rank 1 {1}")
    @CsvSource({"worker_coll, worker_coll", "worker_coll_java, worker_coll_java", "worker_coll, worker_coll_java"})
    void anAllreduceAndAnAlltoallGoToTheOtherHostOverTheLink(String plugin0, String plugin1) throws Exception {
        long[] sentBefore = {xh.hosts.packetsSent(0), xh.hosts.packetsSent(1)};

        String[] out = xh.runRanks((rank, rendezvous) -> rank(rank, rank == 0 ? plugin0 : plugin1, rendezvous));

        for (Map.Entry<String, String> each : Map.of("0", out[0], "1", out[1]).entrySet()) {
            String rank = "rank " + each.getKey() + ": ";
            assertThat(each.getValue())
                    .contains(rank + (each.getKey().equals("0") ? plugin0 : plugin1) + " in a team of 2")
                    .contains(rank + "allreduce of " + COUNT + " doubles matches")
                    .contains(rank + "alltoall of " + COUNT + " bytes per rank matches");
        }
        long atLeast = (long) COUNT * Double.BYTES / 65536;
        assertThat(xh.hosts.packetsSent(0) - sentBefore[0])
                .as("packets host 0 sent on the link")
                .isGreaterThanOrEqualTo(atLeast);
        assertThat(xh.hosts.packetsSent(1) - sentBefore[1])
                .as("packets host 1 sent on the link")
                .isGreaterThanOrEqualTo(atLeast);
    }

    private static Path socket(int n) {
        return xh.dir.resolve("h" + n + ".sock");
    }

    private static List<String> rank(int rank, String plugin, String rendezvous) {
        return TwoHosts.java(
                xh.dir,
                rank,
                CollRankMain.class.getName(),
                "unix:" + socket(rank),
                xh.key.toString(),
                Integer.toString(rank),
                "2",
                rendezvous,
                plugin,
                Integer.toString(COUNT));
    }
}
