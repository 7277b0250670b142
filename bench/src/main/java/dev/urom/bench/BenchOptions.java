// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * The command line of {@link EndToEndBench}: {@code [--json FILE] [--rounds N] [--starts N] [--worker-user USER]
 * [--c-host-wait event|spin]}.
 *
 * @param json where to write the JSON document, or null for none
 * @param rounds round trips measured per latency figure (after as many to warm up); each
 *     throughput figure measures {@value #THROUGHPUT_FACTOR} times as many commands
 * @param starts worker starts measured (after one to warm up)
 * @param workerUser who the private daemon's workers run as when the bench runs as root (null: the
 *     daemon's default)
 * @param cHostWait how the C host waits for its progress engine: {@code event} (the default) sleeps on
 *     its notification handle, as the Java host's reader thread blocks; {@code spin} polls, as DOCA's
 *     samples do, which pays off only with a core to spare
 */
record BenchOptions(Path json, int rounds, int starts, String workerUser, CHostBaseline.Wait cHostWait) {
    static final int DEFAULT_ROUNDS = 20_000;
    static final int DEFAULT_STARTS = 5;
    static final int THROUGHPUT_FACTOR = 5;
    static final int MAX_ROUNDS = 10_000_000;
    static final int MAX_STARTS = 1000;
    static final String USAGE =
            "usage: EndToEndBench [--json FILE] [--rounds N (default " + DEFAULT_ROUNDS + ")] [--starts N (default "
                    + DEFAULT_STARTS + ")] [--worker-user USER] [--c-host-wait event|spin (default event)]";

    /** The options of a run with these settings and the C host waiting on events. */
    BenchOptions(Path json, int rounds, int starts, String workerUser) {
        this(json, rounds, starts, workerUser, CHostBaseline.Wait.EVENT);
    }

    /** Commands measured per throughput figure. */
    int throughputRounds() {
        return rounds * THROUGHPUT_FACTOR;
    }

    /** Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and the reason. */
    static BenchOptions parse(List<String> args) {
        BenchCommand.Parsed line = command().parse(args);
        return new BenchOptions(
                line.get("--json", null),
                line.get("--rounds", DEFAULT_ROUNDS),
                line.get("--starts", DEFAULT_STARTS),
                line.get("--worker-user", null),
                line.get("--c-host-wait", CHostBaseline.Wait.EVENT));
    }

    static BenchCommand command() {
        return new BenchCommand("EndToEndBench", USAGE)
                .path("--json", "FILE")
                .count("--rounds", 100, MAX_ROUNDS)
                .count("--starts", 1, MAX_STARTS)
                .text("--worker-user", "USER")
                .option("--c-host-wait", "event|spin", BenchOptions::wait);
    }

    private static CHostBaseline.Wait wait(String value) {
        try {
            return CHostBaseline.Wait.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--c-host-wait " + e.getMessage());
        }
    }
}
