// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a {@code urom daemon} process prints on its stdout (stderr merged into it, as the tests
 * start it), read line by line on a thread of its own from the moment it is followed to the end,
 * so that the daemon never blocks on a full pipe; the line {@code urom daemon: listening on ADDR
 * ...} tells that it serves.
 *
 * <p>Thread-safe. Reading ends with the daemon's stdout; nothing here throws for the daemon's end.
 */
public final class DaemonOutput {
    private static final String LISTENING = "listening on";

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final CompletableFuture<String> listening = new CompletableFuture<>();

    private DaemonOutput() {}

    /** Starts reading {@code daemon}'s stdout. */
    public static DaemonOutput follow(Process daemon) {
        DaemonOutput output = new DaemonOutput();
        Thread reader = new Thread(() -> output.read(daemon), "daemon-output-" + daemon.pid());
        reader.setDaemon(true);
        reader.start();
        return output;
    }

    private void read(Process daemon) {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                lines.add(line);
                if (line.contains(LISTENING)) {
                    listening.complete(line);
                }
            }
        } catch (IOException e) {
            lines.add("(output ended: " + e.getMessage() + ")");
        } finally {
            listening.complete(null);
        }
    }

    /**
     * The daemon's {@code listening on} line, once it has printed it, or null when its output ended
     * without one or {@code limit} passed first.
     */
    public String awaitListening(Duration limit) throws InterruptedException {
        try {
            return listening.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** The lines read so far. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public String toString() {
        return lines().toString();
    }
}
