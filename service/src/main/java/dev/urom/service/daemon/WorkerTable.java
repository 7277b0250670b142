// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;
import dev.urom.framework.discovery.PluginIdRegistry;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Protocol;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The daemon's workers by id, and the processes it has spawned and not yet reaped; thread-safe
 * (this object's lock, taken before an entry's own). Nothing here blocks.
 *
 * <ul>
 *   <li>A worker id is taken from the moment its start begins ({@link #claim}) until the worker
 *       leaves ({@link #leave}): when its start fails or its process is reaped.
 *   <li>It caps the workers in all and per principal.
 *   <li>Once closed it takes no worker, and a process recorded after that is killed at once.
 * </ul>
 */
final class WorkerTable {
    /** What a claim of a worker id found. */
    sealed interface Claim {
        /** The id was free: {@code entry} now holds it, and its start is the caller's. */
        record Created(WorkerEntry entry) implements Claim {}

        /** Another start, or a worker, holds the id: its phase, and its stats link when it is RUNNING. */
        record Taken(WorkerEntry entry, WorkerEntry.Phase phase, WorkerStatsLink stats) implements Claim {}

        record Refused(Refusal refusal) implements Claim {}
    }

    /** Makes the entry of a new worker. */
    interface NewEntry {
        WorkerEntry make(long id, long serial);
    }

    private final int maxWorkers;
    private final int maxWorkersPerPrincipal;
    private final Map<Long, WorkerEntry> workers = new HashMap<>();
    private final Set<Process> live = new HashSet<>();
    private long launches;
    private boolean closed;

    WorkerTable(int maxWorkers, int maxWorkersPerPrincipal) {
        this.maxWorkers = maxWorkers;
        this.maxWorkersPerPrincipal = maxWorkersPerPrincipal;
    }

    /**
     * Takes worker id {@code requested} ({@link Protocol#ANY_WORKER}: the lowest free one) for
     * {@code principal}, or says who holds it. A worker held by another principal, a full table and
     * a closed one are refusals.
     */
    synchronized Claim claim(long requested, Principal principal, NewEntry newEntry) {
        if (closed) {
            return new Claim.Refused(new Refusal(UromStatus.SHUTDOWN, "the daemon is shutting down"));
        }
        long id = requested == Protocol.ANY_WORKER ? lowestFreeId() : requested;
        WorkerEntry existing = workers.get(id);
        if (existing != null) {
            if (!existing.owner.equals(principal)) {
                return new Claim.Refused(new Refusal(
                        UromStatus.NOT_PERMITTED,
                        "worker " + Long.toUnsignedString(id) + " belongs to another principal"));
            }
            return new Claim.Taken(existing, existing.phase(), existing.stats());
        }
        if (workers.size() >= maxWorkers) {
            return new Claim.Refused(new Refusal(
                    UromStatus.FULL,
                    "the daemon already runs its maximum of " + maxWorkers + " workers (--max-workers)"));
        }
        long owned =
                workers.values().stream().filter(w -> w.owner.equals(principal)).count();
        if (owned >= maxWorkersPerPrincipal) {
            return new Claim.Refused(new Refusal(
                    UromStatus.FULL,
                    principal + " already has its maximum of " + maxWorkersPerPrincipal
                            + " workers (--max-workers-per-principal)"));
        }
        WorkerEntry created = newEntry.make(id, ++launches);
        workers.put(id, created);
        return new Claim.Created(created);
    }

    /** Whether {@code entry} still holds its id and the table is open. */
    synchronized boolean holds(WorkerEntry entry) {
        return !closed && workers.get(entry.id) == entry;
    }

    /** Records a worker's process; kills it at once when the table is closed. */
    synchronized void spawned(
            WorkerEntry entry,
            Process process,
            PluginIdRegistry.Lease lease,
            WorkerCommandLine.Launch launch,
            WorkerLogPump logPump,
            Path socketFile) {
        entry.spawned(process, lease, launch, logPump, socketFile);
        live.add(process);
        if (closed) {
            process.destroyForcibly();
        }
    }

    /** Makes {@code entry} RUNNING when it still holds its id; false when it does not (it ended, or the table closed). */
    synchronized boolean running(WorkerEntry entry, String address, Supplier<WorkerStatsLink> stats) {
        if (!holds(entry)) {
            return false;
        }
        entry.running(address, stats.get());
        return true;
    }

    /** Takes {@code entry} out of the table (ENDING) unless it is already out; its process, if given, is reaped. */
    synchronized void leave(WorkerEntry entry, Process reaped) {
        workers.remove(entry.id, entry);
        if (reaped != null) {
            live.remove(reaped);
        }
        WorkerEntry.Phase phase = entry.phase();
        if (phase == WorkerEntry.Phase.STARTING || phase == WorkerEntry.Phase.RUNNING) {
            entry.ending();
        }
    }

    /** The entries now in the table. */
    synchronized List<WorkerEntry> entries() {
        return new ArrayList<>(workers.values());
    }

    /** The processes spawned and not yet reaped. */
    synchronized List<Process> live() {
        return new ArrayList<>(live);
    }

    /** Takes no worker from now on; false when it was already closed. */
    synchronized boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    private long lowestFreeId() {
        long id = 0;
        while (workers.containsKey(id)) {
            id++;
        }
        return id;
    }
}
