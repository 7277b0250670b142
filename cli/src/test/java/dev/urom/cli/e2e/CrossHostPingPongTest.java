// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The sandbox ping-pong across two hosts ({@link TwoHosts}: two network namespaces joined by a veth
 * pair, each with its own /dev/shm, IPC and temporary directory), the way ranks on two machines run it: each host has
 * its own daemon on TCP with the same key, each rank talks to the daemon of its host ({@code
 * ping-pong-rank --service}), the domain's allgather goes through rank 0's rendezvous across the
 * link, and the workers exchange the message over the link. The link's packet counters show that
 * the message went over it: each direction carries at least one packet per round trip.
 *
 * <p>For any user. In the user namespace of a test that is not root every file of the machine's root
 * (/, /tmp, the JDK) has an owner the namespace cannot name (the overflow uid, nobody), and the
 * daemon rightly refuses a java.io.tmpdir and plugin directories below directories of an unknown
 * owner; so {@link TwoHosts} gives such a test a new root where the directories above its own tree
 * (this test's directory in target) are the namespace root's, as the machine's are root's for root.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CrossHostPingPongTest {
    private static final int ROUNDS = 200;
    private static final int DAEMON_PORT = 7300;

    private static KeyedTwoHosts xh;

    @BeforeAll
    static void startADaemonOnEachHost() throws Exception {
        xh = KeyedTwoHosts.create(
                Files.createTempDirectory(Path.of("target"), "cross-host-").toAbsolutePath());
        for (int n = 0; n < 2; n++) {
            Path host = Files.createDirectories(xh.dir.resolve("host" + n));
            xh.startDaemon(
                    n,
                    java(
                            n,
                            "daemon",
                            "--listen",
                            "tcp:" + TwoHosts.address(n) + ":" + DAEMON_PORT,
                            "--auth-keys",
                            xh.keys.toString(),
                            "--log-dir",
                            host.resolve("log").toString(),
                            "--worker-user",
                            "root"),
                    ServiceHarness.sandboxPluginFolder(host));
        }
    }

    @AfterAll
    static void stopTheDaemonsAndTheHosts() throws Exception {
        if (xh != null) {
            xh.close();
        }
    }

    @ParameterizedTest(name = "rank 0 {0}, rank 1 {1}")
    @CsvSource({
        "worker_sandbox, worker_sandbox",
        "worker_sandbox_java, worker_sandbox_java",
        "worker_sandbox, worker_sandbox_java"
    })
    void theMessageGoesToTheOtherHostAndBackOverTheLink(String plugin0, String plugin1) throws Exception {
        long[] sentBefore = {xh.hosts.packetsSent(0), xh.hosts.packetsSent(1)};

        String[] out = xh.runRanks((rank, rendezvous) -> rank(rank, rank == 0 ? plugin0 : plugin1, rendezvous));

        assertThat(out[0])
                .contains("(" + kind(plugin0) + ") joined the domain of 2 ranks")
                .contains("rank 0: sent 'hello' to rank 1; received 'hello' (tag 0x1234) back from rank 1")
                .contains("rank 0: " + ROUNDS + " round trips through 2 ranks: p50 ");
        assertThat(out[1])
                .contains("(" + kind(plugin1) + ") joined the domain of 2 ranks")
                .contains("rank 1: received 'hello' (tag 0x5678); sent it to rank 0");
        assertThat(xh.hosts.packetsSent(0) - sentBefore[0])
                .as("packets host 0 sent on the link in %d round trips", ROUNDS)
                .isGreaterThanOrEqualTo(ROUNDS);
        assertThat(xh.hosts.packetsSent(1) - sentBefore[1])
                .as("packets host 1 sent on the link in %d round trips", ROUNDS)
                .isGreaterThanOrEqualTo(ROUNDS);
    }

    private static List<String> rank(int rank, String plugin, String rendezvous) {
        return java(
                rank,
                "ping-pong-rank",
                "--service",
                "tcp:" + TwoHosts.address(rank) + ":" + DAEMON_PORT,
                "--auth-key-file",
                xh.key.toString(),
                "--rank",
                Integer.toString(rank),
                "--size",
                "2",
                "--rendezvous",
                rendezvous,
                "--message",
                "hello",
                "--plugin",
                plugin,
                "--rounds",
                Integer.toString(ROUNDS));
    }

    private static String kind(String plugin) {
        return plugin.endsWith("_java") ? "java" : "native";
    }

    /** {@code urom ARGS...} in a JVM of its own on host {@code n}. */
    private static List<String> java(int n, String... args) {
        return TwoHosts.java(xh.dir, n, "dev.urom.cli.Main", args);
    }
}
