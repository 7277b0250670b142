// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginIdRegistry;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.service.access.WorkerAccess;
import dev.urom.service.logging.LogText;
import dev.urom.service.logging.RateLimitedLog;
import dev.urom.service.metrics.WorkerStatsBook;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServiceWorker;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The daemon's workers, as its control connections use them; thread-safe, and nothing that blocks
 * (spawning, waiting for a status line, a worker's answer or its exit) runs under a lock. It starts
 * worker processes (or joins running ones), answers what runs, and ends them all on {@link
 * #close()}. Its parts:
 *
 * <ul>
 *   <li>{@link WorkerTable}: the workers by id, each a {@link WorkerEntry} with its life's state;
 *   <li>{@link WorkerSpawn} and {@link ReadyHandshake}: a worker's process and its first line;
 *   <li>{@link WorkerReaper}: a worker's exit, with its crash report ({@link CrashReport});
 *   <li>{@link WorkerLogPruning}: the ended workers' logs.
 * </ul>
 *
 * <p>A worker belongs to the principal that started it: only that principal may join it or see it
 * in WORKERS_IN_GROUP, and a principal may have at most {@link DaemonConfig#maxWorkersPerPrincipal()}
 * workers. The worker learns its owner, and the keys its hosts prove, on its stdin ({@link
 * WorkerAccess}) before anything else.
 *
 * <p>A worker id is taken from the moment its start begins: a second start of the same id by the
 * same principal waits for the first and then joins it (or, when the first failed, starts it
 * afresh). A worker holds a lease on its plugin ids from before it is spawned until its process
 * exits.
 *
 * <p>A start never joins a worker that is ending. A worker ends when its last host connection has
 * stopped or closed, but stays in the table, running, until its process has exited and been reaped;
 * a host that stops its worker and at once starts the same id must get a new worker, not the address
 * of one that will refuse it. The orders that make this hold:
 * <ol>
 *   <li>the worker's data plane, when a STOP leaves it no connection, writes {@code ENDING} on its
 *       stdout and only then the STOP_OK (see {@code DataPlane}); so ENDING is in the pipe before
 *       that host can learn its STOP was taken, and so before the host's next WORKER_START. When
 *       its last connection closes without STOP, or no host came, it writes ENDING before it
 *       answers any further question;
 *   <li>before it joins, a start asks the worker for its counts on its stdin ({@link
 *       WorkerStatsLink#liveness}), after the WORKER_START has arrived; the worker answers on its
 *       stdout, after anything it wrote before it read the question, ENDING included, and this
 *       daemon reads those lines in order: an answer with no ENDING before it means the worker had
 *       not decided to end when it answered (its data plane answers only after it has read what
 *       its hosts sent before the question, a STOP or a close among them);
 *   <li>on ENDING (or the end of the worker's stdout) the start waits, at most the start timeout,
 *       for the worker's reap, which takes it out of the table first, then starts afresh; a worker
 *       that neither answers nor says ENDING within {@value #JOIN_ANSWER_MILLIS} ms is not joined:
 *       the start is refused TIME_OUT.
 * </ol>
 * A join pays that one round trip. Only a join that races another host's stop (the worker's last
 * host, stopping at the same moment) can still reach the worker as it ends, which then refuses the
 * connection.
 */
final class WorkerSupervisor implements AutoCloseable {
    private static final Logger LOG = LogManager.getLogger(WorkerSupervisor.class);
    /** Refused starts are the hosts' doing: 20 lines per 10 s at most. */
    private final RateLimitedLog refusals = new RateLimitedLog(LOG, 20, Duration.ofSeconds(10));

    private static final long STDIN_GRACE_MILLIS = 3000;
    private static final long EXIT_GRACE_MILLIS = TimeUnit.SECONDS.toMillis(ReadyHandshake.EXIT_GRACE_SECONDS);
    /** How long a join waits for the worker's answer (a worker's data plane answers within a turn of its loop). */
    private static final long JOIN_ANSWER_MILLIS = 5000;
    /** The variable that tells a worker's plugins the uid of the Unix user who owns it (docs/security.md). */
    static final String OWNER_UID_VARIABLE = "UROM_OWNER_UID";

    private final DaemonConfig config;
    private final DaemonMetrics metrics;
    private final WorkerStatsBook stats;
    private final byte[] daemonSecret = Proofs.randomSecret(32);
    private final WorkerTable table;
    private final WorkerSpawner spawner = new WorkerSpawner();
    private final ScheduledExecutorService timers =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("urom-worker-timers"));
    private final WorkerLogPruning logs;
    private final WorkerSpawn spawn;

    /**
     * Where a worker listens: the launcher's options for its socket, and the socket file to remove
     * when it ends (null on TCP).
     */
    record Listen(List<String> launcherOptions, Path socketFile) {}

    /**
     * @param runtime who workers run as, and their directories
     * @param listenOf where the worker with the given name ({@code worker-<id>-<launch>}) and owner is to listen
     * @param metrics counts starts and exits
     * @param stats where the running workers' counts go
     */
    WorkerSupervisor(
            DaemonConfig config,
            PluginIdRegistry registry,
            WorkerRuntime runtime,
            BiFunction<String, Principal, Listen> listenOf,
            DaemonMetrics metrics,
            WorkerStatsBook stats) {
        this.config = config;
        this.metrics = metrics;
        this.stats = stats;
        this.table = new WorkerTable(config.maxWorkers(), config.maxWorkersPerPrincipal());
        this.logs = new WorkerLogPruning(
                new WorkerLogPruner(
                        config.logDir(), config.workerLogRetention(), UnixAccounts.effectiveUid(), Clock.systemUTC()),
                config.logDir());
        WorkerReaper reaper = new WorkerReaper(config, runtime, table, metrics, logs);
        this.spawn = new WorkerSpawn(
                config,
                registry,
                runtime,
                listenOf,
                spawner,
                new ReadyHandshake(config.workerStartTimeout(), timers),
                table,
                logs,
                reaper);
        logs.prune();
    }

    /**
     * Starts the worker {@code request} asks for, or joins the running one with its id when the
     * session's principal owns it. The request must already have passed {@link StartRequestCheck}.
     *
     * @param plugins the plugins the daemon accepts now (for the paths of the requested ids)
     */
    WorkerStartReply start(WorkerStartRequest request, List<DiscoveredPlugin> plugins, ControlSession session) {
        String peer = session.peer();
        while (true) {
            WorkerTable.Claim claim = table.claim(
                    request.workerId(),
                    session.principal(),
                    (id, serial) -> new WorkerEntry(
                            id,
                            serial,
                            request.gid(),
                            request.pluginMask(),
                            WorkerAccess.of(session.principal(), session.key(), daemonSecret),
                            pluginNames(plugins, request.pluginMask())));
            if (claim instanceof WorkerTable.Claim.Refused refused) {
                return refused(request, refused.refusal(), peer);
            }
            if (claim instanceof WorkerTable.Claim.Created created) {
                return launch(created.entry(), request, plugins, peer);
            }
            WorkerTable.Claim.Taken taken = (WorkerTable.Claim.Taken) claim;
            if (taken.phase() != WorkerEntry.Phase.RUNNING) {
                taken.entry().settled.join();
                continue;
            }
            WorkerStartReply reply = joinUnlessEnding(taken.entry(), taken.stats(), request, peer);
            if (reply != null) {
                return reply;
            }
        }
    }

    /**
     * Joins {@code worker} when it answers that it still takes hosts; otherwise waits for it to be
     * gone.
     *
     * @param link the worker's stats link
     * @return the reply, or null when the caller is to look at the table again
     */
    private WorkerStartReply joinUnlessEnding(
            WorkerEntry worker, WorkerStatsLink link, WorkerStartRequest request, String peer) {
        String name = worker.describe();
        return switch (link.liveness(Duration.ofMillis(JOIN_ANSWER_MILLIS))) {
            case SERVING -> table.holds(worker) ? join(worker, request, peer) : null;
            case ENDING -> awaitGone(worker, name, request, peer);
            case SILENT ->
                refused(
                        request,
                        new Refusal(
                                UromStatus.TIME_OUT,
                                name + " did not answer the daemon within " + JOIN_ANSWER_MILLIS
                                        + " ms; it was not joined"),
                        peer);
        };
    }

    /** Waits, at most the start timeout, until the ending {@code worker} is reaped; null then, a refusal when it is not. */
    private WorkerStartReply awaitGone(WorkerEntry worker, String name, WorkerStartRequest request, String peer) {
        LOG.info("{} is ending; the start for {} waits for it to exit", name, peer);
        long timeoutMs = config.workerStartTimeout().toMillis();
        try {
            worker.gone.get(timeoutMs, TimeUnit.MILLISECONDS);
            return null;
        } catch (TimeoutException e) {
            return refused(
                    request,
                    new Refusal(
                            UromStatus.TIME_OUT,
                            name + " is ending but has not exited within " + timeoutMs + " ms; start it again later"),
                    peer);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return refused(
                    request,
                    new Refusal(UromStatus.SHUTDOWN, "interrupted while waiting for " + name + " to exit"),
                    peer);
        } catch (ExecutionException e) {
            return null;
        }
    }

    private WorkerStartReply join(WorkerEntry worker, WorkerStartRequest request, String peer) {
        long missing = request.pluginMask() & ~worker.mask;
        if (missing != 0) {
            return refused(
                    request,
                    new Refusal(
                            UromStatus.INVALID_VALUE,
                            "worker " + Long.toUnsignedString(worker.id) + " runs plugins "
                                    + StartRequestCheck.hex(worker.mask) + " and cannot take on "
                                    + StartRequestCheck.hex(missing)
                                    + "; ask for a subset of its plugins or another worker id"),
                    peer);
        }
        LOG.info("worker {} (pid {}) joined by {}", Long.toUnsignedString(worker.id), worker.pid(), peer);
        metrics.workerStart(DaemonMetrics.OUTCOME_JOINED, UromStatus.SUCCESS);
        return new WorkerStartReply(UromStatus.SUCCESS, worker.id, worker.gid, worker.mask, worker.address(), "");
    }

    /** Spawns {@code worker} and takes it as running at its READY; a start that fails leaves the table. */
    private WorkerStartReply launch(
            WorkerEntry worker, WorkerStartRequest request, List<DiscoveredPlugin> plugins, String peer) {
        try {
            ReadyHandshake.Outcome outcome = spawn.start(worker, request, plugins);
            if (outcome instanceof ReadyHandshake.Outcome.Refused refused) {
                return refused(request, refused.refusal(), peer);
            }
            return ready(worker, (ReadyHandshake.Outcome.Ready) outcome, request, peer);
        } finally {
            if (worker.phase() != WorkerEntry.Phase.RUNNING) {
                table.leave(worker, null);
                if (worker.process() == null) {
                    worker.dead();
                }
            }
            worker.settled.complete(null);
        }
    }

    /** Takes the worker into the table as running, its stdout (after READY) going on to a {@link WorkerStatsLink}. */
    private WorkerStartReply ready(
            WorkerEntry worker, ReadyHandshake.Outcome.Ready ready, WorkerStartRequest request, String peer) {
        String name = worker.describe();
        Process process = ready.process();
        if (!table.running(
                worker,
                ready.address(),
                () -> WorkerStatsLink.start(name, process.pid(), ready.stdout(), process.getOutputStream(), stats))) {
            try {
                ready.stdout().close();
            } catch (IOException e) {
                // the pipe is gone with the process
            }
            return refused(
                    request,
                    new Refusal(UromStatus.INITIALIZATION, name + " ended right after it reported READY"),
                    peer);
        }
        metrics.workerStart(DaemonMetrics.OUTCOME_STARTED, UromStatus.SUCCESS);
        LOG.info(
                "{} started for {}: plugins {}, gid {}, listening on {}",
                name,
                peer,
                StartRequestCheck.hex(worker.mask),
                Long.toUnsignedString(worker.gid),
                ready.address());
        return new WorkerStartReply(UromStatus.SUCCESS, worker.id, worker.gid, worker.mask, ready.address(), "");
    }

    /** The names of the plugins of {@code mask} among {@code plugins}, ascending by id. */
    private static List<String> pluginNames(List<DiscoveredPlugin> plugins, long mask) {
        return plugins.stream()
                .filter(p -> (p.id() & mask) != 0)
                .sorted(Comparator.comparing(DiscoveredPlugin::id, Long::compareUnsigned))
                .map(p -> p.info().name())
                .toList();
    }

    /**
     * The ids of {@code principal}'s running workers of group {@code gid} (of every group for {@link
     * Protocol#ALL_GROUPS}), ascending (unsigned).
     */
    List<Long> workersInGroup(long gid, Principal principal) {
        return table.entries().stream()
                .filter(w -> w.phase() == WorkerEntry.Phase.RUNNING
                        && w.owner.equals(principal)
                        && (gid == Protocol.ALL_GROUPS || w.gid == gid))
                .map(w -> w.id)
                .sorted(Long::compareUnsigned)
                .toList();
    }

    /**
     * Asks every running worker for its counts and waits for the answers until {@code timeout}
     * has passed; afterwards the book holds each worker's latest counts.
     *
     * @return how many running workers did not answer in time
     */
    int refreshStats(Duration timeout) {
        List<WorkerStatsLink> links = table.entries().stream()
                .filter(w -> w.phase() == WorkerEntry.Phase.RUNNING)
                .map(WorkerEntry::stats)
                .toList();
        List<CompletableFuture<Void>> answers =
                links.stream().map(WorkerStatsLink::request).toList();
        long deadline = System.nanoTime() + timeout.toNanos();
        int missed = 0;
        for (CompletableFuture<Void> answer : answers) {
            try {
                answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return missed + 1;
            } catch (ExecutionException e) {
                // the worker has ended: its final counts are already in the book
            } catch (TimeoutException e) {
                missed++;
            }
        }
        return missed;
    }

    /**
     * {@code principal}'s workers of group {@code gid} (of every group for {@link Protocol#ALL_GROUPS}),
     * starting or running, ascending (unsigned) by id, with their latest counts from the book: call
     * {@link #refreshStats} first for fresh ones.
     */
    List<ServiceWorker> workersInfo(long gid, Principal principal) {
        long now = System.nanoTime();
        return table.entries().stream()
                .filter(w -> w.owner.equals(principal) && (gid == Protocol.ALL_GROUPS || w.gid == gid))
                .sorted(Comparator.comparing((WorkerEntry w) -> w.id, Long::compareUnsigned))
                .map(w -> {
                    long pid = w.pid();
                    long commands = pid < 0
                            ? 0
                            : stats.latest(pid)
                                    .map(WorkerStatsSnapshot::commands)
                                    .orElse(0L);
                    ServiceWorker.State state = w.phase() == WorkerEntry.Phase.RUNNING
                            ? ServiceWorker.State.RUNNING
                            : ServiceWorker.State.STARTING;
                    return new ServiceWorker(
                            w.id,
                            w.gid,
                            w.mask,
                            state,
                            pid,
                            Math.max(0, (now - w.createdNanos) / 1_000_000),
                            commands,
                            w.pluginNames);
                })
                .toList();
    }

    /** The workers now in the table, by id. */
    List<WorkerInfo> snapshot() {
        return table.entries().stream()
                .map(WorkerEntry::info)
                .sorted(Comparator.comparing(WorkerInfo::id, Long::compareUnsigned))
                .toList();
    }

    /**
     * Refuses further starts, then ends every worker process: closes its stdin (a worker ends at
     * EOF), sends SIGTERM to those still there after a grace period, SIGKILL after another, and
     * waits for each; only then ends the spawner thread (and kills a worker whose start was under
     * way). Idempotent.
     */
    @Override
    public void close() {
        if (!table.close()) {
            return;
        }
        // The spawner thread lives until the workers are gone: a worker's parent-death signal is tied to it.
        List<Process> processes = table.live();
        for (Process process : processes) {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                // the pipe is gone with the process
            }
        }
        awaitExits(processes, STDIN_GRACE_MILLIS);
        for (Process process : processes) {
            if (process.isAlive()) {
                LOG.warn(
                        "worker process {} did not end within {} ms of EOF on its stdin; sending SIGTERM",
                        process.pid(),
                        STDIN_GRACE_MILLIS);
                process.destroy();
            }
        }
        awaitExits(processes, EXIT_GRACE_MILLIS);
        for (Process process : processes) {
            if (process.isAlive()) {
                LOG.warn(
                        "worker process {} did not end within {} s of SIGTERM; killing it",
                        process.pid(),
                        ReadyHandshake.EXIT_GRACE_SECONDS);
                process.destroyForcibly();
            }
        }
        awaitExits(processes, EXIT_GRACE_MILLIS);
        spawner.close();
        List<Process> late = table.live();
        late.removeAll(processes);
        late.forEach(Process::destroyForcibly);
        awaitExits(late, EXIT_GRACE_MILLIS);
        timers.shutdownNow();
        logs.close();
    }

    /** Waits until every process has ended or {@code millis} have passed, whichever is first. */
    private static void awaitExits(List<Process> processes, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        try {
            for (Process process : processes) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.waitFor(left, TimeUnit.NANOSECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Counts, logs and answers a WORKER_START refused for {@code refusal}. */
    WorkerStartReply refused(WorkerStartRequest request, Refusal refusal, String peer) {
        metrics.workerStart(DaemonMetrics.OUTCOME_REFUSED, refusal.status());
        refusals.warn(
                "refused WORKER_START",
                "WORKER_START from {} refused: {} {}",
                peer,
                refusal.status(),
                LogText.cut(refusal.message()));
        return new WorkerStartReply(
                refusal.status(), request.workerId(), request.gid(), request.pluginMask(), "", refusal.message());
    }
}
