// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * The command line of {@link LoadBench}: {@code [--hosts N] [--workers-per-host N] [--commands N]
 * [--in-flight N] [--json FILE] [--worker-user USER]}.
 *
 * @param hosts host processes, each with a connection of its own to the daemon (default 8)
 * @param workersPerHost workers each host starts (default 4); worker {@code w} of host {@code h}
 *     runs the C graph plugin when {@code h + w} is even, the Java one otherwise
 * @param commands LOOPBACKs each worker is sent (default 100,000)
 * @param inFlight LOOPBACKs outstanding at a time on each worker (default 16)
 * @param json where the results go as JSON, or null
 * @param workerUser who the daemon's workers run as when the run is root's (null: the daemon's default)
 */
record LoadOptions(int hosts, int workersPerHost, int commands, int inFlight, Path json, String workerUser) {
    static final int DEFAULT_HOSTS = 8;
    static final int DEFAULT_WORKERS_PER_HOST = 4;
    static final int DEFAULT_COMMANDS = 100_000;
    static final int DEFAULT_IN_FLIGHT = 16;
    static final int MAX_HOSTS = 64;
    static final int MAX_WORKERS_PER_HOST = 64;
    /** Each worker is a JVM of its own: more than this many at once would not fit a machine the run is meant for. */
    static final int MAX_WORKERS = 256;
    static final int MAX_COMMANDS = 10_000_000;
    static final int MAX_IN_FLIGHT = 1024;
    static final String USAGE = "usage: LoadBench [--hosts N (1.." + MAX_HOSTS + ", default 8)] [--workers-per-host N (1.." + MAX_WORKERS_PER_HOST
            + ", default 4)] [--commands N (per worker, 1.." + MAX_COMMANDS + ", default 100000)] [--in-flight N (per worker, 1.." + MAX_IN_FLIGHT
            + ", default 16)] [--json FILE] [--worker-user USER]";

    /** Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and the reason. */
    static LoadOptions parse(List<String> args) {
        int[] counts = {DEFAULT_HOSTS, DEFAULT_WORKERS_PER_HOST, DEFAULT_COMMANDS, DEFAULT_IN_FLIGHT};
        Path[] json = {null};
        String[] workerUser = {null};
        OptionPairs.parse(args, List.of("--hosts", "--workers-per-host", "--commands", "--in-flight", "--json", "--worker-user"), USAGE,
                (option, value) -> {
                    switch (option) {
                        case "--hosts" -> counts[0] = OptionPairs.count(option, value, 1, MAX_HOSTS);
                        case "--workers-per-host" -> counts[1] = OptionPairs.count(option, value, 1, MAX_WORKERS_PER_HOST);
                        case "--commands" -> counts[2] = OptionPairs.count(option, value, 1, MAX_COMMANDS);
                        case "--in-flight" -> counts[3] = OptionPairs.count(option, value, 1, MAX_IN_FLIGHT);
                        case "--json" -> json[0] = Path.of(value);
                        default -> workerUser[0] = value;
                    }
                });
        if (counts[0] * counts[1] > MAX_WORKERS) {
            throw new IllegalArgumentException("--hosts " + counts[0] + " x --workers-per-host " + counts[1] + " is " + counts[0] * counts[1]
                    + " workers, over the limit of " + MAX_WORKERS + " (each is a JVM)");
        }
        return new LoadOptions(counts[0], counts[1], counts[2], counts[3], json[0], workerUser[0]);
    }

    int workers() {
        return hosts * workersPerHost;
    }

    /** Whether worker {@code worker} of host {@code host} runs the C graph plugin (else the Java one). */
    static boolean runsNativePlugin(int host, int worker) {
        return (host + worker) % 2 == 0;
    }
}
