// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.daemon.DaemonSecurity;
import dev.urom.service.daemon.WorkerInfo;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A daemon in this process on a Unix socket in a temporary directory, for the commands that need a
 * service of their own ({@code demo}, {@code ping-pong}). Closing it lets stopped workers end, stops
 * the daemon and deletes the directory: no process or socket is left behind. Not thread-safe.
 */
final class PrivateDaemon implements AutoCloseable {
    private static final Duration WORKER_EXIT_LIMIT = Duration.ofSeconds(10);

    private final Path dir;
    private final Daemon daemon;

    private PrivateDaemon(Path dir, Daemon daemon) {
        this.dir = dir;
        this.daemon = daemon;
    }

    /**
     * Starts a daemon serving the plugins of {@code pluginPath}, its workers run as {@code workerUser}
     * (null: the daemon's default); its log goes to the temporary directory, and this process's own
     * logging with it. Hosts connect to it without a key, as this process's user.
     *
     * @throws CliFailure when the directory or the daemon cannot be set up
     */
    static PrivateDaemon start(String pluginPath, String workerUser) {
        Path dir;
        try {
            dir = Files.createTempDirectory("urom-private-");
        } catch (IOException e) {
            throw new CliFailure("cannot create a temporary directory for the private daemon: " + e.getMessage());
        }
        try {
            DaemonConfig config = Daemon.configureLogging(DaemonConfig.builder()
                    .listen(ServiceAddress.unix(dir.resolve("urom.sock")))
                    .logDir(dir.resolve("log"))
                    .pluginPath(pluginPath)
                    .security(DaemonSecurity.builder().workerUser(workerUser).build())
                    .build());
            return new PrivateDaemon(dir, Daemon.start(config));
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            throw new CliFailure("private daemon: " + e.getMessage());
        }
    }

    String address() {
        return daemon.address().toString();
    }

    Path logDir() {
        return daemon.config().logDir();
    }

    @Override
    public void close() {
        try {
            awaitWorkersGone();
            daemon.close();
        } finally {
            deleteTree(dir);
        }
    }

    /** Stopped workers end on their own; give them the time to, before the daemon closes. */
    private void awaitWorkersGone() {
        for (WorkerInfo worker : daemon.workers()) {
            ProcessHandle.of(worker.pid()).ifPresent(process -> {
                try {
                    process.onExit().get(WORKER_EXIT_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException | TimeoutException e) {
                    // the daemon's close ends it
                }
            });
        }
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }
}
