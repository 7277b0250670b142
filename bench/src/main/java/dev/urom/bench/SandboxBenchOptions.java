// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * The command line of {@link SandboxBench}: {@code [--json FILE] [--rounds N] [--messages N] [--regions N] [--bounces N]
 * [--worker-user USER]}.
 *
 * @param json where to write the JSON document, or null for none
 * @param rounds ping-pong round trips measured per plugin (after as many to warm up)
 * @param messages inline messages measured per plugin for the inline bandwidth (after a tenth as many)
 * @param regions 1 MiB region messages measured per plugin for the MEM_MAP bandwidth (after a tenth as many);
 *     {@code ucx_perftest -t tag_bw} sends ten times as many
 * @param bounces round trips of one BOUNCE per plugin (after a tenth as many), and the iterations of
 *     {@code ucx_perftest -t tag_lat}; at most {@value #MAX_BOUNCES}, the most one BOUNCE does
 * @param workerUser who the private daemon's workers run as when the bench runs as root (null: the
 *     daemon's default)
 */
record SandboxBenchOptions(Path json, int rounds, int messages, int regions, int bounces, String workerUser) {
    static final int DEFAULT_ROUNDS = 5_000;
    static final int DEFAULT_MESSAGES = 20_000;
    static final int DEFAULT_REGIONS = 500;
    static final int DEFAULT_BOUNCES = 100_000;
    static final int MAX_COUNT = 10_000_000;
    static final int MAX_BOUNCES = 1_000_000;
    static final String USAGE =
            "usage: SandboxBench [--json FILE] [--rounds N (default " + DEFAULT_ROUNDS + ")] [--messages N (default "
                    + DEFAULT_MESSAGES + ")] [--regions N (default " + DEFAULT_REGIONS + ")] [--bounces N (default "
                    + DEFAULT_BOUNCES
                    + ", at most " + MAX_BOUNCES + ")] [--worker-user USER]";

    /** Unmeasured messages sent before {@code measured} ones. */
    static int warmUp(int measured) {
        return Math.max(1, measured / 10);
    }

    /** Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and the reason. */
    static SandboxBenchOptions parse(List<String> args) {
        BenchCommand.Parsed line = command().parse(args);
        return new SandboxBenchOptions(
                line.get("--json", null),
                line.get("--rounds", DEFAULT_ROUNDS),
                line.get("--messages", DEFAULT_MESSAGES),
                line.get("--regions", DEFAULT_REGIONS),
                line.get("--bounces", DEFAULT_BOUNCES),
                line.get("--worker-user", null));
    }

    static BenchCommand command() {
        return new BenchCommand("SandboxBench", USAGE)
                .path("--json", "FILE")
                .count("--rounds", 1, MAX_COUNT)
                .count("--messages", 1, MAX_COUNT)
                .count("--regions", 1, MAX_COUNT)
                .count("--bounces", 1, MAX_BOUNCES)
                .text("--worker-user", "USER");
    }
}
