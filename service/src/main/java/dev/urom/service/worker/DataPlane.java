// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.Proofs;
import dev.urom.framework.domain.DomainTable;
import dev.urom.framework.domain.WorkerDomain;
import dev.urom.framework.security.PeerCredentials;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.service.access.WorkerAdmission;
import dev.urom.service.logging.LogText;
import dev.urom.service.logging.RateLimitedLog;
import dev.urom.service.metrics.WorkerStats;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.service.os.WakeupWatcher;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import dev.urom.wire.DomainPeer;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.FrameDecoder;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.AddressRequest;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.DomainSet;
import dev.urom.wire.Message.DomainSetReply;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Stop;
import dev.urom.wire.Message.StopOk;
import dev.urom.wire.Message;
import dev.urom.wire.MessageType;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServerHandshake;
import dev.urom.wire.WireException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The worker's data plane: one thread, one {@link Selector} over the listening socket and every
 * host connection, driving the {@link WorkerHost}.
 *
 * <p>Each connection must open with the handshake ({@link ServerHandshake}; the {@link
 * WorkerAdmission} lets in the worker's owner only), within the handshake timeout and with frames of
 * at most {@link Protocol#HANDSHAKE_FRAME_LIMIT} bytes until then, and gets its own dest id in
 * HELLO_OK; from its accept to its close, the process at its other end (a Unix socket's peer) is
 * what the plugins' host-process look-ups answer for that id ({@link ConnectionProcesses}).
 * At most {@link Limits#maxConnections} connections are served at once; a connection may
 * have at most {@link Limits#maxInflight} commands outstanding (one more is answered AGAIN by the
 * worker without reaching the plugin), and the worker stops reading a connection while more than
 * {@link #OUTPUT_PAUSE_BYTES} (or two frames) of its output wait to be written. A COMMAND goes to
 * {@link WorkerHost#submit} with the connection's dest id; every
 * notification the host produces goes back, as a NOTIFY packed by its plugin's {@code
 * packNotification} (the worker's own answers, {@link WorkerHost#isWorkerAnswer}, packed by the
 * worker), to the connection with that dest id (dropped when that connection has gone).
 * ADDRESS is answered (same request id) with the named plugin's {@code address()}, the transport it
 * names ({@link WorkerHost#transport}) and this worker's seal over both; DOMAIN_SET installs the
 * domain table into the {@link WorkerDomain} that the
 * plugins' look-ups read, or refuses it: NOT_PERMITTED when an address's seal does not match (it is
 * not one a worker of this owner published), INVALID_VALUE for a malformed table, each with a
 * one-line reason. STOP is answered with STOP_OK after the notifications of the same round, then the connection
 * closes. A frame over the limit, malformed, of an unknown type or unexpected closes that
 * connection only (with a best-effort ERROR), logged as a warning.
 *
 * <p>While commands are in flight the loop polls ({@code selectNow} and {@code progress}): it spins
 * for 50 us; then, when every plugin with commands in flight has a wake-up descriptor ({@link
 * PluginIface#wakeupFd()}) and {@link PluginIface#armWakeup()} says armed for each, it blocks in
 * {@code select} until a host socket is ready or a {@link WakeupWatcher} sees one of those
 * descriptors readable and wakes the selector (or {@value #ARMED_SELECT_MS} ms pass, less when a
 * handshake deadline is nearer). Otherwise it parks between polls for 10 us doubling up to 100 us,
 * because what such a plugin waits for (a peer's message on its own socket) is not in this
 * selector. A plugin whose arm call fails is polled from then on (logged once). When idle it blocks
 * in {@code select}. Every plugin call is made on this thread; the watcher only polls descriptors.
 *
 * <p>It counts what it does in a {@link WorkerStats}, which only its thread touches; another
 * thread gets a copy with {@link #requestSnapshot()}, served at the end of the first turn of the
 * loop whose {@code select} began after the request: by then the loop has read what the hosts had
 * sent before it (a STOP, a closed connection) and acted on it.
 *
 * <p>Not thread-safe apart from {@link #requestSnapshot()}: {@link #run} and {@link #close} are
 * called by the thread that owns the worker host. {@link #run} returns when the worker should end: its last connection closed after at
 * least one handshake, or no host completed a handshake within the idle timeout.
 *
 * <p>The worker decides to end once, and says so first: when a round's STOPs leave no connection
 * that is handshaking or open, when the last connection closes, at the idle timeout, or at {@link
 * #close}, the loop runs the {@code ending} action it was given (which tells the daemon, see {@link
 * dev.urom.service.metrics.StatsLine#ENDING}) before it writes those STOP_OKs and before it answers
 * any later snapshot request. From then on it accepts no host: a connection that still arrives is
 * answered ERROR SHUTDOWN and closed. So no host can learn its STOP was taken, and no snapshot
 * request made after a host stopped or closed can be answered, before the daemon has the ENDING.
 */
final class DataPlane implements AutoCloseable {
    /**
     * The data plane's bounds.
     *
     * @param maxMessageSize largest command, header included
     * @param idleTimeoutMillis how long to wait for the first host
     * @param maxInflight most commands outstanding per connection
     * @param maxConnections most host connections at once, handshaking ones included
     * @param handshakeTimeoutMillis how long a connection may take for its handshake
     */
    record Limits(int maxMessageSize, long idleTimeoutMillis, int maxInflight, int maxConnections, long handshakeTimeoutMillis) {
    }

    private static final Logger LOG = LogManager.getLogger(DataPlane.class);
    /** Refused connections are the hosts' doing: 20 lines of a kind per 10 s at most. */
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LOG, 20, Duration.ofSeconds(10));
    /** Output waiting for a connection above which the worker stops reading it (at least two frames). */
    static final int OUTPUT_PAUSE_BYTES = 1 << 20;
    private static final long ACCEPT_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int READ_BUFFER_BYTES = 64 * 1024;
    private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    private static final long IDLE_SELECT_MS = 100;
    private static final long MIN_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(10);
    private static final long MAX_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
    /** The longest sleep on armed wake-up descriptors (nothing else needs the loop sooner but a handshake deadline). */
    static final long ARMED_SELECT_MS = 1000;
    private static final int FD_UNKNOWN = -2;
    private static final int FD_NONE = -1;
    private static final byte[] NO_PAYLOAD = new byte[0];
    /** Where {@code struct urom_worker_notify} keeps len and status: after type and urom_context. */
    private static final int PACKED_LEN_OFFSET = 16;
    private static final int PACKED_STATUS_OFFSET = 24;
    private static final int STATUS_COUNT = UromStatus.values().length;
    /** Little-endian reads of a packed notification's fields, without a ByteBuffer per notification (workers run C1, which does not elide them). */
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final long workerId;
    private final WorkerHost host;
    private final ConnectionProcesses processes;
    private final WorkerDomain domain;
    private final WorkerStats stats;
    /** A snapshot request not yet taken by the loop. */
    private final AtomicReference<CompletableFuture<WorkerStatsSnapshot>> snapshotRequest = new AtomicReference<>();
    /** The request the loop took at the start of this turn, answered at its end (only the loop's thread touches it). */
    private CompletableFuture<WorkerStatsSnapshot> takenRequest;
    private final ServerSocketChannel server;
    private final SelectionKey serverKey;
    private final Selector selector;
    private final Limits limits;
    private final WorkerAdmission admission;
    private final byte[] sealKey;
    private final int frameLimit;
    private final int outputPauseBytes;
    private final long idleTimeoutNanos;
    private final long handshakeTimeoutNanos;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BUFFER_BYTES);
    private final ByteBuffer writeBuffer;
    private final List<HostConnection> connections = new ArrayList<>();
    private final Consumer<SelectionKey> onReady = this::onReady;
    private final Consumer<WorkerNotification> onNotification = this::deliver;
    private final Runnable ending;
    private long nextConnectionId = 1;
    private long inFlight;
    /** Commands in flight by plugin id bit; commands of an id that is not a single bit count in {@link #otherInFlight}. */
    private final long[] inFlightByBit = new long[64];
    private long otherInFlight;
    /** Each plugin id bit's wake-up descriptor: {@link #FD_UNKNOWN} until asked, {@link #FD_NONE} when polled. */
    private final int[] wakeupFds = new int[64];
    private final int[] armedFds = new int[64];
    private WakeupWatcher watcher;
    private boolean watcherFailed;
    private boolean sleepArmed;
    private long acceptPausedUntil;
    private boolean acceptPaused;
    private boolean everConnected;
    private boolean stopsPending;
    private boolean activity;
    /** The worker has decided to end (and said so): it takes no new connection. */
    private boolean endingAnnounced;
    private volatile boolean closed;

    /**
     * @param processes where each connection's process is entered while it is open
     * @param server bound, in any blocking mode; owned by the caller
     * @param admission who may connect
     * @param sealKey the key of this worker's address seals
     * @param ending run once, on the loop's thread, when the worker decides to end; it has told the daemon when it returns
     * @throws IOException when the selector cannot be opened or the server registered
     */
    DataPlane(long workerId, WorkerHost host, ConnectionProcesses processes, WorkerDomain domain, WorkerStats stats,
            ServerSocketChannel server, Limits limits, WorkerAdmission admission, byte[] sealKey, Runnable ending) throws IOException {
        this.workerId = workerId;
        this.host = requireNonNull(host, "host is null");
        this.processes = requireNonNull(processes, "processes is null");
        this.domain = requireNonNull(domain, "domain is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.server = requireNonNull(server, "server is null");
        this.limits = requireNonNull(limits, "limits is null");
        this.admission = requireNonNull(admission, "admission is null");
        this.sealKey = requireNonNull(sealKey, "sealKey is null").clone();
        this.ending = requireNonNull(ending, "ending is null");
        this.frameLimit = Protocol.dataFrameLimit(limits.maxMessageSize());
        this.outputPauseBytes = Math.max(OUTPUT_PAUSE_BYTES, 2 * (Protocol.LENGTH_FIELD_BYTES + frameLimit));
        this.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.idleTimeoutMillis());
        this.handshakeTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.handshakeTimeoutMillis());
        this.writeBuffer = ByteBuffer.allocateDirect(Protocol.LENGTH_FIELD_BYTES + frameLimit).order(ByteOrder.LITTLE_ENDIAN);
        this.selector = Selector.open();
        Arrays.fill(wakeupFds, FD_UNKNOWN);
        server.configureBlocking(false);
        this.serverKey = server.register(selector, SelectionKey.OP_ACCEPT);
    }

    /**
     * Serves hosts until the worker should end.
     *
     * @return why it ended, one line for the log
     * @throws IOException when the selector or the listening socket fails
     */
    String run() throws IOException {
        long idleDeadline = System.nanoTime() + idleTimeoutNanos;
        long spinStart = 0;
        long parkNanos = 0;
        while (true) {
            activity = false;
            // taken before this turn's select, answered after it: the turn reads what came before the request
            takenRequest = snapshotRequest.getAndSet(null);
            if (takenRequest != null) {
                sleepArmed = false;
                selector.selectNow(onReady);
            } else if (sleepArmed) {
                sleepArmed = false;
                selector.select(onReady, armedTimeoutMillis(System.nanoTime()));
            } else if (inFlight > 0) {
                selector.selectNow(onReady);
            } else {
                long timeout = IDLE_SELECT_MS;
                if (!everConnected) {
                    long left = TimeUnit.NANOSECONDS.toMillis(idleDeadline - System.nanoTime());
                    timeout = Math.max(1, Math.min(timeout, left));
                }
                selector.select(onReady, timeout);
            }
            if (host.progress(onNotification) > 0) {
                activity = true;
            }
            if (stopsPending) {
                finishStops();
            }
            long now = System.nanoTime();
            if (acceptPaused && now - acceptPausedUntil >= 0) {
                acceptPaused = false;
                serverKey.interestOps(SelectionKey.OP_ACCEPT);
            }
            dropLateHandshakes(now);
            String end = endReason(idleDeadline);
            if (takenRequest != null) {
                takenRequest.complete(stats.snapshot());
                takenRequest = null;
            }
            if (end != null) {
                return end;
            }
            if (activity || inFlight == 0) {
                spinStart = 0;
                parkNanos = 0;
            } else if (spinStart == 0) {
                spinStart = System.nanoTime();
            } else if (parkNanos == 0 && System.nanoTime() - spinStart <= SPIN_NANOS) {
                Thread.onSpinWait();
            } else if (armAll()) {
                sleepArmed = true;
            } else {
                // A plugin's own sockets (a peer's message) are not in this selector: poll, briefly.
                parkNanos = Math.min(Math.max(MIN_PARK_NANOS, parkNanos * 2), MAX_PARK_NANOS);
                LockSupport.parkNanos(parkNanos);
            }
        }
    }

    /** Why the worker ends now (having said that it ends), or null while it serves. */
    private String endReason(long idleDeadline) {
        String reason = null;
        if (everConnected && connections.isEmpty()) {
            reason = "the last host connection has closed";
        } else if (!everConnected && System.nanoTime() - idleDeadline >= 0) {
            reason = "no host connected within " + TimeUnit.NANOSECONDS.toMillis(idleTimeoutNanos) + " ms";
        }
        if (reason != null) {
            announceEnding();
        }
        return reason;
    }

    /** Decides that the worker ends, telling the daemon first; once. */
    private void announceEnding() {
        if (!endingAnnounced) {
            endingAnnounced = true;
            ending.run();
            LOG.debug("worker {}: ending; the daemon has been told", workerId);
        }
    }

    /**
     * Arms the wake-up descriptor of every plugin with commands in flight and hands them to the
     * watcher. False (poll instead) when one has no descriptor, says AGAIN, or fails to arm.
     */
    private boolean armAll() {
        if (otherInFlight > 0 || watcherFailed) {
            return false;
        }
        if (watcher != null) {
            forgetInvalid(watcher.takeInvalid());
        }
        int count = 0;
        for (int bit = 0; bit < 64; bit++) {
            if (inFlightByBit[bit] > 0) {
                int fd = wakeupFd(bit);
                if (fd < 0) {
                    return false;
                }
                armedFds[count++] = fd;
            }
        }
        if (count == 0) {
            return false;
        }
        for (int bit = 0; bit < 64; bit++) {
            if (inFlightByBit[bit] > 0 && !arm(bit)) {
                return false;
            }
        }
        if (watcher == null) {
            try {
                watcher = WakeupWatcher.start(selector::wakeup, "urom-wakeup-" + workerId);
            } catch (IOException | RuntimeException e) {
                LOG.warn("worker {}: cannot watch wake-up descriptors ({}); plugins are polled", workerId, e.getMessage());
                watcherFailed = true;
                return false;
            }
        }
        watcher.watch(armedFds, count);
        return true;
    }

    /** The wake-up descriptor of the plugin with id bit {@code bit}, asked once; negative when it is polled. */
    private int wakeupFd(int bit) {
        int fd = wakeupFds[bit];
        if (fd != FD_UNKNOWN) {
            return fd;
        }
        PluginIface plugin = host.plugin(1L << bit).orElse(null);
        fd = FD_NONE;
        if (plugin != null) {
            try {
                OptionalInt given = plugin.wakeupFd();
                if (given.isPresent() && given.getAsInt() >= 0) {
                    fd = given.getAsInt();
                    LOG.debug("worker {}: plugin 0x{} wakes the worker through descriptor {}", workerId, Long.toHexString(1L << bit), fd);
                }
            } catch (RuntimeException | StackOverflowError e) {
                LOG.warn("worker {}: plugin 0x{} threw when asked for its wake-up descriptor; it is polled", workerId,
                        Long.toHexString(1L << bit), e);
            }
        } else {
            // no opened plugin (its commands are answered at once): ask again should it ever have commands in flight
            return FD_NONE;
        }
        wakeupFds[bit] = fd;
        return fd;
    }

    private boolean arm(int bit) {
        PluginIface plugin = host.plugin(1L << bit).orElse(null);
        if (plugin == null) {
            return false;
        }
        try {
            return plugin.armWakeup();
        } catch (UromException e) {
            LOG.warn("worker {}: plugin 0x{} could not arm its wake-up descriptor: {}: {}; it is polled from now on", workerId,
                    Long.toHexString(1L << bit), e.status(), e.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            LOG.warn("worker {}: plugin 0x{} threw arming its wake-up descriptor; it is polled from now on", workerId,
                    Long.toHexString(1L << bit), e);
        }
        wakeupFds[bit] = FD_NONE;
        return false;
    }

    /** A descriptor that the watcher found closed: its plugin is polled from now on. */
    private void forgetInvalid(int fd) {
        if (fd < 0) {
            return;
        }
        for (int bit = 0; bit < 64; bit++) {
            if (wakeupFds[bit] == fd) {
                LOG.warn("worker {}: the wake-up descriptor {} of plugin 0x{} is not open; it is polled from now on", workerId, fd,
                        Long.toHexString(1L << bit));
                wakeupFds[bit] = FD_NONE;
            }
        }
    }

    /** How long an armed sleep may last: {@link #ARMED_SELECT_MS}, or until the nearest handshake deadline or accept pause ends. */
    private long armedTimeoutMillis(long now) {
        long until = TimeUnit.MILLISECONDS.toNanos(ARMED_SELECT_MS);
        for (int i = 0; i < connections.size(); i++) {
            HostConnection connection = connections.get(i);
            if (connection.state() == HostConnection.State.AWAITING_HELLO) {
                until = Math.min(until, connection.handshakeDeadline() - now);
            }
        }
        if (acceptPaused) {
            until = Math.min(until, acceptPausedUntil - now);
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(until) + 1);
    }

    private void countSubmitted(long type) {
        if (Long.bitCount(type) == 1) {
            inFlightByBit[Long.numberOfTrailingZeros(type)]++;
        } else {
            otherInFlight++;
        }
    }

    private void countAnswered(long type) {
        if (Long.bitCount(type) == 1) {
            int bit = Long.numberOfTrailingZeros(type);
            if (inFlightByBit[bit] > 0) {
                inFlightByBit[bit]--;
            }
        } else if (otherInFlight > 0) {
            otherInFlight--;
        }
    }

    /**
     * Asks the loop for a copy of its counts, taken at the end of the first turn whose {@code select}
     * begins after this call. Thread-safe; a request made while another is pending (not yet taken
     * by a turn) shares its answer. Completes exceptionally once the plane is closed.
     */
    CompletableFuture<WorkerStatsSnapshot> requestSnapshot() {
        CompletableFuture<WorkerStatsSnapshot> request = new CompletableFuture<>();
        CompletableFuture<WorkerStatsSnapshot> pending = snapshotRequest.compareAndExchange(null, request);
        if (pending != null) {
            return pending;
        }
        if (closed) {
            snapshotRequest.compareAndSet(request, null);
            request.completeExceptionally(new IllegalStateException("the data plane has closed"));
        } else {
            selector.wakeup();
        }
        return request;
    }

    private void onReady(SelectionKey key) {
        activity = true;
        if (key.channel() == server) {
            accept();
            return;
        }
        HostConnection connection = (HostConnection) key.attachment();
        try {
            if (key.isValid() && key.isReadable()) {
                read(connection);
            }
            if (key.isValid() && key.isWritable() && connection.flush(outputPauseBytes) && connection.state() == HostConnection.State.CLOSING) {
                drop(connection, connection.closeReason());
            }
        } catch (IOException e) {
            drop(connection, "I/O failed: " + e.getMessage());
        }
    }

    private void accept() {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                // out of descriptors, most likely: stop accepting for a moment instead of spinning on a ready socket
                LOG.warn("worker {}: accepting a host connection failed: {}; accepting again in {} ms", workerId, e.getMessage(),
                        TimeUnit.NANOSECONDS.toMillis(ACCEPT_PAUSE_NANOS));
                acceptPaused = true;
                acceptPausedUntil = System.nanoTime() + ACCEPT_PAUSE_NANOS;
                serverKey.interestOps(0);
                return;
            }
            if (channel == null) {
                return;
            }
            if (endingAnnounced) {
                String reason = "worker " + Long.toUnsignedString(workerId) + " is ending: its last host connection has stopped or closed";
                REFUSALS.warn("connections to an ending worker", "worker {}: host connection refused: {}", workerId, reason);
                refuseUnaccepted(channel, UromStatus.SHUTDOWN, reason);
                continue;
            }
            if (connections.size() >= limits.maxConnections()) {
                refuseOverLimit(channel);
                continue;
            }
            try {
                channel.configureBlocking(false);
                if (channel.supportedOptions().contains(StandardSocketOptions.TCP_NODELAY)) {
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                }
                long id = nextConnectionId++;
                ServerHandshake handshake = new ServerHandshake(Proofs.Channel.DATA, admission.forPeer(PeerCredentials.uid(channel)),
                        limits.maxMessageSize(), id, limits.maxInflight());
                SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
                HostConnection connection = new HostConnection(id, channel, key, new FrameDecoder(Protocol.HANDSHAKE_FRAME_LIMIT), handshake,
                        System.nanoTime() + handshakeTimeoutNanos);
                key.attach(connection);
                connections.add(connection);
                processes.opened(id, channel);
                stats.connectionAccepted();
                // anyone may connect: the worker logs who at INFO once the handshake has said so
                LOG.debug("worker {}: host connection {} accepted", workerId, connection.id());
            } catch (IOException e) {
                LOG.warn("worker {}: setting up a host connection failed: {}", workerId, e.getMessage());
                closeQuietly(channel);
            }
        }
    }

    /** A connection over the limit: ERROR FULL as far as the socket takes it, then closed. */
    private void refuseOverLimit(SocketChannel channel) {
        String reason = "worker " + Long.toUnsignedString(workerId) + " has its maximum of " + limits.maxConnections() + " host connections";
        REFUSALS.warn("connections over the limit", "worker {}: host connection refused: {}", workerId, reason);
        refuseUnaccepted(channel, UromStatus.FULL, reason);
    }

    /** A connection not taken on: ERROR {@code status} as far as the socket takes it, then closed. */
    private void refuseUnaccepted(SocketChannel channel, UromStatus status, String reason) {
        stats.connectionRefused();
        try {
            channel.configureBlocking(false);
            channel.write(FrameCodec.encode(0, new ErrorReply(status, reason)));
        } catch (IOException e) {
            // the refusal is best effort
        }
        closeQuietly(channel);
    }

    /** Drops the connections whose handshake has not ended by its deadline. */
    private void dropLateHandshakes(long now) {
        for (int i = connections.size() - 1; i >= 0; i--) {
            HostConnection connection = connections.get(i);
            if (connection.state() == HostConnection.State.AWAITING_HELLO && now - connection.handshakeDeadline() >= 0) {
                refuse(connection, UromStatus.TIME_OUT, "the handshake did not end within " + limits.handshakeTimeoutMillis() + " ms");
            }
        }
    }

    private void read(HostConnection connection) throws IOException {
        readBuffer.clear();
        int n = connection.channel().read(readBuffer);
        if (n < 0) {
            drop(connection, connection.decoder().hasPartialFrame() ? "the host closed it in the middle of a frame" : "the host closed it");
            return;
        }
        readBuffer.flip();
        List<Frame> frames;
        try {
            frames = connection.decoder().feed(readBuffer);
        } catch (WireException e) {
            refuse(connection, e.reason() == WireException.Reason.FRAME_TOO_LARGE ? UromStatus.TOO_BIG : UromStatus.INVALID_VALUE,
                    e.getMessage());
            return;
        }
        for (int i = 0; i < frames.size() && connection.state() != HostConnection.State.CLOSING; i++) {
            handle(connection, frames.get(i));
        }
    }

    private void handle(HostConnection connection, Frame frame) throws IOException {
        Message message = frame.message();
        switch (connection.state()) {
            case AWAITING_HELLO -> handshake(connection, message);
            case OPEN -> {
                if (message instanceof Command command) {
                    stats.commandArrived(connection.id(), command.type(), command.uromContext(), System.nanoTime());
                    if (connection.inFlight() >= limits.maxInflight()) {
                        answerAgain(connection, command);
                        return;
                    }
                    inFlight++;
                    countSubmitted(command.type());
                    connection.inFlight(connection.inFlight() + 1);
                    host.submit(new WorkerCommand(connection.id(), command.type(), command.uromContext(), command.payload()));
                } else if (message instanceof AddressRequest request) {
                    connection.send(FrameCodec.encode(frame.requestId(), address(request.pluginId())));
                    connection.pauseReadingWhileOver(outputPauseBytes);
                } else if (message instanceof DomainSet set) {
                    connection.send(FrameCodec.encode(frame.requestId(), install(set)));
                    connection.pauseReadingWhileOver(outputPauseBytes);
                } else if (message instanceof Stop) {
                    LOG.info("worker {}: host connection {} sent STOP", workerId, connection.id());
                    connection.state(HostConnection.State.STOPPING);
                    stopsPending = true;
                } else {
                    refuse(connection, UromStatus.NOT_SUPPORTED, message.messageType() + " is not accepted on a worker data connection");
                }
            }
            case STOPPING -> refuse(connection, UromStatus.BAD_STATE, message.messageType() + " arrived after STOP");
            case CLOSING -> {
                // nothing more is read from a closing connection
            }
        }
    }

    private void handshake(HostConnection connection, Message message) throws IOException {
        ServerHandshake.Step step = connection.handshake().receive(message);
        switch (step.state()) {
            case OPEN -> {
                connection.state(HostConnection.State.OPEN);
                connection.decoder().setFrameLimit(frameLimit);
                everConnected = true;
                connection.send(FrameCodec.encode(0, step.reply()));
                LOG.info("worker {}: host connection {} opened by {}", workerId, connection.id(), connection.handshake().principal());
            }
            case REFUSED -> refuse(connection, (ErrorReply) step.reply(), step.logReason());
            default -> connection.send(FrameCodec.encode(0, step.reply()));
        }
    }

    /** A command over the connection's in-flight limit: answered AGAIN at once; the plugin never sees it. */
    private void answerAgain(HostConnection connection, Command command) {
        byte[] packed = new WorkerNotification(connection.id(), command.type(), command.uromContext(), UromStatus.AGAIN, NO_PAYLOAD).pack();
        stats.notified(connection.id(), command.type(), command.uromContext(), UromStatus.AGAIN, System.nanoTime());
        sendNotify(connection, packed);
    }

    private AddressReply address(long pluginId) {
        PluginIface plugin = host.plugin(pluginId).orElse(null);
        if (plugin == null) {
            return AddressReply.failed(UromStatus.NOT_FOUND);
        }
        try {
            byte[] address = plugin.address();
            if (address == null) {
                LOG.warn("worker {}: plugin 0x{} answered no address", workerId, Long.toHexString(pluginId));
                return AddressReply.failed(UromStatus.UNEXPECTED);
            }
            String transport = host.transport(pluginId).orElse("");
            if (address.length + Protocol.FRAME_HEADER_BYTES + 18 + transport.length() + Proofs.MAC_BYTES > frameLimit) {
                LOG.warn("worker {}: plugin 0x{} has an address of {} bytes, over the frame limit", workerId, Long.toHexString(pluginId), address.length);
                return AddressReply.failed(UromStatus.TOO_BIG);
            }
            return new AddressReply(UromStatus.SUCCESS, address, transport, Proofs.seal(sealKey, pluginId, transport, address));
        } catch (UromException e) {
            LOG.warn("worker {}: plugin 0x{} gave no address: {}: {}", workerId, Long.toHexString(pluginId), e.status(), e.getMessage());
            return AddressReply.failed(e.status());
        } catch (RuntimeException | StackOverflowError e) {
            LOG.error("worker {}: plugin 0x{} threw while giving its address", workerId, Long.toHexString(pluginId), e);
            return AddressReply.failed(UromStatus.UNEXPECTED);
        }
    }

    /** The first address of {@code set} whose seal this worker cannot verify, as a refusal; empty when all are sealed. */
    private Optional<String> unsealed(DomainSet set) {
        for (DomainPeer peer : set.peers()) {
            for (DomainPeer.PluginAddress a : peer.addresses()) {
                if (!Proofs.same(Proofs.seal(sealKey, a.pluginId(), a.transport(), a.address()), a.seal())) {
                    return Optional.of("the address of plugin id 0x" + Long.toHexString(a.pluginId()) + " at domain id "
                            + Long.toUnsignedString(peer.domainId()) + " is not one a worker of this owner published (its seal does not match)");
                }
            }
        }
        return Optional.empty();
    }

    private DomainSetReply install(DomainSet set) {
        Optional<String> unsealed = unsealed(set);
        if (unsealed.isPresent()) {
            REFUSALS.warn("refused domain tables", "worker {}: domain table refused: {}", workerId, unsealed.get());
            return new DomainSetReply(UromStatus.NOT_PERMITTED, unsealed.get());
        }
        DomainTable table;
        try {
            table = DomainTable.of(set.ownDomainId(), set.peers());
        } catch (IllegalArgumentException e) {
            REFUSALS.warn("refused domain tables", "worker {}: domain table refused: {}", workerId, e.getMessage());
            return new DomainSetReply(UromStatus.INVALID_VALUE, e.getMessage());
        }
        domain.install(table);
        LOG.info("worker {}: in a domain of {} peers as domain id {}", workerId, table.size(), Long.toUnsignedString(table.ownDomainId()));
        return new DomainSetReply(UromStatus.SUCCESS, "");
    }

    /**
     * Answers every STOP of this round with STOP_OK and closes those connections; when that leaves
     * no connection that is handshaking or open, the worker says it ends before the first STOP_OK.
     */
    private void finishStops() {
        stopsPending = false;
        if (everConnected && noneServing()) {
            announceEnding();
        }
        for (int i = connections.size() - 1; i >= 0; i--) {
            HostConnection connection = connections.get(i);
            if (connection.state() == HostConnection.State.STOPPING) {
                try {
                    connection.send(FrameCodec.encode(0, new StopOk()));
                    closeOrDrop(connection, "the host stopped");
                } catch (IOException e) {
                    drop(connection, "STOP_OK could not be written: " + e.getMessage());
                }
            }
        }
    }

    /** True when every connection is stopping or closing: none is handshaking or open. */
    private boolean noneServing() {
        for (int i = 0; i < connections.size(); i++) {
            HostConnection.State state = connections.get(i).state();
            if (state != HostConnection.State.STOPPING && state != HostConnection.State.CLOSING) {
                return false;
            }
        }
        return true;
    }

    /** {@link #refuse(HostConnection, ErrorReply, String)} with {@code reason} for the host and the log alike. */
    private void refuse(HostConnection connection, UromStatus status, String reason) {
        refuse(connection, new ErrorReply(status, reason), reason);
    }

    /**
     * Logs the refusal with {@code logReason} (its one line, rate-limited: the close logs nothing
     * more), sends {@code reply} as far as the socket takes it, and closes the connection. The
     * host sees the reply's message only: a handshake's log reason may say more than the host is told.
     */
    private void refuse(HostConnection connection, ErrorReply reply, String logReason) {
        stats.connectionRefused();
        REFUSALS.warn("refused connections", "worker {}: host connection {} closed: {}", workerId, connection.id(), LogText.cut(logReason));
        connection.markRefused();
        try {
            connection.send(FrameCodec.encode(0, reply));
            closeOrDrop(connection, logReason);
        } catch (IOException | IllegalArgumentException e) {
            drop(connection, logReason);
        }
    }

    private void closeOrDrop(HostConnection connection, String reason) {
        connection.closeAfterOutput(reason);
        if (!connection.hasOutput()) {
            drop(connection, reason);
        }
    }

    private void drop(HostConnection connection, String reason) {
        if (connections.remove(connection)) {
            connection.close();
            processes.closed(connection.id());
            stats.connectionClosed(connection.id());
            if (connection.refused()) {
                return;
            }
            if (connection.handshake().state() == ServerHandshake.State.OPEN) {
                LOG.info("worker {}: host connection {} closed: {}", workerId, connection.id(), reason);
            } else {
                LOG.debug("worker {}: host connection {} closed before its handshake ended: {}", workerId, connection.id(), LogText.cut(reason));
            }
        }
    }

    private void deliver(WorkerNotification notification) {
        if (inFlight > 0) {
            inFlight--;
            countAnswered(notification.type());
        }
        HostConnection connection = connection(notification.destId());
        if (connection != null && connection.inFlight() > 0) {
            connection.inFlight(connection.inFlight() - 1);
        }
        if (connection == null || connection.state() == HostConnection.State.CLOSING) {
            stats.notified(notification.destId(), notification.type(), notification.uromContext(), notification.status(), System.nanoTime());
            LOG.debug("worker {}: notification for host connection {} dropped: the connection has gone (plugin id 0x{}, context {})",
                    workerId, notification.destId(), Long.toHexString(notification.type()), notification.uromContext());
            return;
        }
        byte[] packed = pack(notification);
        stats.notified(notification.destId(), notification.type(), notification.uromContext(), packedStatus(packed), System.nanoTime());
        sendNotify(connection, packed, WorkerHost.refusalReason(notification).orElse(""));
    }

    /** Writes a NOTIFY frame around {@code packed} (a whole {@code struct urom_worker_notify}). */
    private void sendNotify(HostConnection connection, byte[] packed) {
        sendNotify(connection, packed, "");
    }

    /**
     * Writes a NOTIFY frame around {@code packed} and, when there is one, the refusal's reason after
     * it ({@code u16 reason_len}, UTF-8; docs/wire-protocol.md).
     */
    private void sendNotify(HostConnection connection, byte[] packed, String reason) {
        ByteBuffer trailer = reason.isEmpty() ? null : FrameCodec.reasonTrailer(reason.getBytes(StandardCharsets.UTF_8));
        writeBuffer.clear();
        writeBuffer.putInt(Protocol.FRAME_HEADER_BYTES + packed.length + (trailer == null ? 0 : trailer.remaining()))
                .putShort((short) MessageType.NOTIFY.code())
                .putShort((short) 0)
                .putLong(0)
                .put(packed);
        if (trailer != null) {
            writeBuffer.put(trailer);
        }
        writeBuffer.flip();
        try {
            connection.send(writeBuffer);
        } catch (IOException e) {
            drop(connection, "writing a notification failed: " + e.getMessage());
            return;
        }
        connection.pauseReadingWhileOver(outputPauseBytes);
    }

    /** The NOTIFY body for {@code n}: its plugin's packing, checked; an error notification when that fails. */
    private byte[] pack(WorkerNotification n) {
        PluginIface plugin = host.plugin(n.type()).orElse(null);
        byte[] packed;
        try {
            // the worker's own answers never go through a plugin's packer (WorkerHost's contract)
            packed = plugin == null || WorkerHost.isWorkerAnswer(n) ? n.pack() : plugin.packNotification(n);
        } catch (UromException e) {
            LOG.warn("worker {}: plugin 0x{} could not pack a notification (context {}): {}: {}",
                    workerId, Long.toHexString(n.type()), n.uromContext(), e.status(), e.getMessage());
            return failure(n, e.status());
        } catch (RuntimeException | StackOverflowError e) {
            LOG.error("worker {}: plugin 0x{} threw while packing a notification (context {})",
                    workerId, Long.toHexString(n.type()), n.uromContext(), e);
            return failure(n, UromStatus.UNEXPECTED);
        }
        String problem = checkPacked(packed);
        if (problem != null) {
            LOG.warn("worker {}: plugin 0x{} packed a notification (context {}) that cannot be sent: {}",
                    workerId, Long.toHexString(n.type()), n.uromContext(), problem);
            return failure(n, packed != null && packed.length + Protocol.FRAME_HEADER_BYTES > frameLimit
                    ? UromStatus.TOO_BIG : UromStatus.UNEXPECTED);
        }
        return packed;
    }

    private String checkPacked(byte[] packed) {
        if (packed == null) {
            return "no bytes";
        }
        if (packed.length < WorkerNotification.HEADER_BYTES) {
            return packed.length + " bytes, shorter than the " + WorkerNotification.HEADER_BYTES + "-byte header";
        }
        long len = (long) LONG_LE.get(packed, PACKED_LEN_OFFSET);
        if (len != packed.length - WorkerNotification.HEADER_BYTES) {
            return "its len field says " + Long.toUnsignedString(len) + " but " + (packed.length - WorkerNotification.HEADER_BYTES)
                    + " payload bytes follow";
        }
        if (packed.length + Protocol.FRAME_HEADER_BYTES > frameLimit) {
            return "a frame of " + (packed.length + Protocol.FRAME_HEADER_BYTES) + " bytes would be over the limit of " + frameLimit;
        }
        return null;
    }

    /** The status field of a packed notification (its length checked by {@link #pack}); UNKNOWN when it is not a DOCA status. */
    private static UromStatus packedStatus(byte[] packed) {
        int code = (int) INT_LE.get(packed, PACKED_STATUS_OFFSET);
        return code >= 0 && code < STATUS_COUNT ? UromStatus.fromCode(code) : UromStatus.UNKNOWN;
    }

    private static byte[] failure(WorkerNotification n, UromStatus status) {
        return new WorkerNotification(n.destId(), n.type(), n.uromContext(), status, NO_PAYLOAD).pack();
    }

    private HostConnection connection(long destId) {
        for (int i = 0; i < connections.size(); i++) {
            HostConnection connection = connections.get(i);
            if (connection.id() == destId) {
                return connection;
            }
        }
        return null;
    }

    /** Closes every host connection and the selector (not the server channel or the host). */
    @Override
    public void close() {
        announceEnding();
        closed = true;
        if (watcher != null) {
            watcher.close();
        }
        for (CompletableFuture<WorkerStatsSnapshot> pending : Arrays.asList(snapshotRequest.getAndSet(null), takenRequest)) {
            if (pending != null) {
                pending.completeExceptionally(new IllegalStateException("the data plane has closed"));
            }
        }
        takenRequest = null;
        for (HostConnection connection : new ArrayList<>(connections)) {
            drop(connection, "the worker is ending");
        }
        try {
            selector.close();
        } catch (IOException e) {
            LOG.debug("worker {}: closing the selector failed: {}", workerId, e.getMessage());
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // already broken
        }
    }
}
