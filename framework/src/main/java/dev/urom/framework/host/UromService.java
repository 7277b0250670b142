package dev.urom.framework.host;

import dev.urom.framework.wire.FrameChannel;
import dev.urom.framework.wire.Handshake;
import dev.urom.framework.wire.Message;
import dev.urom.framework.wire.Message.HelloOk;
import dev.urom.framework.wire.Message.PluginsReply;
import dev.urom.framework.wire.Message.PluginsRequest;
import dev.urom.framework.wire.Message.WorkerStartReply;
import dev.urom.framework.wire.Message.WorkerStartRequest;
import dev.urom.framework.wire.Message.WorkersInGroupReply;
import dev.urom.framework.wire.Message.WorkersInGroupRequest;
import dev.urom.framework.wire.Protocol;
import dev.urom.framework.wire.Role;
import dev.urom.framework.wire.ServiceAddress;
import dev.urom.framework.wire.ServicePlugin;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;

/**
 * A host's connection to the urom daemon: lists plugins and groups, and builds {@link Worker}s,
 * which the daemon starts and which the host then talks to directly.
 *
 * <p>Thread-safe: control requests from several threads are sent on the one connection and
 * matched to their answers by request id; each waits at most 30 seconds (then TIME_OUT).
 * {@link #close()} closes only the control connection: started workers keep their own
 * connections.
 */
public final class UromService implements AutoCloseable {
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final ServiceAddress address;
    private final int maxMessageSize;
    private final ControlConnection control;

    private UromService(ServiceAddress address, int maxMessageSize, ControlConnection control) {
        this.address = address;
        this.maxMessageSize = maxMessageSize;
        this.control = control;
    }

    /**
     * Connects to the daemon at {@code address} ({@code unix:/path} or {@code tcp:host:port}).
     *
     * @throws UromException INVALID_VALUE for an address that does not parse; NOT_CONNECTED when
     *     nothing answers there ("cannot connect to unix:/x: Connection refused"); the daemon's
     *     status (e.g. UNSUPPORTED_VERSION) when it refuses the handshake
     */
    public static UromService connect(String address) throws UromException {
        return connect(address, REQUEST_TIMEOUT);
    }

    static UromService connect(String text, Duration requestTimeout) throws UromException {
        ServiceAddress address;
        try {
            address = ServiceAddress.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UromException(UromStatus.INVALID_VALUE, e.getMessage());
        }
        FrameChannel channel = open(address, Protocol.CONTROL_FRAME_LIMIT);
        try {
            HelloOk ok = handshake(address, channel);
            return new UromService(address, ok.maxMessageSize(), new ControlConnection(address, channel, requestTimeout));
        } catch (UromException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    static FrameChannel open(ServiceAddress address, int frameLimit) throws UromException {
        try {
            SocketChannel socket = address.connect();
            return new FrameChannel(socket, frameLimit);
        } catch (IOException e) {
            throw new UromException(UromStatus.NOT_CONNECTED, "cannot connect to " + address + ": " + reason(e));
        }
    }

    static HelloOk handshake(ServiceAddress address, FrameChannel channel) throws UromException {
        try {
            return Handshake.client(channel, Role.HOST);
        } catch (IOException e) {
            throw new UromException(UromStatus.NOT_CONNECTED, "handshake with " + address + " failed: " + reason(e));
        } catch (UromException e) {
            throw new UromException(e.status(), address + " refused the connection: " + e.getMessage());
        }
    }

    private static String reason(IOException e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** The largest command (24-byte header included) the service's workers accept. */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    public ServiceAddress address() {
        return address;
    }

    /** The plugins the daemon can load now (it re-scans its plugin path). */
    public List<ServicePlugin> plugins() throws UromException {
        return expect(control.request(new PluginsRequest()), PluginsReply.class).plugins();
    }

    /** Ids of the running workers of group {@code gid}. */
    public List<Long> workersInGroup(long gid) throws UromException {
        return expect(control.request(new WorkersInGroupRequest(gid)), WorkersInGroupReply.class).workerIds();
    }

    /** A builder for a worker of this service; nothing starts until {@link Worker#start()}. */
    public WorkerBuilder newWorker() {
        return new WorkerBuilder(this);
    }

    WorkerStartReply startWorker(WorkerStartRequest request) throws UromException {
        WorkerStartReply reply = expect(control.request(request), WorkerStartReply.class);
        if (!reply.status().isSuccess()) {
            throw new UromException(reply.status(), reply.message().isEmpty() ? "worker did not start: " + reply.status() : reply.message());
        }
        return reply;
    }

    private <T extends Message> T expect(Message reply, Class<T> type) throws UromException {
        if (!type.isInstance(reply)) {
            throw new UromException(UromStatus.UNEXPECTED, address + " answered with " + reply.messageType() + " instead of " + type.getSimpleName());
        }
        return type.cast(reply);
    }

    @Override
    public void close() {
        control.close();
    }
}
