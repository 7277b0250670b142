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
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The cross-host tests' set-up: {@link TwoHosts} in a folder of the test's own, one key that both
 * hosts' daemons hold and both ranks prove, a daemon on each host, and a job of two ranks that meet
 * through rank 0's rendezvous. Owns the folder, the hosts and the daemons: {@link #close} stops the
 * daemons, ends the hosts and deletes the folder. Not thread-safe: one test class drives it.
 */
final class KeyedTwoHosts implements AutoCloseable {
    private static final Pattern RENDEZVOUS = Pattern.compile("RENDEZVOUS (\\S+)");

    final Path dir;
    final Path keys;
    final Path key;
    final TwoHosts hosts;
    private final List<RunningCommand> daemons = new ArrayList<>();

    private KeyedTwoHosts(Path dir, Path keys, Path key, TwoHosts hosts) {
        this.dir = dir;
        this.keys = keys;
        this.key = key;
        this.hosts = hosts;
    }

    /** The hosts, with a key made by {@code urom keygen} in {@code dir}/keys (mode 0700). */
    static KeyedTwoHosts create(Path dir) throws Exception {
        Path keys = Files.createDirectories(dir.resolve("keys"));
        Files.setAttribute(keys, "unix:mode", 0700);
        Path key = keys.resolve("ranks.key");
        assertThat(CliRunner.run(null, "keygen", key.toString()).status()).isZero();
        return new KeyedTwoHosts(dir, keys, key, TwoHosts.create(dir));
    }

    /** Starts {@code command} on host {@code n} with {@code plugins} as its plugin path and waits until it listens. */
    void startDaemon(int n, List<String> command, Path plugins) throws Exception {
        RunningCommand daemon = RunningCommand.start(hosts.on(n, command), List.of("UROM_PLUGIN_PATH=" + plugins));
        daemons.add(daemon);
        daemon.awaitLine("listening on");
    }

    /**
     * Runs rank 0 ({@code rank.apply(0, its own rendezvous address)}) on host 0, then rank 1 on host
     * 1 with the rendezvous rank 0 printed; returns both outputs once both have ended.
     */
    String[] runRanks(BiFunction<Integer, String, List<String>> rank) throws Exception {
        List<RunningCommand> ranks = new ArrayList<>();
        try {
            ranks.add(RunningCommand.start(hosts.on(0, rank.apply(0, TwoHosts.address(0) + ":0")), List.of()));
            Matcher rendezvous = RENDEZVOUS.matcher(ranks.get(0).awaitLine("RENDEZVOUS "));
            assertThat(rendezvous.find()).isTrue();
            ranks.add(RunningCommand.start(hosts.on(1, rank.apply(1, rendezvous.group(1))), List.of()));
            return new String[] {ranks.get(0).awaitExit(), ranks.get(1).awaitExit()};
        } finally {
            for (RunningCommand running : ranks) {
                running.process().destroyForcibly().waitFor(RunningCommand.LIMIT_SECONDS, TimeUnit.SECONDS);
            }
        }
    }

    @Override
    public void close() throws Exception {
        for (RunningCommand daemon : daemons) {
            daemon.stop();
        }
        hosts.close();
        try (Stream<Path> tree = Files.walk(dir)) {
            for (Path path : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
