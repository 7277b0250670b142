// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.Principal;
import dev.urom.framework.auth.KeyDirectory;
import dev.urom.framework.discovery.DefaultCandidateProber;
import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginDiscovery;
import dev.urom.framework.discovery.PluginIdRegistry;
import dev.urom.framework.discovery.PluginScanner;
import dev.urom.framework.discovery.ScanPolicy;
import dev.urom.framework.discovery.ScanResult;
import dev.urom.framework.security.UnixAccount;
import dev.urom.service.logging.RateLimitedLog;
import dev.urom.service.logging.ServiceLogging;
import dev.urom.service.metrics.WorkerStatsBook;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The UROM daemon: accepts hosts on its control address, answers their requests (plugin list,
 * worker start or join, group membership) and supervises the worker processes it starts.
 *
 * <p>Who may connect: see {@link ControlAdmission} (Unix users by their credentials, key holders by
 * proof, {@code --insecure-tcp} anonymous), {@link SocketAccess} (the modes of the Unix sockets and
 * their directory) and the connection caps ({@code --max-connections}, {@code
 * --max-connections-per-principal}). Workers run as {@link WorkerRuntime} says.
 *
 * <p>When it listens on a Unix socket, its workers listen on sockets in a run directory next to
 * it ({@code <socket>.workers/worker-<id>-<launch>.sock}); on TCP, on the daemon's host with a port of
 * their choosing. The launcher binds them before the worker drops its privileges.
 *
 * <p>Registers nothing global (no shutdown hook, no logging set-up: see {@link
 * #configureLogging}). Thread-safe. One thread accepts; each connection has a thread of a cached
 * pool; workers are spawned from one long-lived thread.
 */
public final class Daemon implements AutoCloseable {
    private static final Logger LOG = LogManager.getLogger(Daemon.class);
    private static final String RUN_DIR_SUFFIX = ".workers";
    private static final long STATS_WAIT_MILLIS = 1000;
    private static final long ACCEPT_BACKOFF_MIN_MILLIS = 10;
    private static final long ACCEPT_BACKOFF_MAX_MILLIS = 1000;
    private static final Duration ACCEPT_FAILURE_REPORT_INTERVAL = Duration.ofMinutes(1);
    private static final String ACCEPT_TRANSITIONS = "accepting host connections";
    private static final int ACCEPT_TRANSITIONS_PER_MINUTE = 10;

    private final DaemonConfig config;
    private final ServerSocketChannel server;
    private final ServiceAddress address;
    private final ControlAdmission admission;
    private final SocketAccess sockets;
    private final WorkerRuntime runtime;
    private final ConnectionLimits connectionLimits;
    private final Path runDir;
    private final WorkerSupervisor supervisor;
    private final ControlRequests requests;
    private final WorkerStartLane startLane;
    private final PluginDiscovery discovery;
    private final DaemonMetrics metrics = new DaemonMetrics();
    private final WorkerStatsBook workerStats = new WorkerStatsBook();
    private final ExecutorService connectionThreads =
            Executors.newCachedThreadPool(DaemonThreads.numbered("urom-daemon-connection-"));
    private final Set<ControlConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionNumbers = new AtomicLong();
    private final Thread acceptor;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final Object closeLock = new Object();
    private volatile boolean closing;
    private final RateLimitedLog acceptTransitions =
            new RateLimitedLog(LOG, ACCEPT_TRANSITIONS_PER_MINUTE, Duration.ofMinutes(1));
    /** What hosts cause at will (refused connections and handshakes): 20 lines of a kind per 10 s at most. */
    private final RateLimitedLog hostRefusals = new RateLimitedLog(LOG, 20, Duration.ofSeconds(10));
    /** Why the last accept failed; null while accepting works. */
    private volatile String acceptFailure;

    private Daemon(
            DaemonConfig config,
            ServerSocketChannel server,
            ServiceAddress address,
            Path runDir,
            PluginDiscovery discovery,
            KeyDirectory keys,
            SocketAccess sockets,
            WorkerRuntime runtime) {
        this.config = config;
        this.server = server;
        this.address = address;
        this.admission = new ControlAdmission(keys, config.security().insecureTcp());
        this.connectionLimits = new ConnectionLimits(config.security().maxConnectionsPerPrincipal());
        this.runDir = runDir;
        this.discovery = discovery;
        this.sockets = sockets;
        this.runtime = runtime;
        this.supervisor =
                new WorkerSupervisor(config, discovery.registry(), runtime, this::workerListen, metrics, workerStats);
        CpuSet cpus = CpuSet.ofThisProcess();
        this.requests = new ControlRequests(
                config.pluginPath(),
                discovery,
                new StartRequestCheck(
                        cpus, new WorkerEnvironment(config.security().workerEnvAllow())),
                supervisor,
                cpus,
                config.maxWorkersPerPrincipal());
        this.startLane = new WorkerStartLane(config.maxWorkers());
        this.metrics.watch(supervisor::snapshot, connections::size, discovery, this::freshWorkerTotals);
        this.acceptor = DaemonThreads.daemon(this::acceptLoop, "urom-daemon-accept");
    }

    /**
     * Scans the plugin path, binds the control address and starts serving.
     *
     * @throws IOException one line when the address cannot be bound (in use by a live daemon, not
     *     a socket, no permission) or the run directory cannot be made
     */
    public static Daemon start(DaemonConfig config) throws IOException {
        return start(
                config,
                (ScanPolicy policy) -> new PluginDiscovery(
                        new PluginScanner(new DefaultCandidateProber(), policy), new PluginIdRegistry()));
    }

    /**
     * {@link #start(DaemonConfig)} with the discovery that {@code discovery} makes for the daemon's
     * scan policy (tests look at its id registry).
     */
    static Daemon start(DaemonConfig config, Function<ScanPolicy, PluginDiscovery> discoveryFor) throws IOException {
        requireNonNull(config, "config is null");
        KeyDirectory keys = keyDirectory(config);
        SocketAccess sockets = SocketAccess.of(config.security().socketGroup());
        WorkerRuntime runtime = WorkerRuntime.start(config.security());
        PluginDiscovery discovery =
                requireNonNull(discoveryFor.apply(scanPolicy(config, runtime)), "discovery is null");
        ServerSocketChannel server;
        try {
            if (config.listen().isUnix()) {
                sockets.prepareDirectory(config.listen().unixPath().getParent());
            }
            server = config.listen().bind();
        } catch (IOException e) {
            runtime.close();
            throw new IOException("cannot listen on " + config.listen() + ": " + e.getMessage(), e);
        }
        Path runDir = null;
        try {
            ServiceAddress address = config.listen().boundTo(server);
            if (address.isUnix()) {
                sockets.restrict(address.unixPath(), sockets.socketMode());
                runDir = prepareRunDir(address.unixPath(), sockets);
            }
            ScanResult scan = discovery.scan(config.pluginPath());
            Daemon daemon = new Daemon(config, server, address, runDir, discovery, keys, sockets, runtime);
            daemon.acceptor.start();
            LOG.info(
                    "daemon listening on {} (pid {}); plugins: {}; max workers {}, max message size {} bytes; keys: {}",
                    address,
                    ProcessHandle.current().pid(),
                    describe(scan.plugins()),
                    config.maxWorkers(),
                    config.maxMessageSize(),
                    keys == null ? "none" : keys.directory());
            if (!address.isUnix() && config.security().insecureTcp()) {
                LOG.warn(
                        "--insecure-tcp: any client that reaches {} may start workers and use them without a key; give --auth-keys instead",
                        address);
            }
            return daemon;
        } catch (IOException | RuntimeException e) {
            server.close();
            runtime.close();
            if (config.listen().isUnix()) {
                Files.deleteIfExists(config.listen().unixPath());
            }
            throw e;
        }
    }

    /**
     * Which plugin files the daemon probes and offers: those of directories and files that only root
     * and the daemon's user can change (or any, with a warning, under {@code
     * --allow-insecure-plugin-dirs}), and that workers of other users can read.
     */
    private static ScanPolicy scanPolicy(DaemonConfig config, WorkerRuntime runtime) {
        ScanPolicy policy =
                ScanPolicy.secure().withAllowInsecure(config.security().allowInsecurePluginDirs());
        return runtime.otherUsers() ? policy.withReader(runtime.everyWorker()) : policy;
    }

    /**
     * The daemon's key directory, checked; refuses a TCP listener that would admit nobody it can
     * identify.
     */
    private static KeyDirectory keyDirectory(DaemonConfig config) throws IOException {
        KeyDirectory keys = null;
        if (config.security().authKeys() != null) {
            try {
                keys = KeyDirectory.open(config.security().authKeys());
            } catch (UromException e) {
                throw new IOException(e.getMessage(), e);
            }
        }
        if (config.security().admitsNobodyOn(config.listen())) {
            throw new IOException("listening on " + config.listen()
                    + " needs keys to know who connects: give --auth-keys DIR (one key "
                    + "file per principal), or --insecure-tcp to let anyone who reaches the port in");
        }
        return keys;
    }

    /**
     * Sets up the daemon's logging: {@code <logDir>/urom_daemon_dev.log} at the configured levels,
     * rolled as {@link DaemonConfig#logRolling()} says, and WARN and above on stderr.
     *
     * @return {@code config} with the log directory actually used (the fallback when its own is
     *     not writable), so that the workers it starts log, and leave crash reports, next to the
     *     daemon's log
     */
    public static DaemonConfig configureLogging(DaemonConfig config) {
        Path file = ServiceLogging.configure(
                config.logDir(),
                ServiceLogging.DAEMON_LOG_FILE,
                config.logLevel(),
                config.sdkLogLevel(),
                true,
                config.logRolling());
        return config.toBuilder().logDir(file.getParent()).build();
    }

    /** The daemon's log file in the log directory of {@code config}. */
    public static Path logFile(DaemonConfig config) {
        return config.logDir().resolve(ServiceLogging.DAEMON_LOG_FILE);
    }

    /** The address the daemon actually listens on (for TCP port 0: the port it got). */
    public ServiceAddress address() {
        return address;
    }

    /** The configuration the daemon was started with. */
    public DaemonConfig config() {
        return config;
    }

    /**
     * Who the workers of {@code principal} run as (for a root daemon's principal of its own: a uid is
     * taken for it now).
     *
     * @throws UromException as a worker start of that principal would be refused
     */
    public UnixAccount workerAccount(Principal principal) throws UromException {
        return runtime.accountFor(principal);
    }

    /** The workers now starting or running, by id. */
    public List<WorkerInfo> workers() {
        return supervisor.snapshot();
    }

    /** Whether the daemon accepts hosts: started and not closing. */
    public boolean isServing() {
        return !closing && terminated.getCount() > 0;
    }

    /**
     * Why the daemon is not healthy, or empty while it serves hosts: {@code the daemon is shutting
     * down}, or {@code accepting host connections fails: <reason>} (e.g. {@code Too many open
     * files}) while new host connections cannot be accepted.
     */
    public Optional<String> unhealthyReason() {
        if (!isServing()) {
            return Optional.of("the daemon is shutting down");
        }
        String failure = acceptFailure;
        return failure == null ? Optional.empty() : Optional.of("accepting host connections fails: " + failure);
    }

    /** The Prometheus content type of {@link #writeMetrics}. */
    public String metricsContentType() {
        return metrics.contentType();
    }

    /**
     * Writes every metric in the Prometheus text format, after asking each running worker for its
     * counts (a worker that does not answer within {@value #STATS_WAIT_MILLIS} ms is shown with its
     * last counts).
     */
    public void writeMetrics(OutputStream out) throws IOException {
        metrics.writeTo(out);
    }

    private WorkerStatsSnapshot freshWorkerTotals() {
        metrics.workerStatsTimeouts(supervisor.refreshStats(Duration.ofMillis(STATS_WAIT_MILLIS)));
        return workerStats.total();
    }

    /** How many plugins the last scan of the plugin path accepted. */
    public int acceptedPlugins() {
        return discovery.lastScan().plugins().size();
    }

    /**
     * Shuts down in order: stops accepting, closes every host connection, ends every worker and
     * waits for it, removes the socket file and the run directory. Idempotent; a second caller
     * waits until the first has finished.
     */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (terminated.getCount() == 0) {
                return;
            }
            closing = true;
            LOG.info("daemon on {} shutting down", address);
            try {
                server.close();
            } catch (IOException e) {
                LOG.warn("closing the control socket failed: {}", e.getMessage());
            }
            joinQuietly(acceptor);
            connections.forEach(ControlConnection::close);
            supervisor.close();
            startLane.close();
            runtime.close();
            connectionThreads.shutdownNow();
            try {
                connectionThreads.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            removeFiles();
            LOG.info("daemon on {} stopped", address);
            terminated.countDown();
        }
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /** Blocks until {@link #close()} has finished or {@code timeout} passed; whether it finished. */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Accepts hosts until the daemon closes. A failed accept (at the open-files limit: EMFILE)
     * does not end it: the failure is logged at once and then at most once a minute while it
     * lasts, the loop backs off ({@value #ACCEPT_BACKOFF_MIN_MILLIS} ms doubling up to {@value
     * #ACCEPT_BACKOFF_MAX_MILLIS} ms) and tries again, {@link #unhealthyReason} names the failure,
     * and one line says when accepting works again. At the limit, a descriptor freed for a moment
     * lets one accept through, so failing and working may alternate quickly: those two lines are
     * rate-limited together ({@value #ACCEPT_TRANSITIONS_PER_MINUTE} a minute).
     */
    private void acceptLoop() {
        long failures = 0;
        long failingSince = 0;
        long lastReport = 0;
        long backoffMillis = 0;
        while (!closing) {
            SocketChannel socket;
            try {
                socket = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closing) {
                    return;
                }
                long now = System.nanoTime();
                String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                acceptFailure = reason;
                if (failures++ == 0) {
                    failingSince = now;
                    lastReport = now;
                    backoffMillis = ACCEPT_BACKOFF_MIN_MILLIS;
                    acceptTransitions.log(
                            ACCEPT_TRANSITIONS,
                            Level.ERROR,
                            "accepting host connections fails: {}; trying again, and /healthz answers 503 until it works",
                            reason);
                } else {
                    backoffMillis = Math.min(2 * backoffMillis, ACCEPT_BACKOFF_MAX_MILLIS);
                    if (now - lastReport >= ACCEPT_FAILURE_REPORT_INTERVAL.toNanos()) {
                        lastReport = now;
                        LOG.error(
                                "accepting host connections still fails: {} ({} failures in {} s)",
                                reason,
                                failures,
                                TimeUnit.NANOSECONDS.toSeconds(now - failingSince));
                    }
                }
                try {
                    Thread.sleep(backoffMillis);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                continue;
            }
            if (failures > 0) {
                acceptTransitions.log(
                        ACCEPT_TRANSITIONS,
                        Level.INFO,
                        "accepting host connections again, after {} failures in {} ms",
                        failures,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failingSince));
                failures = 0;
                acceptFailure = null;
            }
            long number = connectionNumbers.incrementAndGet();
            metrics.controlConnectionAccepted();
            String peer = ControlConnection.describe(number, socket);
            FrameChannel channel = new FrameChannel(socket, Protocol.CONTROL_FRAME_LIMIT);
            if (connections.size() >= config.security().maxConnections()) {
                refuseFull(channel, peer);
                continue;
            }
            ControlConnection connection = new ControlConnection(
                    channel,
                    peer,
                    config.maxMessageSize(),
                    config.security().handshakeTimeout(),
                    admission,
                    connectionLimits,
                    requests,
                    startLane,
                    hostRefusals,
                    connections::remove);
            connections.add(connection);
            try {
                connectionThreads.execute(connection);
            } catch (RejectedExecutionException e) {
                connections.remove(connection);
                connection.close();
                return;
            }
            if (closing) {
                connection.close();
            }
        }
    }

    /** Refuses a connection over {@code --max-connections}: ERROR FULL as far as the socket takes it, then closed. */
    private void refuseFull(FrameChannel channel, String peer) {
        String message = "the daemon has its maximum of " + config.security().maxConnections()
                + " connections (--max-connections)";
        hostRefusals.warn("connections over --max-connections", "{} refused: {}", peer, message);
        try {
            channel.socket().configureBlocking(false);
            channel.socket().write(FrameCodec.encode(0, new Message.ErrorReply(UromStatus.FULL, message)));
        } catch (IOException e) {
            // the refusal is best effort
        }
        channel.close();
    }

    /** Where the worker named {@code name}, owned by {@code owner}, is to listen: the launcher's options. */
    private WorkerSupervisor.Listen workerListen(String name, Principal owner) {
        if (runDir != null) {
            Path socket = runDir.resolve(name + ".sock");
            return new WorkerSupervisor.Listen(sockets.workerSocketOptions(socket, owner), socket);
        }
        return new WorkerSupervisor.Listen(List.of("--listen-tcp", address.host()), null);
    }

    private static Path prepareRunDir(Path socket, SocketAccess sockets) throws IOException {
        Path runDir = socket.resolveSibling(socket.getFileName() + RUN_DIR_SUFFIX);
        FileTrees.delete(runDir);
        Files.createDirectory(
                runDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        sockets.restrict(runDir, sockets.directoryMode());
        return runDir;
    }

    private void removeFiles() {
        try {
            if (address.isUnix()) {
                Files.deleteIfExists(address.unixPath());
            }
            if (runDir != null) {
                FileTrees.delete(runDir);
            }
        } catch (IOException e) {
            LOG.warn("removing the daemon's socket files failed: {}", e.getMessage());
        }
    }

    private static String describe(List<DiscoveredPlugin> plugins) {
        if (plugins.isEmpty()) {
            return "none";
        }
        return plugins.stream()
                .map(p -> p.name() + " (" + StartRequestCheck.hex(p.id()) + ", "
                        + p.kind().label() + ")")
                .collect(Collectors.joining(", "));
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
