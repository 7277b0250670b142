package dev.urom.service.daemon;

import dev.urom.framework.wire.Frame;
import dev.urom.framework.wire.FrameChannel;
import dev.urom.framework.wire.Handshake;
import dev.urom.framework.wire.Message;
import dev.urom.framework.wire.Role;
import dev.urom.framework.wire.ServiceAddress;
import dev.urom.framework.wire.WireException;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * One host's control connection, served on its own thread: the handshake, then request after
 * request until the host closes it. A frame that cannot be read (over the control limit,
 * malformed, of an unknown type) or a refused handshake closes this connection only, with the
 * reason logged at WARN.
 *
 * <p>Not thread-safe: {@link #run()} runs once; {@link #close()} may be called from another thread
 * to end it.
 */
final class ControlConnection implements Runnable, AutoCloseable {
    private static final Logger LOG = LogManager.getLogger(ControlConnection.class);

    private final FrameChannel channel;
    private final String peer;
    private final int maxMessageSize;
    private final ControlRequests requests;
    private final Consumer<ControlConnection> onEnd;
    private volatile boolean closing;

    ControlConnection(FrameChannel channel, String peer, int maxMessageSize, ControlRequests requests, Consumer<ControlConnection> onEnd) {
        this.channel = channel;
        this.peer = peer;
        this.maxMessageSize = maxMessageSize;
        this.requests = requests;
        this.onEnd = onEnd;
    }

    @Override
    public void run() {
        try {
            Message.Hello hello = Handshake.server(channel, maxMessageSize, 0);
            if (hello.role() != Role.HOST) {
                String message = "the daemon serves hosts; this connection said it is a " + hello.role();
                LOG.warn("{} refused: {}", peer, message);
                channel.send(0, new Message.ErrorReply(UromStatus.NOT_PERMITTED, message));
                return;
            }
            LOG.debug("{} connected", peer);
            InetAddress local = localAddress(channel.socket());
            while (true) {
                Frame frame = channel.receive();
                Message reply = requests.handle(frame.message(), peer);
                channel.send(frame.requestId(), reachable(reply, local));
            }
        } catch (EOFException e) {
            LOG.debug("{} closed", peer);
        } catch (WireException e) {
            LOG.warn("{} closed by the daemon: {}", peer, e.getMessage());
        } catch (UromException e) {
            LOG.warn("{} refused at the handshake: {} {}", peer, e.status(), e.getMessage());
        } catch (IOException e) {
            if (!closing) {
                LOG.warn("{} failed: {}", peer, e.getMessage());
            }
        } catch (RuntimeException e) {
            LOG.error("{} failed", peer, e);
        } finally {
            channel.close();
            onEnd.accept(this);
        }
    }

    /** Ends the connection; its thread leaves {@link #run()} soon after. */
    @Override
    public void close() {
        closing = true;
        channel.close();
    }

    /** A started worker's address as this host can use it: a wildcard TCP host becomes the address the host reached the daemon at. */
    private static Message reachable(Message reply, InetAddress local) {
        if (reply instanceof Message.WorkerStartReply start && local != null && start.status().isSuccess()) {
            String address = ServiceAddress.parse(start.workerAddress()).reachableVia(local).toString();
            return new Message.WorkerStartReply(start.status(), start.workerId(), start.gid(), start.pluginMask(), address, start.message());
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
