// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Serves WORKER_START requests beside their connection's thread, so that the starts a host asks for
 * on one connection without waiting for each answer (answers carry their request's id) start their
 * workers side by side, as those of several connections do: at most {@code maxAtOnce} in the whole
 * daemon; past that, {@link #trySubmit} declines and the connection serves the request itself,
 * which holds that connection's further requests back until it is done.
 *
 * <p>Thread-safe. {@link #close} interrupts the starts still running and waits for them briefly.
 */
final class WorkerStartLane implements AutoCloseable {
    private final ExecutorService threads = Executors.newCachedThreadPool(DaemonThreads.numbered("urom-worker-start-"));
    private final Semaphore permits;

    /** @param maxAtOnce the most starts served at once (the daemon's most workers) */
    WorkerStartLane(int maxAtOnce) {
        permits = new Semaphore(maxAtOnce);
    }

    /** Runs {@code start} on a thread of its own when fewer than the most are running; false, and nothing run, otherwise. */
    boolean trySubmit(Runnable start) {
        if (!permits.tryAcquire()) {
            return false;
        }
        try {
            threads.execute(() -> {
                try {
                    start.run();
                } finally {
                    permits.release();
                }
            });
            return true;
        } catch (RejectedExecutionException closed) {
            permits.release();
            return false;
        }
    }

    @Override
    public void close() {
        threads.shutdownNow();
        try {
            threads.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
