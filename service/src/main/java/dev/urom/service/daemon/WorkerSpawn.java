// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;
import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginIdRegistry;
import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.service.process.WorkerLine;
import dev.urom.service.process.WorkerLines;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.WorkerStartRequest;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Starts the process of a STARTING worker and waits for its READY line; thread-safe (one call per
 * worker, on the thread of its start). The steps, each of which can refuse the start:
 *
 * <ol>
 *   <li>lease the worker's plugin ids (NOT_FOUND for an id another start holds);
 *   <li>the Unix account it runs as, where it listens, its private directory;
 *   <li>its command line ({@link WorkerCommandLine}) and its environment ({@link WorkerEnvironment});
 *   <li>spawn it on the spawner thread, which, before the process can be reaped, records it in the
 *       table, starts copying its log, writes its ACCESS line, and hands its exit to the reaper;
 *   <li>its first line ({@link ReadyHandshake}).
 * </ol>
 */
final class WorkerSpawn {
    /** Under the supervisor's name, as the daemon's log has always shown these lines. */
    private static final Logger LOG = LogManager.getLogger(WorkerSupervisor.class);

    private final DaemonConfig config;
    private final PluginIdRegistry registry;
    private final WorkerRuntime runtime;
    private final BiFunction<String, Principal, WorkerSupervisor.Listen> listenOf;
    private final WorkerCommandLine commandLine;
    private final WorkerEnvironment environment;
    private final WorkerSpawner spawner;
    private final ReadyHandshake handshake;
    private final WorkerTable table;
    private final WorkerLogPruning logs;
    private final WorkerReaper reaper;

    WorkerSpawn(
            DaemonConfig config,
            PluginIdRegistry registry,
            WorkerRuntime runtime,
            BiFunction<String, Principal, WorkerSupervisor.Listen> listenOf,
            WorkerSpawner spawner,
            ReadyHandshake handshake,
            WorkerTable table,
            WorkerLogPruning logs,
            WorkerReaper reaper) {
        this.config = config;
        this.registry = registry;
        this.runtime = runtime;
        this.listenOf = listenOf;
        this.commandLine = new WorkerCommandLine(config, runtime);
        this.environment = new WorkerEnvironment(config.security().workerEnvAllow());
        this.spawner = spawner;
        this.handshake = handshake;
        this.table = table;
        this.logs = logs;
        this.reaper = reaper;
    }

    /**
     * Starts {@code worker}'s process.
     *
     * @param plugins the plugins the daemon accepts now (for the paths of the requested ids)
     */
    ReadyHandshake.Outcome start(WorkerEntry worker, WorkerStartRequest request, List<DiscoveredPlugin> plugins) {
        String id = Long.toUnsignedString(worker.id);
        PluginIdRegistry.Lease lease;
        try {
            lease = registry.lease(worker.mask);
        } catch (IllegalArgumentException e) {
            return refused(UromStatus.NOT_FOUND, e.getMessage());
        }
        List<PluginSpec> specs = new ArrayList<>();
        for (DiscoveredPlugin plugin : plugins) {
            if ((plugin.id() & worker.mask) != 0) {
                specs.add(new PluginSpec(plugin.path(), plugin.id()));
            }
        }
        UnixAccount account;
        try {
            account = runtime.accountFor(worker.owner);
        } catch (UromException e) {
            lease.close();
            return refused(e.status(), "cannot start worker " + id + ": " + e.getMessage());
        }
        WorkerSupervisor.Listen listen = listenOf.apply(worker.name(), worker.owner);
        Path directory;
        try {
            directory = runtime.makeWorkerDirectory(worker.name(), account);
        } catch (IOException e) {
            lease.close();
            return refused(
                    UromStatus.OPERATING_SYSTEM, "cannot make the directory of worker " + id + ": " + e.getMessage());
        }
        WorkerCommandLine.Launch launch = commandLine.build(
                worker.id, worker.gid, account, listen.launcherOptions(), directory, request.cpus(), specs);
        Process process;
        try {
            process = spawner.spawn(
                    launch.command(),
                    environmentOf(worker, directory, request),
                    started -> register(worker, started, lease, launch, listen.socketFile()));
        } catch (IOException e) {
            launch.exited(-1);
            lease.close();
            reaper.removeFiles(worker.name(), listen.socketFile(), id);
            return refused(UromStatus.OPERATING_SYSTEM, "cannot start worker " + id + ": " + e.getMessage());
        }
        LOG.debug("worker {} (pid {}) spawned: {}", id, process.pid(), launch.command());
        return handshake.await(worker.describe(), process);
    }

    /** Runs on the spawner thread, before the process can be reaped: records it, starts copying its log, and tells it who may use it. */
    private void register(
            WorkerEntry worker,
            Process process,
            PluginIdRegistry.Lease lease,
            WorkerCommandLine.Launch launch,
            Path socketFile) {
        logs.opened(process.pid());
        WorkerLogPump pump =
                WorkerLogPump.start(process.pid(), process.getErrorStream(), config.logDir(), config.logRolling());
        table.spawned(worker, process, lease, launch, pump, socketFile);
        try {
            OutputStream stdin = process.getOutputStream();
            stdin.write((WorkerLines.encode(new WorkerLine.Access(worker.access)) + "\n")
                    .getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
        } catch (IOException e) {
            // the worker has already ended: its status line (or its exit) says why
        }
        process.onExit().thenRun(() -> reaper.reap(worker, process));
    }

    /** The worker's whole environment: built from nothing (see {@link WorkerEnvironment}). */
    private Map<String, String> environmentOf(WorkerEntry worker, Path directory, WorkerStartRequest request) {
        Map<String, String> fixed = new LinkedHashMap<>();
        fixed.put("HOME", directory.toString());
        fixed.put("TMPDIR", directory.toString());
        if (worker.owner.isUnix()) {
            fixed.put(WorkerSupervisor.OWNER_UID_VARIABLE, Integer.toUnsignedString(worker.owner.uid()));
        }
        return environment.build(fixed, System.getenv(), request.env());
    }

    private static ReadyHandshake.Outcome refused(UromStatus status, String message) {
        return new ReadyHandshake.Outcome.Refused(new Refusal(status, message));
    }
}
