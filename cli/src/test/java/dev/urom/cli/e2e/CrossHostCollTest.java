// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.cli.CliRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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
    private static final Pattern RENDEZVOUS = Pattern.compile("RENDEZVOUS (\\S+)");

    private static Path dir;
    private static Path key;
    private static TwoHosts hosts;
    private static final List<RunningCommand> daemons = new ArrayList<>();

    @BeforeAll
    static void startADaemonOnEachHost() throws Exception {
        // Short names: each worker's socket lies below the daemon's (SOCKET.workers/worker-I-L.sock), and a Unix
        // socket's path holds at most 107 bytes wherever the clone is.
        dir = Files.createDirectory(Path.of("target", "xh" + ProcessHandle.current().pid())).toAbsolutePath();
        Path keys = Files.createDirectories(dir.resolve("keys"));
        Files.setAttribute(keys, "unix:mode", 0700);
        key = keys.resolve("ranks.key");
        assertThat(CliRunner.run(null, "keygen", key.toString()).status()).isZero();
        hosts = TwoHosts.create(dir);
        for (int n = 0; n < 2; n++) {
            Path host = Files.createDirectories(dir.resolve("host" + n));
            Path plugins = Files.createDirectories(host.resolve("plugins"));
            Path build = Path.of(System.getProperty("urom.coll.build", "../plugins/coll/target"));
            Files.copy(build.resolve("worker_coll.so"), plugins.resolve("worker_coll.so"));
            Files.copy(build.resolve("worker_coll_java.jar"), plugins.resolve("worker_coll_java.jar"));
            List<String> command = TwoHosts.java(dir, n, "dev.urom.cli.Main", "daemon", "--listen", "unix:" + socket(n),
                    "--auth-keys", keys.toString(), "--log-dir", host.resolve("log").toString(), "--worker-user", "root");
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
    @CsvSource({"worker_coll, worker_coll", "worker_coll_java, worker_coll_java", "worker_coll, worker_coll_java"})
    void anAllreduceAndAnAlltoallGoToTheOtherHostOverTheLink(String plugin0, String plugin1) throws Exception {
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
                rank.process().destroyForcibly().waitFor(RunningCommand.LIMIT_SECONDS, TimeUnit.SECONDS);
            }
        }
        for (Map.Entry<String, String> each : Map.of("0", out0, "1", out1).entrySet()) {
            String rank = "rank " + each.getKey() + ": ";
            assertThat(each.getValue()).contains(rank + (each.getKey().equals("0") ? plugin0 : plugin1) + " in a team of 2")
                    .contains(rank + "allreduce of " + COUNT + " doubles matches")
                    .contains(rank + "alltoall of " + COUNT + " bytes per rank matches");
        }
        long atLeast = (long) COUNT * Double.BYTES / 65536;
        assertThat(hosts.packetsSent(0) - sentBefore[0]).as("packets host 0 sent on the link").isGreaterThanOrEqualTo(atLeast);
        assertThat(hosts.packetsSent(1) - sentBefore[1]).as("packets host 1 sent on the link").isGreaterThanOrEqualTo(atLeast);
    }

    private static Path socket(int n) {
        return dir.resolve("h" + n + ".sock");
    }

    private static List<String> rank(int rank, String plugin, String rendezvous) {
        return TwoHosts.java(dir, rank, CollRankMain.class.getName(), "unix:" + socket(rank), key.toString(), Integer.toString(rank), "2",
                rendezvous, plugin, Integer.toString(COUNT));
    }
}
