// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The daemon's record of its workers' counts: the latest snapshot of each live worker, and the
 * sum of the final snapshots of the workers that have ended, so that every total only grows.
 * Workers are named by a key (their pid).
 *
 * <p>Thread-safe.
 */
public final class WorkerStatsBook {
    private final Map<Long, WorkerStatsSnapshot> live = new HashMap<>();
    private WorkerStatsSnapshot ended = WorkerStatsSnapshot.EMPTY;

    /** Records {@code snapshot} for worker {@code key} unless a later one (higher sequence) is already there. */
    public synchronized void update(long key, WorkerStatsSnapshot snapshot) {
        live.merge(key, snapshot, (old, now) -> now.sequence() > old.sequence() ? now : old);
    }

    /** Worker {@code key} has ended: its latest counts move to the ended workers' sum. */
    public synchronized void retire(long key) {
        WorkerStatsSnapshot last = live.remove(key);
        if (last != null) {
            ended = WorkerStatsSnapshot.sum(List.of(ended, last.ended()));
        }
    }

    /** The latest counts of live worker {@code key}; empty before its first or after it has ended. */
    public synchronized Optional<WorkerStatsSnapshot> latest(long key) {
        return Optional.ofNullable(live.get(key));
    }

    /** Every worker's counts added: the ended ones and the latest of each live one. */
    public synchronized WorkerStatsSnapshot total() {
        List<WorkerStatsSnapshot> all = new ArrayList<>(live.values());
        all.add(ended);
        return WorkerStatsSnapshot.sum(all);
    }
}
