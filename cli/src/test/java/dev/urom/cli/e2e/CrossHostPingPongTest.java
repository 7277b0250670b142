// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.cli.CliRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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
    private static final long LIMIT_SECONDS = 120;
    private static final int DAEMON_PORT = 7300;
    private static final Pattern RENDEZVOUS = Pattern.compile("RENDEZVOUS (\\S+)");

    private static Path dir;
    private static Path key;
    private static TwoHosts hosts;
    private static final List<RunningCommand> daemons = new ArrayList<>();

    @BeforeAll
    static void startADaemonOnEachHost() throws Exception {
        dir = Files.createTempDirectory(Path.of("target"), "cross-host-").toAbsolutePath();
        Path keys = Files.createDirectories(dir.resolve("keys"));
        Files.setAttribute(keys, "unix:mode", 0700);
        key = keys.resolve("ranks.key");
        assertThat(CliRunner.run(null, "keygen", key.toString()).status()).isZero();
        hosts = TwoHosts.create(dir);
        for (int n = 0; n < 2; n++) {
            Path host = Files.createDirectories(dir.resolve("host" + n));
            Path plugins = ServiceHarness.sandboxPluginFolder(host);
            List<String> command = java(n, "daemon", "--listen", "tcp:" + TwoHosts.address(n) + ":" + DAEMON_PORT, "--auth-keys", keys.toString(),
                    "--log-dir", host.resolve("log").toString(), "--worker-user", "root");
            RunningCommand daemon = RunningCommand.start(hosts.on(n, command), List.of("UROM_PLUGIN_PATH=" + plugins));
            daemons.add(daemon);
            daemon.awaitLine("listening on");
        }
    }

    @AfterAll
    static void stopTheDaemonsAndTheHosts() throws Exception {
        for (RunningCommand daemon : daemons) {
            daemon.stop();
        }
        if (hosts != null) {
            hosts.close();
        }
        if (dir != null) {
            try (Stream<Path> tree = Files.walk(dir)) {
                for (Path path : tree.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    @ParameterizedTest(name = "rank 0 {0}, rank 1 {1}")
    @CsvSource({"worker_sandbox, worker_sandbox", "worker_sandbox_java, worker_sandbox_java", "worker_sandbox, worker_sandbox_java"})
    void theMessageGoesToTheOtherHostAndBackOverTheLink(String plugin0, String plugin1) throws Exception {
        long[] sentBefore = {hosts.packetsSent(0), hosts.packetsSent(1)};

        List<RunningCommand> ranks = new ArrayList<>();
        String out0;
        String out1;
        try {
            ranks.add(RunningCommand.start(hosts.on(0, rank(0, plugin0, TwoHosts.address(0) + ":0")), List.of()));
            Matcher rendezvous = RENDEZVOUS.matcher(ranks.get(0).awaitLine("RENDEZVOUS "));
            assertThat(rendezvous.find()).isTrue();
            ranks.add(RunningCommand.start(hosts.on(1, rank(1, plugin1, rendezvous.group(1))), List.of()));
            out0 = ranks.get(0).awaitExit();
            out1 = ranks.get(1).awaitExit();
        } finally {
            for (RunningCommand rank : ranks) {
                rank.process().destroyForcibly().waitFor(LIMIT_SECONDS, TimeUnit.SECONDS);
            }
        }
        assertThat(out0).contains("(" + kind(plugin0) + ") joined the domain of 2 ranks")
                .contains("rank 0: sent 'hello' to rank 1; received 'hello' (tag 0x1234) back from rank 1")
                .contains("rank 0: " + ROUNDS + " round trips through 2 ranks: p50 ");
        assertThat(out1).contains("(" + kind(plugin1) + ") joined the domain of 2 ranks")
                .contains("rank 1: received 'hello' (tag 0x5678); sent it to rank 0");
        assertThat(hosts.packetsSent(0) - sentBefore[0]).as("packets host 0 sent on the link in %d round trips", ROUNDS).isGreaterThanOrEqualTo(ROUNDS);
        assertThat(hosts.packetsSent(1) - sentBefore[1]).as("packets host 1 sent on the link in %d round trips", ROUNDS).isGreaterThanOrEqualTo(ROUNDS);
    }

    private static List<String> rank(int rank, String plugin, String rendezvous) {
        return java(rank, "ping-pong-rank", "--service", "tcp:" + TwoHosts.address(rank) + ":" + DAEMON_PORT, "--auth-key-file", key.toString(),
                "--rank", Integer.toString(rank), "--size", "2", "--rendezvous", rendezvous, "--message", "hello", "--plugin", plugin,
                "--rounds", Integer.toString(ROUNDS));
    }

    private static String kind(String plugin) {
        return plugin.endsWith("_java") ? "java" : "native";
    }

    /** {@code urom ARGS...} in a JVM of its own on host {@code n}. */
    private static List<String> java(int n, String... args) {
        return TwoHosts.java(dir, n, "dev.urom.cli.Main", args);
    }
}
