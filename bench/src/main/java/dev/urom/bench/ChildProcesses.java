// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The child processes a benchmark run started; {@link #close()} ends every one still alive (and its
 * descendants): politely first, then by force after a grace period. A JVM shutdown hook does the
 * same when the run is interrupted (Ctrl-C).
 *
 * <p>Thread-safe. {@link #start} throws {@link IOException} when the program cannot be started.
 */
final class ChildProcesses implements AutoCloseable {
    private static final long GRACE_MS = 2000;

    private final List<Process> started = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::endAll, "urom-bench-children");

    ChildProcesses() {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts {@code builder}'s command and remembers the process. */
    synchronized Process start(ProcessBuilder builder) throws IOException {
        Process process = builder.start();
        started.add(process);
        return process;
    }

    @Override
    public void close() {
        endAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: nothing left to remove
        }
    }

    private synchronized void endAll() {
        for (Process process : started) {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRACE_MS);
        for (Process process : started) {
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                if (!process.waitFor(left, TimeUnit.NANOSECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly().waitFor(GRACE_MS, TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        started.clear();
    }
}
