// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.framework.domain.WorkerDomain;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.framework.worker.PluginFailure;
import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.service.access.WorkerAccess;
import dev.urom.service.access.WorkerAdmission;
import dev.urom.service.logging.StderrLoggerContextFactory;
import dev.urom.service.metrics.WorkerStats;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.service.os.Affinity;
import dev.urom.service.os.DaemonChannel;
import dev.urom.service.os.DescriptorInput;
import dev.urom.service.os.ParentDeath;
import dev.urom.service.os.ProcessPrivacy;
import dev.urom.service.process.WorkerLaunch;
import dev.urom.service.process.WorkerLine;
import dev.urom.service.process.WorkerLines;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The worker process: loads its plugins, listens for hosts and serves them on one thread (see
 * {@link DataPlane}) until its last host is done.
 *
 * <p>Command line: see {@link WorkerLaunch}. It logs to its stderr, which the daemon writes to
 * the worker's log file (a worker may run as a user who cannot write the log directory). Before it
 * reads the daemon's pipe, the worker is undumpable ({@link ProcessPrivacy}): no other process of
 * its uid reads its memory or attaches to it. The daemon's first line on its pipe (stdin, or the
 * descriptor the launcher moved it to) is the worker's {@link WorkerAccess}: who owns it and the
 * keys its hosts prove; nothing is served before it. Its lines on the pipes are {@link WorkerLine}s:
 * <ul>
 *   <li>on stdout ({@link DaemonChannel}), READY once every plugin is open and the worker listens,
 *       or FAILED and then nothing;
 *   <li>each STATS request on the daemon's pipe answered with its counts;
 *   <li>ENDING when its data plane decides to end (before it tells the last host that its STOP was
 *       taken: the daemon then joins no host to this worker), and its final counts as it ends.
 * </ul>
 * Exit status:
 * 0 when its hosts are done or none came within the idle timeout, 1 for a failed start or when the
 * daemon is gone (stdin closed), 2 for a bad command line. A worker is killed with its parent
 * ({@link ParentDeath}).
 */
public final class WorkerMain {
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    private static final long STATS_WAIT_SECONDS = 5;
    private static final long ACCESS_WAIT_SECONDS = 20;
    private static final CompletableFuture<WorkerAccess> ACCESS = new CompletableFuture<>();

    private static volatile Logger log;
    private static volatile Path socketFile;
    private static volatile DataPlane plane;
    private static volatile DaemonChannel channel;
    private static volatile boolean undumpableFromStart;

    private WorkerMain() {}

    public static void main(String[] args) {
        StderrLoggerContextFactory.select();
        WorkerLaunch arguments;
        try {
            arguments = WorkerLaunch.fromArgv(args);
        } catch (IllegalArgumentException e) {
            // nothing but this line can have been written to stdout yet
            System.out.println(failed(UromStatus.INVALID_VALUE, e.getMessage()));
            System.out.flush();
            System.exit(EXIT_USAGE);
            return;
        }
        // Logging and JNA each take a part of the start-up: set logging up on a second thread while
        // this one loads JNA for the stdout hand-over and the parent-death signal.
        FutureTask<Void> logging = new FutureTask<>(
                () -> StderrLoggerContextFactory.configure(arguments.logLevel(), arguments.sdkLogLevel()), null);
        Thread loggingThread = new Thread(logging, "urom-logging-setup");
        loggingThread.setDaemon(true);
        loggingThread.start();
        DaemonChannel reply = claimReply();
        channel = reply;
        try {
            ParentDeath.arm(ParentDeath.parentPid());
            if (!arguments.dumpable()) {
                undumpableFromStart = ProcessPrivacy.seal();
            }
        } catch (UromException e) {
            send(reply, failed(e.status(), e.getMessage()));
            System.exit(EXIT_FAILED);
        }
        InputStream daemon = arguments.daemonFd() == 0 ? System.in : DescriptorInput.of(arguments.daemonFd());
        StdinWatcher.start(daemon, WorkerMain::daemonSays, WorkerMain::daemonGone);
        System.exit(run(arguments, reply, logging));
    }

    private static int run(WorkerLaunch arguments, DaemonChannel reply, FutureTask<Void> logging) {
        long workerId = arguments.workerId();
        Logger logger;
        try {
            awaitLogging(logging);
            logger = LogManager.getLogger(WorkerMain.class);
            log = logger;
            logger.info(
                    "worker {} (gid {}, pid {}) starting as uid {}, undumpable {}; plugins {}",
                    Long.toUnsignedString(workerId),
                    Long.toUnsignedString(arguments.gid()),
                    ProcessHandle.current().pid(),
                    UnixAccounts.effectiveUid(),
                    arguments.dumpable()
                            ? "no (--dumpable-workers)"
                            : undumpableFromStart ? "from its exec" : "since it started",
                    arguments.plugins());
        } catch (RuntimeException e) {
            return fail(reply, UromStatus.INVALID_VALUE, e.getMessage());
        }
        if (!arguments.cpus().isEmpty()) {
            try {
                Affinity.pinProcess(arguments.cpus());
                logger.info("worker {}: pinned to CPU {}", workerId, Affinity.format(arguments.cpus()));
            } catch (UromException e) {
                return fail(reply, e.status(), e.getMessage());
            }
        }
        WorkerAccess access;
        try {
            access = ACCESS.get(ACCESS_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            return fail(
                    reply,
                    UromStatus.BAD_CONFIG,
                    "the daemon told this worker nothing of its access within " + ACCESS_WAIT_SECONDS + " s");
        } catch (ExecutionException e) {
            return fail(reply, UromStatus.BAD_CONFIG, e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail(reply, UromStatus.SHUTDOWN, "interrupted while waiting for the daemon");
        }
        logger.info("worker {}: owned by {}", workerId, access.owner());
        WorkerDomain domain = new WorkerDomain();
        ConnectionProcesses processes = ConnectionProcesses.open(workerId, arguments.maxHostConnections());
        WorkerHost host = WorkerHost.open(
                workerId,
                arguments.plugins(),
                PluginLoader.standard(),
                WorkerHostConfig.defaults()
                        .withMaxMessageSize(arguments.maxMessageSize())
                        .withDomains(domain::lookupsFor)
                        .withHostProcesses(processes));
        if (!host.failures().isEmpty()) {
            PluginFailure failure = host.failures().values().iterator().next();
            host.close();
            return fail(
                    reply,
                    failure.status(),
                    "plugin '" + failure.spec().name() + "' (" + failure.spec() + "): " + failure.reason());
        }
        ServerSocketChannel server;
        ServiceAddress address;
        try {
            server = listen(arguments);
            address = arguments.listen() == null
                    ? ServiceAddress.of(server.getLocalAddress())
                    : arguments.listen().boundTo(server);
        } catch (IOException e) {
            host.close();
            return fail(
                    reply,
                    UromStatus.IO_FAILED,
                    "cannot listen on " + (arguments.listen() == null ? "the inherited socket" : arguments.listen())
                            + ": " + describe(e));
        }
        int status = EXIT_OK;
        WorkerStats stats = new WorkerStats(
                arguments.plugins().stream().collect(Collectors.toMap(PluginSpec::id, PluginSpec::name)));
        DataPlane.Limits limits = new DataPlane.Limits(
                arguments.maxMessageSize(),
                arguments.idleTimeoutMs(),
                arguments.maxInflight(),
                arguments.maxHostConnections(),
                arguments.handshakeTimeoutMs());
        WorkerAdmission admission = new WorkerAdmission(access, "worker " + Long.toUnsignedString(workerId));
        try (DataPlane dataPlane = new DataPlane(
                workerId,
                host,
                processes,
                domain,
                stats,
                server,
                limits,
                admission,
                access.sealKey(),
                () -> reply.send(WorkerLines.encode(new WorkerLine.Ending())))) {
            plane = dataPlane;
            reply.send(WorkerLines.encode(new WorkerLine.Ready(address)));
            logger.info("worker {}: ready on {}", workerId, address);
            String reason = dataPlane.run();
            logger.info("worker {}: stopping: {}", workerId, reason);
        } catch (IOException e) {
            logger.error("worker {}: the data plane failed: {}", workerId, describe(e));
            reply.send(failed(UromStatus.IO_FAILED, "the data plane failed: " + describe(e)));
            status = EXIT_FAILED;
        } finally {
            host.close();
            closeServer(server, arguments.listen() == null);
        }
        reply.send(WorkerLines.encode(WorkerLine.Stats.last(stats.snapshot())));
        reply.close();
        logger.info("worker {}: stopped", workerId);
        return status;
    }

    /**
     * The listening socket: the one the launcher bound and handed over as stdin, or one bound here
     * (whose socket file this worker then removes as it ends).
     */
    private static ServerSocketChannel listen(WorkerLaunch arguments) throws IOException {
        if (arguments.listen() == null) {
            Channel inherited = System.inheritedChannel();
            if (!(inherited instanceof ServerSocketChannel server)) {
                throw new IOException("stdin is not a listening socket ("
                        + (inherited == null ? "nothing" : inherited.getClass().getSimpleName()) + ")");
            }
            return server;
        }
        ServerSocketChannel server = arguments.listen().bind();
        if (arguments.listen().isUnix()) {
            socketFile = arguments.listen().unixPath();
        }
        return server;
    }

    private static DaemonChannel claimReply() {
        try {
            return DaemonChannel.claim();
        } catch (IOException | LinkageError e) {
            System.out.println(
                    failed(UromStatus.OPERATING_SYSTEM, "cannot set up the start-up reply: " + e.getMessage()));
            System.out.flush();
            System.exit(EXIT_FAILED);
            return null;
        }
    }

    private static int fail(DaemonChannel reply, UromStatus status, String reason) {
        Logger logger = log;
        if (logger != null) {
            logger.error("worker start failed: {}: {}", status, reason);
        }
        send(reply, failed(status, reason));
        return EXIT_FAILED;
    }

    private static String failed(UromStatus status, String reason) {
        return WorkerLines.encode(new WorkerLine.Failed(status, String.valueOf(reason)));
    }

    /** Waits for the logging thread; its failure rethrown as it was thrown. */
    private static void awaitLogging(FutureTask<Void> logging) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    logging.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    throw new IllegalStateException("logging could not be set up: " + e.getCause(), e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Sends a last line (FAILED) and closes the channel. */
    private static void send(DaemonChannel reply, String line) {
        reply.send(line);
        reply.close();
    }

    /**
     * A line from the daemon: the first is this worker's access, every later one a request for
     * counts, answered once the data plane has taken them.
     */
    private static void daemonSays(byte[] line) {
        if (!ACCESS.isDone()) {
            try {
                ACCESS.complete(WorkerLines.decodeAccess(line));
            } catch (IllegalArgumentException e) {
                ACCESS.completeExceptionally(e);
            }
            return;
        }
        WorkerLine said;
        try {
            said = WorkerLines.decode(line);
        } catch (IllegalArgumentException e) {
            return;
        }
        DataPlane dataPlane = plane;
        DaemonChannel out = channel;
        if (!(said instanceof WorkerLine.StatsRequest request) || dataPlane == null || out == null) {
            return;
        }
        try {
            WorkerStatsSnapshot snapshot = dataPlane.requestSnapshot().get(STATS_WAIT_SECONDS, TimeUnit.SECONDS);
            out.send(WorkerLines.encode(new WorkerLine.Stats(request.number(), snapshot)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the plane has closed (the final counts follow) or is stuck in a plugin: the daemon uses what it has
        }
    }

    /** The daemon holds our stdin: its end means the daemon is gone, and so must we be. */
    private static void daemonGone() {
        Logger logger = log;
        if (logger != null) {
            logger.warn("stdin closed: the daemon is gone; exiting at once");
        }
        Path socket = socketFile;
        if (socket != null) {
            try {
                Files.deleteIfExists(socket);
            } catch (IOException ignored) {
                // the daemon's run directory is not ours to keep tidy any more
            }
        }
        Runtime.getRuntime().halt(EXIT_FAILED);
    }

    /**
     * Stops listening. The socket the launcher handed over ({@code inherited}, on stdin) is left
     * to the process's exit: the JDK closes an inherited channel by pointing descriptors 0, 1 and 2
     * at /dev/null, and the worker's last log lines (its stderr) would be lost.
     */
    private static void closeServer(ServerSocketChannel server, boolean inherited) {
        if (!inherited) {
            try {
                server.close();
            } catch (IOException e) {
                log.debug("closing the listening socket failed: {}", describe(e));
            }
        }
        Path socket = socketFile;
        if (socket != null) {
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                log.warn("cannot remove the socket file {}: {}", socket, describe(e));
            }
        }
    }

    private static String describe(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
