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
    static final String USAGE = "usage: LoadBench [--hosts N (1.." + MAX_HOSTS
            + ", default 8)] [--workers-per-host N (1.." + MAX_WORKERS_PER_HOST
            + ", default 4)] [--commands N (per worker, 1.." + MAX_COMMANDS
            + ", default 100000)] [--in-flight N (per worker, 1.." + MAX_IN_FLIGHT
            + ", default 16)] [--json FILE] [--worker-user USER]";

    /** Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and the reason. */
    static LoadOptions parse(List<String> args) {
        BenchCommand.Parsed line = command().parse(args);
        int hosts = line.get("--hosts", DEFAULT_HOSTS);
        int workersPerHost = line.get("--workers-per-host", DEFAULT_WORKERS_PER_HOST);
        if (hosts * workersPerHost > MAX_WORKERS) {
            throw new IllegalArgumentException("--hosts " + hosts + " x --workers-per-host " + workersPerHost + " is "
                    + hosts * workersPerHost + " workers, over the limit of " + MAX_WORKERS + " (each is a JVM)");
        }
        return new LoadOptions(
                hosts,
                workersPerHost,
                line.get("--commands", DEFAULT_COMMANDS),
                line.get("--in-flight", DEFAULT_IN_FLIGHT),
                line.get("--json", null),
                line.get("--worker-user", null));
    }

    static BenchCommand command() {
        return new BenchCommand("LoadBench", USAGE)
                .count("--hosts", 1, MAX_HOSTS)
                .count("--workers-per-host", 1, MAX_WORKERS_PER_HOST)
                .count("--commands", 1, MAX_COMMANDS)
                .count("--in-flight", 1, MAX_IN_FLIGHT)
                .path("--json", "FILE")
                .text("--worker-user", "USER");
    }

    int workers() {
        return hosts * workersPerHost;
    }

    /** Whether worker {@code worker} of host {@code host} runs the C graph plugin (else the Java one). */
    static boolean runsNativePlugin(int host, int worker) {
        return (host + worker) % 2 == 0;
    }
}
