// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginIdRegistry;
import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.service.access.WorkerAccess;
import dev.urom.service.logging.LogText;
import dev.urom.service.logging.RateLimitedLog;
import dev.urom.service.metrics.WorkerStatsBook;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.service.process.WorkerLine;
import dev.urom.service.process.WorkerLines;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServiceWorker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The daemon's table of workers: starts worker processes (or joins running ones), waits for their
 * status line, reaps them when they exit, and ends them all on {@link #close()}.
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
 *
 * <p>Thread-safe: the table is guarded by this object's lock; nothing that blocks (spawning,
 * waiting for the status line, a worker's answer or its exit) runs under it.
 */
final class WorkerSupervisor implements AutoCloseable {
    private static final Logger LOG = LogManager.getLogger(WorkerSupervisor.class);
    /** Refused starts are the hosts' doing: 20 lines per 10 s at most. */
    private final RateLimitedLog refusals = new RateLimitedLog(LOG, 20, Duration.ofSeconds(10));
    private static final int STATUS_LINE_MAX_BYTES = 4096;
    private static final long EXIT_GRACE_SECONDS = 10;
    private static final long STDIN_GRACE_MILLIS = 3000;
    private static final long LOG_DRAIN_MILLIS = 2000;
    /** How long a join waits for the worker's answer (a worker's data plane answers within a turn of its loop). */
    private static final long JOIN_ANSWER_MILLIS = 5000;
    /** The variable that tells a worker's plugins the uid of the Unix user who owns it (docs/security.md). */
    static final String OWNER_UID_VARIABLE = "UROM_OWNER_UID";

    private final DaemonConfig config;
    private final PluginIdRegistry registry;
    private final WorkerCommandLine commandLine;
    private final WorkerRuntime runtime;
    private final BiFunction<String, Principal, Listen> listenOf;
    private final DaemonMetrics metrics;
    private final WorkerStatsBook stats;
    private final WorkerSpawner spawner = new WorkerSpawner();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("urom-worker-timers"));
    private final Map<Long, Worker> workers = new HashMap<>();
    private final Set<Process> live = new HashSet<>();
    /** How many workers with each pid have a log being written (a pid may be reused before its last log closes). */
    private final Map<Long, Integer> loggingPids = new HashMap<>();
    private final WorkerLogPruner logPruner;
    private final ExecutorService pruning = Executors.newSingleThreadExecutor(DaemonThreads.named("urom-worker-log-pruner"));
    private final AtomicBoolean prunePending = new AtomicBoolean();
    private final byte[] daemonSecret = Proofs.randomSecret(32);
    private long launches;
    private final WorkerEnvironment environment;
    private boolean closed;

    /**
     * Where a worker listens: the launcher's options for its socket, and the socket file to remove
     * when it ends (null on TCP).
     */
    record Listen(List<String> launcherOptions, Path socketFile) {
    }

    /**
     * @param runtime who workers run as, and their directories
     * @param listenOf where the worker with the given name ({@code worker-<id>-<launch>}) and owner is to listen
     * @param metrics counts starts and exits
     * @param stats where the running workers' counts go
     */
    WorkerSupervisor(DaemonConfig config, PluginIdRegistry registry, WorkerRuntime runtime, BiFunction<String, Principal, Listen> listenOf,
            DaemonMetrics metrics, WorkerStatsBook stats) {
        this.config = config;
        this.registry = registry;
        this.runtime = runtime;
        this.commandLine = new WorkerCommandLine(config, runtime);
        this.environment = new WorkerEnvironment(config.security().workerEnvAllow());
        this.listenOf = listenOf;
        this.metrics = metrics;
        this.stats = stats;
        this.logPruner = new WorkerLogPruner(config.logDir(), config.workerLogRetention(), UnixAccounts.effectiveUid(), Clock.systemUTC());
        pruneWorkerLogs();
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
            Worker existing;
            Worker created = null;
            Worker running = null;
            WorkerStatsLink link = null;
            String name = null;
            synchronized (this) {
                if (closed) {
                    return refused(request, new Refusal(UromStatus.SHUTDOWN, "the daemon is shutting down"), peer);
                }
                long id = request.workerId() == Protocol.ANY_WORKER ? lowestFreeId() : request.workerId();
                existing = workers.get(id);
                if (existing == null) {
                    if (workers.size() >= config.maxWorkers()) {
                        return refused(request, new Refusal(UromStatus.FULL, "the daemon already runs its maximum of "
                                + config.maxWorkers() + " workers (--max-workers)"), peer);
                    }
                    long owned = workers.values().stream().filter(w -> w.owner.equals(session.principal())).count();
                    if (owned >= config.maxWorkersPerPrincipal()) {
                        return refused(request, new Refusal(UromStatus.FULL, session.principal() + " already has its maximum of "
                                + config.maxWorkersPerPrincipal() + " workers (--max-workers-per-principal)"), peer);
                    }
                    WorkerAccess access = WorkerAccess.of(session.principal(), session.key(), daemonSecret);
                    created = new Worker(id, ++launches, request.gid(), request.pluginMask(), access);
                    workers.put(id, created);
                } else if (!existing.owner.equals(session.principal())) {
                    return refused(request, new Refusal(UromStatus.NOT_PERMITTED, "worker " + Long.toUnsignedString(id)
                            + " belongs to another principal"), peer);
                } else if (existing.state == WorkerInfo.State.RUNNING) {
                    running = existing;
                    link = existing.stats;
                    name = "worker " + Long.toUnsignedString(id) + " (pid " + existing.process.pid() + ")";
                }
            }
            if (created != null) {
                return launch(created, request, plugins, peer);
            }
            if (running == null) {
                existing.settled.join();
                continue;
            }
            WorkerStartReply reply = joinUnlessEnding(running, link, name, request, peer);
            if (reply != null) {
                return reply;
            }
        }
    }

    /**
     * Joins {@code worker} when it answers that it still takes hosts; otherwise waits for it to be
     * gone. Called without the lock.
     *
     * @param link the worker's stats link
     * @return the reply, or null when the caller is to look at the table again
     */
    private WorkerStartReply joinUnlessEnding(Worker worker, WorkerStatsLink link, String name, WorkerStartRequest request, String peer) {
        return switch (link.liveness(Duration.ofMillis(JOIN_ANSWER_MILLIS))) {
            case SERVING -> {
                synchronized (this) {
                    yield !closed && workers.get(worker.id) == worker ? join(worker, request, peer) : null;
                }
            }
            case ENDING -> awaitGone(worker, name, request, peer);
            case SILENT -> refused(request, new Refusal(UromStatus.TIME_OUT, name + " did not answer the daemon within "
                    + JOIN_ANSWER_MILLIS + " ms; it was not joined"), peer);
        };
    }

    /** Waits, at most the start timeout, until the ending {@code worker} is reaped; null then, a refusal when it is not. */
    private WorkerStartReply awaitGone(Worker worker, String name, WorkerStartRequest request, String peer) {
        LOG.info("{} is ending; the start for {} waits for it to exit", name, peer);
        long timeoutMs = config.workerStartTimeout().toMillis();
        try {
            worker.gone.get(timeoutMs, TimeUnit.MILLISECONDS);
            return null;
        } catch (TimeoutException e) {
            return refused(request, new Refusal(UromStatus.TIME_OUT, name + " is ending but has not exited within " + timeoutMs
                    + " ms; start it again later"), peer);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return refused(request, new Refusal(UromStatus.SHUTDOWN, "interrupted while waiting for " + name + " to exit"), peer);
        } catch (ExecutionException e) {
            return null;
        }
    }

    /**
     * The ids of {@code principal}'s running workers of group {@code gid} (of every group for {@link
     * Protocol#ALL_GROUPS}), ascending (unsigned).
     */
    synchronized List<Long> workersInGroup(long gid, Principal principal) {
        return workers.values().stream()
                .filter(w -> w.state == WorkerInfo.State.RUNNING && w.owner.equals(principal) && (gid == Protocol.ALL_GROUPS || w.gid == gid))
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
        List<WorkerStatsLink> links;
        synchronized (this) {
            links = workers.values().stream().filter(w -> w.state == WorkerInfo.State.RUNNING)
                    .map(w -> w.stats).toList();
        }
        List<CompletableFuture<Void>> answers = links.stream().map(WorkerStatsLink::request).toList();
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
    synchronized List<ServiceWorker> workersInfo(long gid, Principal principal) {
        long now = System.nanoTime();
        return workers.values().stream()
                .filter(w -> w.owner.equals(principal) && (gid == Protocol.ALL_GROUPS || w.gid == gid))
                .sorted(Comparator.comparing((Worker w) -> w.id, Long::compareUnsigned))
                .map(w -> {
                    long pid = w.process == null ? -1 : w.process.pid();
                    long commands = pid < 0 ? 0 : stats.latest(pid).map(WorkerStatsSnapshot::commands).orElse(0L);
                    ServiceWorker.State state = w.state == WorkerInfo.State.RUNNING ? ServiceWorker.State.RUNNING : ServiceWorker.State.STARTING;
                    return new ServiceWorker(w.id, w.gid, w.mask, state, pid, Math.max(0, (now - w.createdNanos) / 1_000_000), commands,
                            w.pluginNames);
                })
                .toList();
    }

    /** The workers now in the table, by id. */
    synchronized List<WorkerInfo> snapshot() {
        return workers.values().stream()
                .map(w -> new WorkerInfo(w.id, w.gid, w.mask, w.process == null ? -1 : w.process.pid(), w.address, w.state, w.owner))
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
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // The spawner thread lives until the workers are gone: a worker's parent-death signal is tied to it.
        List<Process> processes;
        synchronized (this) {
            processes = new ArrayList<>(live);
        }
        for (Process process : processes) {
            closeQuietly(process);
        }
        awaitExits(processes, STDIN_GRACE_MILLIS);
        for (Process process : processes) {
            if (process.isAlive()) {
                LOG.warn("worker process {} did not end within {} ms of EOF on its stdin; sending SIGTERM", process.pid(), STDIN_GRACE_MILLIS);
                process.destroy();
            }
        }
        awaitExits(processes, TimeUnit.SECONDS.toMillis(EXIT_GRACE_SECONDS));
        for (Process process : processes) {
            if (process.isAlive()) {
                LOG.warn("worker process {} did not end within {} s of SIGTERM; killing it", process.pid(), EXIT_GRACE_SECONDS);
                process.destroyForcibly();
            }
        }
        awaitExits(processes, TimeUnit.SECONDS.toMillis(EXIT_GRACE_SECONDS));
        spawner.close();
        List<Process> late;
        synchronized (this) {
            late = new ArrayList<>(live);
        }
        late.removeAll(processes);
        late.forEach(Process::destroyForcibly);
        awaitExits(late, TimeUnit.SECONDS.toMillis(EXIT_GRACE_SECONDS));
        timers.shutdownNow();
        pruning.shutdown();
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

    private long lowestFreeId() {
        long id = 0;
        while (workers.containsKey(id)) {
            id++;
        }
        return id;
    }

    private WorkerStartReply join(Worker worker, WorkerStartRequest request, String peer) {
        long missing = request.pluginMask() & ~worker.mask;
        if (missing != 0) {
            return refused(request, new Refusal(UromStatus.INVALID_VALUE, "worker " + Long.toUnsignedString(worker.id) + " runs plugins "
                    + StartRequestCheck.hex(worker.mask) + " and cannot take on " + StartRequestCheck.hex(missing)
                    + "; ask for a subset of its plugins or another worker id"), peer);
        }
        LOG.info("worker {} (pid {}) joined by {}", Long.toUnsignedString(worker.id), worker.process.pid(), peer);
        metrics.workerStart(DaemonMetrics.OUTCOME_JOINED, UromStatus.SUCCESS);
        return new WorkerStartReply(UromStatus.SUCCESS, worker.id, worker.gid, worker.mask, worker.address, "");
    }

    private WorkerStartReply launch(Worker worker, WorkerStartRequest request, List<DiscoveredPlugin> plugins, String peer) {
        try {
            return spawnAndAwaitReady(worker, request, plugins, peer);
        } finally {
            synchronized (this) {
                if (worker.state != WorkerInfo.State.RUNNING) {
                    workers.remove(worker.id, worker);
                }
            }
            worker.settled.complete(null);
        }
    }

    private WorkerStartReply spawnAndAwaitReady(Worker worker, WorkerStartRequest request, List<DiscoveredPlugin> plugins, String peer) {
        PluginIdRegistry.Lease lease;
        try {
            lease = registry.lease(worker.mask);
        } catch (IllegalArgumentException e) {
            return refused(request, new Refusal(UromStatus.NOT_FOUND, e.getMessage()), peer);
        }
        List<PluginSpec> specs = new ArrayList<>();
        List<DiscoveredPlugin> chosen = new ArrayList<>();
        for (DiscoveredPlugin plugin : plugins) {
            if ((plugin.id() & worker.mask) != 0) {
                specs.add(new PluginSpec(plugin.path(), plugin.id()));
                chosen.add(plugin);
            }
        }
        chosen.sort(Comparator.comparing(DiscoveredPlugin::id, Long::compareUnsigned));
        synchronized (this) {
            worker.pluginNames = chosen.stream().map(p -> p.info().name()).toList();
        }
        UnixAccount account;
        try {
            account = runtime.accountFor(worker.owner);
        } catch (UromException e) {
            lease.close();
            return refused(request, new Refusal(e.status(), "cannot start worker " + Long.toUnsignedString(worker.id) + ": " + e.getMessage()),
                    peer);
        }
        Listen listen = listenOf.apply(worker.name(), worker.owner);
        worker.socketFile = listen.socketFile();
        Path directory;
        try {
            directory = runtime.makeWorkerDirectory(worker.name(), account);
        } catch (IOException e) {
            lease.close();
            return refused(request, new Refusal(UromStatus.OPERATING_SYSTEM,
                    "cannot make the directory of worker " + Long.toUnsignedString(worker.id) + ": " + e.getMessage()), peer);
        }
        WorkerCommandLine.Launch launch = commandLine.build(worker.id, worker.gid, account, listen.launcherOptions(), directory, request.cpus(), specs);
        List<String> command = launch.command();
        Process process;
        try {
            process = spawner.spawn(command, environmentOf(worker, directory, request), started -> register(worker, started, lease, launch));
        } catch (IOException e) {
            launch.exited(-1);
            lease.close();
            removeFiles(worker);
            return refused(request, new Refusal(UromStatus.OPERATING_SYSTEM,
                    "cannot start worker " + Long.toUnsignedString(worker.id) + ": " + e.getMessage()), peer);
        }
        LOG.debug("worker {} (pid {}) spawned: {}", Long.toUnsignedString(worker.id), process.pid(), command);
        return awaitStatusLine(worker, process, request, peer);
    }

    /**
     * Runs on the spawner thread, before the process can be reaped: records it, starts copying its
     * log, and tells it who may use it.
     */
    private void register(Worker worker, Process process, PluginIdRegistry.Lease lease, WorkerCommandLine.Launch launch) {
        synchronized (this) {
            loggingPids.merge(process.pid(), 1, Integer::sum);
        }
        WorkerLogPump pump = WorkerLogPump.start(process.pid(), process.getErrorStream(), config.logDir(), config.logRolling());
        synchronized (this) {
            worker.process = process;
            worker.lease = lease;
            worker.launch = launch;
            worker.logPump = pump;
            live.add(process);
            if (closed) {
                process.destroyForcibly();
            }
        }
        try {
            OutputStream stdin = process.getOutputStream();
            stdin.write((WorkerLines.encode(new WorkerLine.Access(worker.access)) + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
        } catch (IOException e) {
            // the worker has already ended: its status line (or its exit) says why
        }
        process.onExit().thenRun(() -> reap(worker, process));
    }

    private WorkerStartReply awaitStatusLine(Worker worker, Process process, WorkerStartRequest request, String peer) {
        String name = "worker " + Long.toUnsignedString(worker.id) + " (pid " + process.pid() + ")";
        long timeoutMs = config.workerStartTimeout().toMillis();
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> timer;
        try {
            timer = timers.schedule(() -> {
                timedOut.set(true);
                process.destroyForcibly();
            }, timeoutMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            process.destroyForcibly();
            return refused(request, new Refusal(UromStatus.SHUTDOWN, "the daemon is shutting down"), peer);
        }
        String line;
        InputStream stdout = process.getInputStream();
        try {
            line = readLine(stdout);
        } catch (IOException e) {
            line = null;
        } finally {
            timer.cancel(false);
        }
        WorkerLine said = null;
        String notValid = null;
        try {
            said = line == null ? null : WorkerLines.decode(line);
        } catch (WorkerLines.UnknownLine e) {
            // said nothing of the protocol: refused below
        } catch (IllegalArgumentException e) {
            notValid = e.getMessage();
        }
        if (!(said instanceof WorkerLine.Ready)) {
            closeQuietly(stdout);
        }
        if (line == null) {
            if (timedOut.get()) {
                return refused(request, new Refusal(UromStatus.TIME_OUT,
                        name + " did not report READY within " + timeoutMs + " ms; it was killed"), peer);
            }
            return refused(request, new Refusal(UromStatus.INITIALIZATION, name + " " + exitBeforeReady(process)), peer);
        }
        if (said instanceof WorkerLine.Ready ready) {
            return ready(worker, process, stdout, ready.address().toString(), name, request, peer);
        }
        if (said instanceof WorkerLine.Failed failed) {
            killLater(process);
            return refused(request, new Refusal(failed.status(), name + " failed to start: "
                    + (failed.reason().isEmpty() ? "no reason given" : printable(failed.reason()))), peer);
        }
        process.destroyForcibly();
        if (notValid != null) {
            return refused(request, new Refusal(UromStatus.INITIALIZATION,
                    name + " wrote a line that is not valid (" + printable(notValid) + "); it was killed"), peer);
        }
        return refused(request, new Refusal(UromStatus.INITIALIZATION,
                name + " wrote '" + printable(line) + "' instead of READY or FAILED; it was killed"), peer);
    }

    /** Takes the worker into the table as running, its stdout (after READY) going on to a {@link WorkerStatsLink}. */
    private WorkerStartReply ready(Worker worker, Process process, InputStream stdout, String address, String name, WorkerStartRequest request,
            String peer) {
        synchronized (this) {
            if (workers.get(worker.id) != worker || closed) {
                closeQuietly(stdout);
                return refused(request, new Refusal(UromStatus.INITIALIZATION, name + " ended right after it reported READY"), peer);
            }
            worker.address = address;
            worker.state = WorkerInfo.State.RUNNING;
            worker.stats = WorkerStatsLink.start(name, process.pid(), stdout, process.getOutputStream(), stats);
        }
        metrics.workerStart(DaemonMetrics.OUTCOME_STARTED, UromStatus.SUCCESS);
        LOG.info("{} started for {}: plugins {}, gid {}, listening on {}", name, peer, StartRequestCheck.hex(worker.mask),
                Long.toUnsignedString(worker.gid), address);
        return new WorkerStartReply(UromStatus.SUCCESS, worker.id, worker.gid, worker.mask, address, "");
    }

    private String exitBeforeReady(Process process) {
        try {
            if (process.waitFor(EXIT_GRACE_SECONDS, TimeUnit.SECONDS)) {
                return ExitStatus.describe(process.exitValue()) + " before it reported READY";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
        return "closed its stdout without reporting READY; it was killed";
    }

    private void killLater(Process process) {
        try {
            timers.schedule(process::destroyForcibly, EXIT_GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (RejectedExecutionException e) {
            process.destroyForcibly();
        }
    }

    /**
     * Records a worker's exit in an order observers can rely on: whoever sees the worker gone from the table
     * finds the class-data archive it wrote and its exit in the log, and whoever sees the exit counted in the
     * metrics finds it gone from the table.
     */
    private void reap(Worker worker, Process process) {
        int status = process.exitValue();
        awaitLastLogLines(worker.logPump);
        worker.launch.exited(status);
        Optional<CrashReport.Findings> crash = CrashReport.read(keepCrashReport(worker, process.pid()));
        removeFiles(worker);
        String how = ExitStatus.describe(status) + crash.map(CrashReport.Findings::summary).orElse("");
        worker.logPump.appendExit(how);
        worker.logPump.done().whenComplete((ignored, failure) -> logEnded(process.pid()));
        if (status == 0) {
            LOG.info("worker {} (pid {}) {}", Long.toUnsignedString(worker.id), process.pid(), how);
        } else {
            LOG.warn("worker {} (pid {}) {}", Long.toUnsignedString(worker.id), process.pid(), how);
        }
        synchronized (this) {
            workers.remove(worker.id, worker);
            live.remove(process);
        }
        metrics.workerExit(status, crash.map(CrashReport.Findings::signal));
        worker.lease.close();
        closeQuietly(process);
        worker.settled.complete(null);
        worker.gone.complete(null);
    }

    /** Once a worker's log is closed, it may be pruned: prunes the ended workers' logs. */
    private void logEnded(long pid) {
        synchronized (this) {
            loggingPids.computeIfPresent(pid, (p, count) -> count == 1 ? null : count - 1);
        }
        pruneWorkerLogs();
    }

    /**
     * Has the pruning thread prune the ended workers' logs (a pass already asked for and not yet
     * begun covers this request too), and pass again while a pass stops at its limit.
     */
    private void pruneWorkerLogs() {
        if (!prunePending.compareAndSet(false, true)) {
            return;
        }
        try {
            pruning.execute(() -> {
                prunePending.set(false);
                Set<Long> running;
                synchronized (this) {
                    running = Set.copyOf(loggingPids.keySet());
                }
                WorkerLogPruner.Pass pass = logPruner.prune(running);
                if (pass.deleted() > 0) {
                    LOG.debug("pruned {} files of ended workers' logs in {}", pass.deleted(), config.logDir());
                }
                if (pass.moreDue()) {
                    pruneWorkerLogs();
                }
            });
        } catch (RejectedExecutionException e) {
            prunePending.set(false);
        }
    }

    /** Waits until the worker's last log lines are in its file (a process it left behind may hold the pipe: then not for long). */
    private static void awaitLastLogLines(WorkerLogPump pump) {
        try {
            pump.done().get(LOG_DRAIN_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("the log of worker process {} is still open after it ended: {}", pump.file(), e.toString());
        }
    }

    /**
     * Copies a worker's fatal error report, if it wrote one, from its directory into the log
     * directory (as {@code urom_worker_<pid>_crash.log}) and returns where it is now.
     */
    private Path keepCrashReport(Worker worker, long pid) {
        Path written = WorkerCommandLine.crashReport(runtime.workerDirectory(worker.name()), pid);
        Path kept = WorkerCommandLine.crashReport(config.logDir(), pid);
        try {
            if (Files.isRegularFile(written, LinkOption.NOFOLLOW_LINKS)) {
                Files.copy(written, kept, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            LOG.warn("cannot keep the crash report of worker {} (pid {}) in {}: {}", Long.toUnsignedString(worker.id), pid, config.logDir(),
                    e.getMessage());
            return written;
        }
        return kept;
    }

    /** Deletes an ended worker's directory and socket file. */
    private void removeFiles(Worker worker) {
        runtime.deleteWorkerDirectory(worker.name());
        if (worker.socketFile != null) {
            try {
                Files.deleteIfExists(worker.socketFile);
            } catch (IOException e) {
                LOG.warn("cannot remove the socket file {} of worker {}: {}", worker.socketFile, Long.toUnsignedString(worker.id), e.getMessage());
            }
        }
    }

    /** Counts, logs and answers a WORKER_START refused for {@code refusal}. */
    WorkerStartReply refused(WorkerStartRequest request, Refusal refusal, String peer) {
        metrics.workerStart(DaemonMetrics.OUTCOME_REFUSED, refusal.status());
        refusals.warn("refused WORKER_START", "WORKER_START from {} refused: {} {}", peer, refusal.status(), LogText.cut(refusal.message()));
        return new WorkerStartReply(refusal.status(), request.workerId(), request.gid(), request.pluginMask(), "", refusal.message());
    }

    /** The worker's whole environment: built from nothing (see {@link WorkerEnvironment}). */
    private Map<String, String> environmentOf(Worker worker, Path directory, WorkerStartRequest request) {
        Map<String, String> fixed = new LinkedHashMap<>();
        fixed.put("HOME", directory.toString());
        fixed.put("TMPDIR", directory.toString());
        if (worker.owner.isUnix()) {
            fixed.put(OWNER_UID_VARIABLE, Integer.toUnsignedString(worker.owner.uid()));
        }
        return environment.build(fixed, System.getenv(), request.env());
    }

    /** One line of at most {@value #STATUS_LINE_MAX_BYTES} bytes without its end, or null at EOF before any byte. */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (line.size() < STATUS_LINE_MAX_BYTES) {
                line.write(b);
            }
        }
        if (b < 0 && line.size() == 0) {
            return null;
        }
        String text = line.toString(StandardCharsets.UTF_8);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }

    private static String printable(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                out.append(String.format("\\x%02x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.length() > 200 ? out.substring(0, 200) + "..." : out.toString();
    }

    private static void closeQuietly(Process process) {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // the pipe is gone with the process
        }
    }

    private static void closeQuietly(InputStream stdout) {
        try {
            stdout.close();
        } catch (IOException e) {
            // the pipe is gone with the process
        }
    }

    /** One entry of the table; fields other than {@code settled} and {@code gone} are guarded by the supervisor's lock. */
    private static final class Worker {
        final long id;
        /** Which launch this is: its files are named after it, so a late reap never takes a later worker's of the same id. */
        final long serial;
        final long gid;
        final long mask;
        final WorkerAccess access;
        final Principal owner;
        /** Completes when the start ends, whichever way. */
        final CompletableFuture<Void> settled = new CompletableFuture<>();
        /** Completes when the reaped process is out of the table. */
        final CompletableFuture<Void> gone = new CompletableFuture<>();
        Process process;
        PluginIdRegistry.Lease lease;
        WorkerCommandLine.Launch launch;
        WorkerStatsLink stats;
        WorkerLogPump logPump;
        Path socketFile;
        /** When the start began (System.nanoTime): uptimes count from it. */
        final long createdNanos = System.nanoTime();
        /** The names of its plugins, by id, once the start has found them. */
        List<String> pluginNames = List.of();
        String address = "";
        WorkerInfo.State state = WorkerInfo.State.STARTING;

        Worker(long id, long serial, long gid, long mask, WorkerAccess access) {
            this.id = id;
            this.serial = serial;
            this.gid = gid;
            this.mask = mask;
            this.access = access;
            this.owner = access.owner();
        }

        /** {@code worker-<id>-<serial>}: the name of its socket and directory. */
        String name() {
            return "worker-" + Long.toUnsignedString(id) + "-" + serial;
        }
    }
}
