// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.service.metrics.WorkerStats;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import java.nio.channels.Selector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Hands copies of the worker's counts, which only the data-plane thread touches, to other threads:
 * {@link #request} is thread-safe; the rest is called by the data-plane thread.
 *
 * <ul>
 *   <li>A request wakes the loop; the loop takes it at the start of a turn, before its {@code
 *       select} ({@link #takeRequest}), and answers it at the turn's end ({@link #answerTaken}). By
 *       then the loop has read what the hosts had sent before the request (a STOP, a closed
 *       connection) and acted on it.
 *   <li>A request made while another is pending (not yet taken) shares its answer.
 *   <li>Once {@link #close}d, pending and later requests complete exceptionally.
 * </ul>
 */
final class StatsHandOff {
    private final WorkerStats stats;
    private final Selector selector;
    /** A request not yet taken by the loop. */
    private final AtomicReference<CompletableFuture<WorkerStatsSnapshot>> pending = new AtomicReference<>();
    /** The request the loop took at the start of this turn, answered at its end (only the loop's thread touches it). */
    private CompletableFuture<WorkerStatsSnapshot> taken;

    private volatile boolean closed;

    /** @param selector the loop's selector, woken by a request */
    StatsHandOff(WorkerStats stats, Selector selector) {
        this.stats = stats;
        this.selector = selector;
    }

    /**
     * Asks the loop for a copy of its counts, taken at the end of the first turn whose {@code select}
     * begins after this call.
     */
    CompletableFuture<WorkerStatsSnapshot> request() {
        CompletableFuture<WorkerStatsSnapshot> request = new CompletableFuture<>();
        CompletableFuture<WorkerStatsSnapshot> earlier = pending.compareAndExchange(null, request);
        if (earlier != null) {
            return earlier;
        }
        if (closed) {
            pending.compareAndSet(request, null);
            request.completeExceptionally(closedFailure());
        } else {
            selector.wakeup();
        }
        return request;
    }

    /** Takes the pending request, if any, for this turn; true when there was one. */
    boolean takeRequest() {
        taken = pending.getAndSet(null);
        return taken != null;
    }

    /** Answers the request this turn took, if any, with the counts now. */
    void answerTaken() {
        if (taken != null) {
            taken.complete(stats.snapshot());
            taken = null;
        }
    }

    /** Fails the request taken and the one pending, and every later one. */
    void close() {
        closed = true;
        CompletableFuture<WorkerStatsSnapshot> waiting = pending.getAndSet(null);
        if (waiting != null) {
            waiting.completeExceptionally(closedFailure());
        }
        if (taken != null) {
            taken.completeExceptionally(closedFailure());
            taken = null;
        }
    }

    private static IllegalStateException closedFailure() {
        return new IllegalStateException("the data plane has closed");
    }
}
