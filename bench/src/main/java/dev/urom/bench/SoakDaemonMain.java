// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.logging.WorkerLogRetention;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The private daemon of {@link SoakBench}, in a process of its own so that its memory, descriptors
 * and threads can be sampled apart from the host's: {@code SoakDaemonMain RUN_DIR PLUGIN_DIR
 * WORKER_USER|- WORKER_LOG_COUNT}. Its socket and logs are those of {@link
 * ServiceBench#privateDaemon} in {@code RUN_DIR}; it prints {@code READY <address>} once it serves,
 * and ends at EOF on its stdin. Exit status 1 with one line on stderr when it cannot start.
 *
 * <p>{@link LoadBench} adds {@code MAX_WORKERS}, the daemon's {@code --max-workers}.
 */
public final class SoakDaemonMain {
    private SoakDaemonMain() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 4 && args.length != 5) {
            System.err.println("usage: SoakDaemonMain RUN_DIR PLUGIN_DIR WORKER_USER|- WORKER_LOG_COUNT [MAX_WORKERS]");
            System.exit(2);
        }
        DaemonConfig config;
        Daemon daemon;
        try {
            config = ServiceBench.privateDaemon(Path.of(args[0]), Path.of(args[1]), args[2].equals("-") ? null : args[2])
                    .withWorkerLogRetention(new WorkerLogRetention(Integer.parseInt(args[3]), Duration.ofDays(7)));
            if (args.length == 5) {
                config = config.withMaxWorkers(Integer.parseInt(args[4]));
            }
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
