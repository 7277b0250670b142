// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.logging.WorkerLogRetention;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The private daemon of {@link SoakBench}, in a process of its own so that its memory, descriptors
 * and threads can be sampled apart from the host's: {@code SoakDaemonMain RUN_DIR PLUGIN_DIR
 * WORKER_USER|- WORKER_LOG_COUNT [--max-workers N]}. Its socket and logs are those of {@link
 * ServiceBench#privateDaemon} in {@code RUN_DIR}; it prints {@code READY <address>} once it serves,
 * and ends at EOF on its stdin. Exit status 1 with one line on stderr when it cannot start, 2 on a
 * usage error. {@link LoadBench} sets the daemon's {@code --max-workers}.
 */
public final class SoakDaemonMain {
    static final String USAGE =
            "usage: SoakDaemonMain RUN_DIR PLUGIN_DIR WORKER_USER|- WORKER_LOG_COUNT [--max-workers N]";

    private SoakDaemonMain() {}

    public static void main(String[] args) throws IOException {
        BenchCommand.Parsed line;
        try {
            line = new BenchCommand("SoakDaemonMain", USAGE)
                    .parameter("RUN_DIR", Path::of)
                    .parameter("PLUGIN_DIR", Path::of)
                    .parameter("WORKER_USER|-", user -> user.equals("-") ? null : user)
                    .parameter("WORKER_LOG_COUNT", value -> BenchCommand.count("WORKER_LOG_COUNT", value, 0, 100_000))
                    .count("--max-workers", 1, 1024)
                    .parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("SoakDaemonMain: " + e.getMessage());
            System.exit(2);
            return;
        }
        DaemonConfig config;
        Daemon daemon;
        try {
            DaemonConfig.Builder options =
                    ServiceBench.privateDaemon(line.parameter(0), line.parameter(1), line.parameter(2)).toBuilder()
                            .workerLogRetention(new WorkerLogRetention(line.<Integer>parameter(3), Duration.ofDays(7)));
            if (line.has("--max-workers")) {
                options.maxWorkers(line.<Integer>get("--max-workers", 0));
            }
            config = options.build();
            daemon = Daemon.start(config);
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("SoakDaemonMain: " + e.getMessage());
            System.exit(1);
            return;
        }
        System.out.println("READY " + daemon.address());
        System.out.flush();
        try (InputStream in = System.in) {
            while (in.read() >= 0) {
                // only EOF matters
            }
        }
        daemon.close();
    }
}
