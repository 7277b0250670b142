// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.auth.Proofs;
import dev.urom.framework.security.PeerCredentials;
import dev.urom.service.access.WorkerAdmission;
import dev.urom.service.logging.LogText;
import dev.urom.service.logging.RateLimitedLog;
import dev.urom.service.metrics.WorkerStats;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.FrameDecoder;
import dev.urom.wire.Message;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServerHandshake;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Lets hosts connect to the worker, through the handshake, and refuses them; not thread-safe: the
 * data-plane thread owns it. It never throws for what a host does:
 *
 * <ul>
 *   <li>a connection accepted gets its dest id and must end its handshake ({@link ServerHandshake};
 *       the {@link WorkerAdmission} lets in the worker's owner only) within the handshake timeout,
 *       with frames of at most {@link Protocol#HANDSHAKE_FRAME_LIMIT} bytes until then;
 *   <li>one over {@code maxConnections} (handshaking ones included) is answered ERROR FULL, and once
 *       the worker is ending ({@link #refuseFromNowOn}) every new one is answered ERROR SHUTDOWN;
 *   <li>a failed accept (out of descriptors, most likely) stops accepting for 100 ms;
 *   <li>every refusal is counted, logged in one rate-limited line (20 of a kind per 10 s), answered
 *       ERROR as far as the socket takes it, and closed.
 * </ul>
 */
final class ConnectionAdmission {
    private static final Logger LOG = LogManager.getLogger(DataPlane.class);
    /** Refused connections are the hosts' doing: 20 lines of a kind per 10 s at most. */
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LOG, 20, Duration.ofSeconds(10));

    private static final long ACCEPT_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final long workerId;
    private final ServerSocketChannel server;
    private final SelectionKey serverKey;
    private final Selector selector;
    private final HostConnections connections;
    private final ConnectionProcesses processes;
    private final WorkerStats stats;
    private final WorkerAdmission admission;
    private final DataPlane.Limits limits;
    private final int frameLimit;
    private final long handshakeTimeoutNanos;
    private long nextConnectionId = 1;
    private long acceptPausedUntil;
    private boolean acceptPaused;
    private boolean everOpened;
    private boolean refusing;

    /**
     * Registers {@code server} with {@code selector} for accepts.
     *
     * @param server bound, in any blocking mode (it is made non-blocking); owned by the caller
     * @param frameLimit the frame limit of a connection once its handshake has ended
     * @throws IOException when the server cannot be registered
     */
    ConnectionAdmission(
            long workerId,
            ServerSocketChannel server,
            Selector selector,
            HostConnections connections,
            ConnectionProcesses processes,
            WorkerStats stats,
            WorkerAdmission admission,
            DataPlane.Limits limits,
            int frameLimit)
            throws IOException {
        this.workerId = workerId;
        this.server = server;
        this.selector = selector;
        this.connections = connections;
        this.processes = processes;
        this.stats = stats;
        this.admission = admission;
        this.limits = limits;
        this.frameLimit = frameLimit;
        this.handshakeTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.handshakeTimeoutMillis());
        server.configureBlocking(false);
        this.serverKey = server.register(selector, SelectionKey.OP_ACCEPT);
    }

    /** Whether {@code key} is the listening socket's. */
    boolean isServerKey(SelectionKey key) {
        return key == serverKey;
    }

    /** Whether some connection has ended its handshake since the worker started. */
    boolean everOpened() {
        return everOpened;
    }

    /** The worker is ending: every connection from now on is answered ERROR SHUTDOWN. */
    void refuseFromNowOn() {
        refusing = true;
    }

    /** Accepts every connection waiting, or refuses it. */
    void accept() {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                // out of descriptors, most likely: stop accepting for a moment instead of spinning on a ready socket
                LOG.warn(
                        "worker {}: accepting a host connection failed: {}; accepting again in {} ms",
                        workerId,
                        e.getMessage(),
                        TimeUnit.NANOSECONDS.toMillis(ACCEPT_PAUSE_NANOS));
                acceptPaused = true;
                acceptPausedUntil = System.nanoTime() + ACCEPT_PAUSE_NANOS;
                serverKey.interestOps(0);
                return;
            }
            if (channel == null) {
                return;
            }
            if (refusing) {
                String reason = "worker " + Long.toUnsignedString(workerId)
                        + " is ending: its last host connection has stopped or closed";
                REFUSALS.warn(
                        "connections to an ending worker", "worker {}: host connection refused: {}", workerId, reason);
                refuseUnaccepted(channel, UromStatus.SHUTDOWN, reason);
                continue;
            }
            if (connections.size() >= limits.maxConnections()) {
                String reason = "worker " + Long.toUnsignedString(workerId) + " has its maximum of "
                        + limits.maxConnections() + " host connections";
                REFUSALS.warn("connections over the limit", "worker {}: host connection refused: {}", workerId, reason);
                refuseUnaccepted(channel, UromStatus.FULL, reason);
                continue;
            }
            take(channel);
        }
    }

    private void take(SocketChannel channel) {
        try {
            channel.configureBlocking(false);
            if (channel.supportedOptions().contains(StandardSocketOptions.TCP_NODELAY)) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            long id = nextConnectionId++;
            ServerHandshake handshake = new ServerHandshake(
                    Proofs.Channel.DATA,
                    admission.forPeer(PeerCredentials.uid(channel)),
                    limits.maxMessageSize(),
                    id,
                    limits.maxInflight());
            SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
            HostConnection connection = new HostConnection(
                    id,
                    channel,
                    key,
                    new FrameDecoder(Protocol.HANDSHAKE_FRAME_LIMIT),
                    handshake,
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

    /**
     * Takes one handshake message of {@code connection}: answers it, opens the connection (its frame
     * limit raised to the data frame limit) or refuses it.
     *
     * @throws IOException when the answer cannot be written
     */
    void handshake(HostConnection connection, Message message) throws IOException {
        ServerHandshake.Step step = connection.handshake().receive(message);
        switch (step.state()) {
            case OPEN -> {
                connection.state(HostConnection.State.OPEN);
                connection.decoder().setFrameLimit(frameLimit);
                everOpened = true;
                connection.send(FrameCodec.encode(0, step.reply()));
                LOG.info(
                        "worker {}: host connection {} opened by {}",
                        workerId,
                        connection.id(),
                        connection.handshake().principal());
            }
            case REFUSED -> refuse(connection, (ErrorReply) step.reply(), step.logReason());
            default -> connection.send(FrameCodec.encode(0, step.reply()));
        }
    }

    /** Resumes accepting once the pause after a failed accept is over. */
    void resumeAcceptingWhenDue(long now) {
        if (acceptPaused && now - acceptPausedUntil >= 0) {
            acceptPaused = false;
            serverKey.interestOps(SelectionKey.OP_ACCEPT);
        }
    }

    /** Refuses (TIME_OUT) the connections whose handshake has not ended by its deadline. */
    void refuseLateHandshakes(long now) {
        for (int i = connections.size() - 1; i >= 0; i--) {
            HostConnection connection = connections.get(i);
            if (connection.state() == HostConnection.State.AWAITING_HELLO
                    && now - connection.handshakeDeadline() >= 0) {
                refuse(
                        connection,
                        UromStatus.TIME_OUT,
                        "the handshake did not end within " + limits.handshakeTimeoutMillis() + " ms");
            }
        }
    }

    /** Nanoseconds from {@code now} to the nearest handshake deadline or the end of an accept pause; {@link Long#MAX_VALUE} when none. */
    long nanosUntilDue(long now) {
        long until = Long.MAX_VALUE;
        for (int i = 0; i < connections.size(); i++) {
            HostConnection connection = connections.get(i);
            if (connection.state() == HostConnection.State.AWAITING_HELLO) {
                until = Math.min(until, connection.handshakeDeadline() - now);
            }
        }
        if (acceptPaused) {
            until = Math.min(until, acceptPausedUntil - now);
        }
        return until;
    }

    /** {@link #refuse(HostConnection, ErrorReply, String)} with {@code reason} for the host and the log alike. */
    void refuse(HostConnection connection, UromStatus status, String reason) {
        refuse(connection, new ErrorReply(status, reason), reason);
    }

    /**
     * Logs the refusal with {@code logReason} (its one line, rate-limited: the close logs nothing
     * more), sends {@code reply} as far as the socket takes it, and closes the connection. The
     * host sees the reply's message only: a handshake's log reason may say more than the host is told.
     */
    private void refuse(HostConnection connection, ErrorReply reply, String logReason) {
        stats.connectionRefused();
        REFUSALS.warn(
                "refused connections",
                "worker {}: host connection {} closed: {}",
                workerId,
                connection.id(),
                LogText.cut(logReason));
        connection.markRefused();
        try {
            connection.send(FrameCodec.encode(0, reply));
            connections.closeOrDrop(connection, logReason);
        } catch (IOException | IllegalArgumentException e) {
            connections.drop(connection, logReason);
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
