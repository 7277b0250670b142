// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * When the ended workers' logs are pruned, and which logs are still being written; thread-safe.
 * Passes of the {@link WorkerLogPruner} run on one thread of their own:
 *
 * <ul>
 *   <li>a log is being written from {@link #opened} until {@link #closed} (a pid may be reused
 *       before its last log closes, so they are counted per pid), and is never pruned meanwhile;
 *   <li>each closed log asks for a pass; a pass asked for and not yet begun covers later requests;
 *   <li>a pass that stops at its limit asks for another.
 * </ul>
 */
final class WorkerLogPruning implements AutoCloseable {
    /** Under the supervisor's name, as the daemon's log has always shown these lines. */
    private static final Logger LOG = LogManager.getLogger(WorkerSupervisor.class);

    private final WorkerLogPruner pruner;
    private final Path logDir;
    private final ExecutorService thread =
            Executors.newSingleThreadExecutor(DaemonThreads.named("urom-worker-log-pruner"));
    private final AtomicBoolean pending = new AtomicBoolean();
    /** How many logs of each pid are being written. */
    private final Map<Long, Integer> writing = new HashMap<>();

    WorkerLogPruning(WorkerLogPruner pruner, Path logDir) {
        this.pruner = pruner;
        this.logDir = logDir;
    }

    /** The log of worker process {@code pid} is being written. */
    synchronized void opened(long pid) {
        writing.merge(pid, 1, Integer::sum);
    }

    /** The log of worker process {@code pid} is closed: it may be pruned, and a pass is due. */
    void closed(long pid) {
        synchronized (this) {
            writing.computeIfPresent(pid, (p, count) -> count == 1 ? null : count - 1);
        }
        prune();
    }

    /** Has the pruning thread prune the ended workers' logs. */
    void prune() {
        if (!pending.compareAndSet(false, true)) {
            return;
        }
        try {
            thread.execute(() -> {
                pending.set(false);
                Set<Long> running;
                synchronized (this) {
                    running = Set.copyOf(writing.keySet());
                }
                WorkerLogPruner.Pass pass = pruner.prune(running);
                if (pass.deleted() > 0) {
                    LOG.debug("pruned {} files of ended workers' logs in {}", pass.deleted(), logDir);
                }
                if (pass.moreDue()) {
                    prune();
                }
            });
        } catch (RejectedExecutionException e) {
            pending.set(false);
        }
    }

    /** Runs no further pass; one under way finishes. */
    @Override
    public void close() {
        thread.shutdown();
    }
}
