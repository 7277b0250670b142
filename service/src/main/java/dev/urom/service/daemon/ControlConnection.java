// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.framework.security.PeerCredentials;
import dev.urom.service.logging.LogText;
import dev.urom.service.logging.RateLimitedLog;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServerHandshake;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.WireException;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * One host's control connection, served on its own thread: the handshake (which must end within
 * the handshake timeout, with frames of at most {@code Protocol.HANDSHAKE_FRAME_LIMIT} bytes until
 * then, and which ends with the per-principal connection cap), then request after request until the
 * host closes it, WORKER_STARTs handed to the {@link WorkerStartLane} so that several run at once. A
 * frame that cannot be read (over the control limit, malformed, of an unknown type), a refused
 * handshake or a principal over its cap closes this connection only, with the reason logged at
 * WARN.
 *
 * <p>Not thread-safe: {@link #run()} runs once; {@link #close()} may be called from another thread
 * to end it.
 */
final class ControlConnection implements Runnable, AutoCloseable {
    private static final Logger LOG = LogManager.getLogger(ControlConnection.class);

    private final FrameChannel channel;
    private final String peer;
    private final int maxMessageSize;
    private final Duration handshakeTimeout;
    private final ControlAdmission admission;
    private final ConnectionLimits limits;
    private final ControlRequests requests;
    private final WorkerStartLane startLane;
    private final RateLimitedLog refusals;
    private final Consumer<ControlConnection> onEnd;
    private volatile boolean closing;

    /**
     * @param startLane where WORKER_START requests are served beside this connection's thread
     * @param refusals the daemon's log of what hosts cause at will (rate-limited)
     */
    ControlConnection(
            FrameChannel channel,
            String peer,
            int maxMessageSize,
            Duration handshakeTimeout,
            ControlAdmission admission,
            ConnectionLimits limits,
            ControlRequests requests,
            WorkerStartLane startLane,
            RateLimitedLog refusals,
            Consumer<ControlConnection> onEnd) {
        this.channel = channel;
        this.peer = peer;
        this.maxMessageSize = maxMessageSize;
        this.handshakeTimeout = handshakeTimeout;
        this.admission = admission;
        this.limits = limits;
        this.requests = requests;
        this.startLane = startLane;
        this.refusals = refusals;
        this.onEnd = onEnd;
    }

    @Override
    public void run() {
        Principal admitted = null;
        try {
            ControlAdmission.Connection rule = admission.forConnection(peerUid(channel.socket()));
            Optional<Principal> opened = handshake(rule);
            if (opened.isEmpty()) {
                return;
            }
            Principal principal = opened.get();
            admitted = principal;
            ControlSession session =
                    new ControlSession(principal.isUnix() ? peer : peer + " as " + principal, principal, rule.key());
            LOG.debug("{} connected", session.peer());
            InetAddress local = localAddress(channel.socket());
            while (true) {
                Frame frame = channel.receive();
                if (frame.message() instanceof WorkerStartRequest
                        && startLane.trySubmit(() -> answerBeside(frame, session, local))) {
                    continue;
                }
                answer(frame, session, local);
            }
        } catch (EOFException e) {
            LOG.debug("{} closed", peer);
        } catch (WireException e) {
            refusals.warn("unreadable frames", "{} closed by the daemon: {}", peer, LogText.cut(e.getMessage()));
        } catch (UromException e) {
            refusals.warn(
                    "refused handshakes",
                    "{} refused at the handshake: {} {}",
                    peer,
                    e.status(),
                    LogText.cut(e.getMessage()));
        } catch (IOException e) {
            if (!closing) {
                refusals.warn("failed connections", "{} failed: {}", peer, LogText.cut(e.getMessage()));
            }
        } catch (RuntimeException e) {
            LOG.error("{} failed", peer, e);
        } finally {
            if (admitted != null) {
                limits.release(admitted);
            }
            channel.close();
            onEnd.accept(this);
        }
    }

    private void answer(Frame frame, ControlSession session, InetAddress local) throws IOException {
        Message reply = requests.handle(frame.message(), session);
        channel.send(frame.requestId(), reachable(reply, local));
    }

    /** {@link #answer} on a thread of the start lane: a reply that cannot be sent (the host has gone) ends nothing else. */
    private void answerBeside(Frame frame, ControlSession session, InetAddress local) {
        try {
            answer(frame, session, local);
        } catch (IOException e) {
            LOG.debug(
                    "{}: the answer to {} could not be sent: {}",
                    session.peer(),
                    frame.message().messageType(),
                    e.getMessage());
        }
    }

    /**
     * Runs the handshake ({@link Handshake#server}'s steps, within the handshake timeout) and takes one
     * of the principal's connections before HELLO_OK goes out, so that a principal over its cap is
     * refused in the handshake itself: ERROR FULL instead of HELLO_OK, which its client reports as the
     * reason it could not connect. Only a principal that has proved who it is takes a connection:
     * a peer that merely claims a name holds none of that name's.
     *
     * @return the admitted principal, its connection counted; empty when it was over its cap (the
     *     refusal is sent and logged)
     * @throws UromException when the handshake refused the peer (the ERROR is sent)
     */
    private Optional<Principal> handshake(ControlAdmission.Connection rule)
            throws IOException, WireException, UromException {
        ServerHandshake handshake = new ServerHandshake(Proofs.Channel.CONTROL, rule, maxMessageSize, 0, 0);
        long deadline = System.nanoTime() + handshakeTimeout.toNanos();
        int frameLimit = channel.frameLimit();
        channel.setFrameLimit(Protocol.HANDSHAKE_FRAME_LIMIT);
        while (true) {
            Frame frame = channel.receiveWithin(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            ServerHandshake.Step step = handshake.receive(frame.message());
            switch (step.state()) {
                case OPEN -> {
                    Principal principal = handshake.principal();
                    if (!limits.tryAcquire(principal)) {
                        String message = principal + " already has its maximum of " + limits.perPrincipal()
                                + " connections (--max-connections-per-principal)";
                        refusals.warn("connections over the per-principal cap", "{} refused: {}", peer, message);
                        channel.send(0, new Message.ErrorReply(UromStatus.FULL, message));
                        return Optional.empty();
                    }
                    try {
                        channel.send(0, step.reply());
                    } catch (IOException e) {
                        limits.release(principal);
                        throw e;
                    }
                    channel.setFrameLimit(frameLimit);
                    return Optional.of(principal);
                }
                case REFUSED -> {
                    channel.send(0, step.reply());
                    throw new UromException(((Message.ErrorReply) step.reply()).status(), step.logReason());
                }
                default -> channel.send(0, step.reply());
            }
        }
    }

    /** Ends the connection; its thread leaves {@link #run()} soon after. */
    @Override
    public void close() {
        closing = true;
        channel.close();
    }

    private static OptionalInt peerUid(SocketChannel socket) throws IOException {
        return PeerCredentials.uid(socket);
    }

    /** A started worker's address as this host can use it: a wildcard TCP host becomes the address the host reached the daemon at. */
    private static Message reachable(Message reply, InetAddress local) {
        if (reply instanceof Message.WorkerStartReply start
                && local != null
                && start.status().isSuccess()) {
            String address = ServiceAddress.parse(start.workerAddress())
                    .reachableVia(local)
                    .toString();
            return new Message.WorkerStartReply(
                    start.status(), start.workerId(), start.gid(), start.pluginMask(), address, start.message());
        }
        return reply;
    }

    private static InetAddress localAddress(SocketChannel socket) {
        try {
            return socket.getLocalAddress() instanceof InetSocketAddress inet ? inet.getAddress() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** A name for a connection in log lines: its number and, where known, the peer. */
    static String describe(long number, SocketChannel socket) {
        try {
            Object remote = socket.getRemoteAddress();
            if (remote instanceof java.net.InetSocketAddress inet) {
                return "connection " + number + " (" + inet.getHostString() + ":" + inet.getPort() + ")";
            }
            var principal = socket.getOption(jdk.net.ExtendedSocketOptions.SO_PEERCRED);
            return "connection " + number + " (unix, user " + principal.user().getName() + ")";
        } catch (IOException | UnsupportedOperationException e) {
            return "connection " + number;
        }
    }
}
