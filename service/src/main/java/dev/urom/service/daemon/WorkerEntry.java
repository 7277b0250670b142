// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;
import dev.urom.framework.discovery.PluginIdRegistry;
import dev.urom.service.access.WorkerAccess;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One worker in the daemon's table; thread-safe (its own lock), and its state changes only through
 * the transition methods below, each of which throws {@link IllegalStateException} when the worker
 * is not in a state that allows it:
 *
 * <pre>
 * STARTING ──running()──► RUNNING
 *    │                       │
 *    └──────ending()─────────┴──► ENDING ──dead()──► DEAD
 * </pre>
 *
 * <ul>
 *   <li>STARTING: in the table from its start's first step until its READY line; {@link #spawned}
 *       records its process (once) meanwhile.
 *   <li>RUNNING: it has reported READY; hosts may join it while it is in the table.
 *   <li>ENDING: out of the table (its start failed, or its process has exited and is being
 *       reaped): no start finds it any more; what it holds is being released.
 *   <li>DEAD: its lease and files are released (or it never had a process).
 * </ul>
 */
final class WorkerEntry {
    /** Where a worker is in its life. */
    enum Phase {
        STARTING,
        RUNNING,
        ENDING,
        DEAD
    }

    final long id;
    /** Which launch this is: its files are named after it, so a late reap never takes a later worker's of the same id. */
    final long serial;

    final long gid;
    final long mask;
    final WorkerAccess access;
    final Principal owner;
    /** The names of its plugins, ascending by id. */
    final List<String> pluginNames;
    /** When the start began (System.nanoTime): uptimes count from it. */
    final long createdNanos = System.nanoTime();
    /** Completes when the start ends, whichever way, or the process has been reaped. */
    final CompletableFuture<Void> settled = new CompletableFuture<>();
    /** Completes when the reaped process is out of the table. */
    final CompletableFuture<Void> gone = new CompletableFuture<>();

    private Phase phase = Phase.STARTING;
    private Process process;
    private PluginIdRegistry.Lease lease;
    private WorkerCommandLine.Launch launch;
    private WorkerLogPump logPump;
    private Path socketFile;
    private String address = "";
    private WorkerStatsLink stats;

    WorkerEntry(long id, long serial, long gid, long mask, WorkerAccess access, List<String> pluginNames) {
        this.id = id;
        this.serial = serial;
        this.gid = gid;
        this.mask = mask;
        this.access = access;
        this.owner = access.owner();
        this.pluginNames = List.copyOf(pluginNames);
    }

    /** {@code worker-<id>-<serial>}: the name of its socket and directory. */
    String name() {
        return "worker-" + Long.toUnsignedString(id) + "-" + serial;
    }

    /** {@code worker <id> (pid <pid>)}, for messages. */
    synchronized String describe() {
        return "worker " + Long.toUnsignedString(id) + " (pid " + pid() + ")";
    }

    /** Records the worker's process, and what it holds until it is reaped. STARTING only, once. */
    synchronized void spawned(
            Process process,
            PluginIdRegistry.Lease lease,
            WorkerCommandLine.Launch launch,
            WorkerLogPump logPump,
            Path socketFile) {
        require(phase == Phase.STARTING && this.process == null, "record a process");
        this.process = process;
        this.lease = lease;
        this.launch = launch;
        this.logPump = logPump;
        this.socketFile = socketFile;
    }

    /** STARTING → RUNNING: it has reported READY on {@code address}; its counts come over {@code stats}. */
    synchronized void running(String address, WorkerStatsLink stats) {
        require(phase == Phase.STARTING, "take it as running");
        this.address = address;
        this.stats = stats;
        phase = Phase.RUNNING;
    }

    /** STARTING or RUNNING → ENDING: it has left the table. */
    synchronized void ending() {
        require(phase == Phase.STARTING || phase == Phase.RUNNING, "take it out of the table");
        phase = Phase.ENDING;
    }

    /** ENDING → DEAD: what it held is released (or it never had a process). */
    synchronized void dead() {
        require(phase == Phase.ENDING, "take it as dead");
        phase = Phase.DEAD;
    }

    synchronized Phase phase() {
        return phase;
    }

    /** Its process id, or -1 before it has a process. */
    synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    synchronized Process process() {
        return process;
    }

    synchronized PluginIdRegistry.Lease lease() {
        return lease;
    }

    synchronized WorkerCommandLine.Launch launch() {
        return launch;
    }

    synchronized WorkerLogPump logPump() {
        return logPump;
    }

    synchronized Path socketFile() {
        return socketFile;
    }

    /** Where it listens; {@code ""} until it is RUNNING. */
    synchronized String address() {
        return address;
    }

    /** Its stats link; null until it is RUNNING. */
    synchronized WorkerStatsLink stats() {
        return stats;
    }

    synchronized WorkerInfo info() {
        return new WorkerInfo(
                id,
                gid,
                mask,
                pid(),
                address,
                phase == Phase.RUNNING ? WorkerInfo.State.RUNNING : WorkerInfo.State.STARTING,
                owner);
    }

    private void require(boolean allowed, String what) {
        if (!allowed) {
            throw new IllegalStateException("cannot " + what + " of " + describe() + ": it is " + phase);
        }
    }
}
