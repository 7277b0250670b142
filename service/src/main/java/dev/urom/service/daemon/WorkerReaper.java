// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Records a worker process's exit; thread-safe (one {@link #reap} per process, on the thread that
 * saw it exit). The order is one that observers can rely on:
 *
 * <ol>
 *   <li>its last log lines are in its file (or {@value #LOG_DRAIN_MILLIS} ms have passed), and its
 *       class-data launch is told how it ended;
 *   <li>its crash report, if any, is kept in the log directory, and its directory and socket file
 *       are deleted;
 *   <li>its exit is logged and appended to its own log;
 *   <li>it leaves the table, and only then is its exit counted in the metrics;
 *   <li>its plugin-id lease is released, and it is DEAD.
 * </ol>
 *
 * So whoever sees the worker gone from the table finds the class-data archive it wrote and its exit
 * in the log, and whoever sees the exit counted finds it gone from the table.
 */
final class WorkerReaper {
    /** Under the supervisor's name, as the daemon's log has always shown these lines. */
    private static final Logger LOG = LogManager.getLogger(WorkerSupervisor.class);

    private static final long LOG_DRAIN_MILLIS = 2000;

    private final DaemonConfig config;
    private final WorkerRuntime runtime;
    private final WorkerTable table;
    private final DaemonMetrics metrics;
    private final WorkerLogPruning logs;

    WorkerReaper(
            DaemonConfig config,
            WorkerRuntime runtime,
            WorkerTable table,
            DaemonMetrics metrics,
            WorkerLogPruning logs) {
        this.config = config;
        this.runtime = runtime;
        this.table = table;
        this.metrics = metrics;
        this.logs = logs;
    }

    /** Reaps {@code worker}, whose {@code process} has exited. */
    void reap(WorkerEntry worker, Process process) {
        int status = process.exitValue();
        WorkerLogPump pump = worker.logPump();
        awaitLastLogLines(pump);
        worker.launch().exited(status);
        String id = Long.toUnsignedString(worker.id);
        Optional<CrashReport.Findings> crash = CrashReport.read(CrashReport.keep(
                runtime.workerDirectory(worker.name()), config.logDir(), process.pid(), "worker " + id));
        removeFiles(worker.name(), worker.socketFile(), id);
        String how = ExitStatus.describe(status)
                + crash.map(CrashReport.Findings::summary).orElse("");
        pump.appendExit(how);
        pump.done().whenComplete((ignored, failure) -> logs.closed(process.pid()));
        if (status == 0) {
            LOG.info("worker {} (pid {}) {}", id, process.pid(), how);
        } else {
            LOG.warn("worker {} (pid {}) {}", id, process.pid(), how);
        }
        table.leave(worker, process);
        metrics.workerExit(status, crash.map(CrashReport.Findings::signal));
        worker.lease().close();
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // the pipe is gone with the process
        }
        worker.dead();
        worker.settled.complete(null);
        worker.gone.complete(null);
    }

    /** Deletes an ended worker's directory and socket file (none on TCP). */
    void removeFiles(String name, Path socketFile, String id) {
        runtime.deleteWorkerDirectory(name);
        if (socketFile != null) {
            try {
                Files.deleteIfExists(socketFile);
            } catch (IOException e) {
                LOG.warn("cannot remove the socket file {} of worker {}: {}", socketFile, id, e.getMessage());
            }
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
}
