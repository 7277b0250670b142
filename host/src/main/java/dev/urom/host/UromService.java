// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.spi.Api;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.ServiceInfoReply;
import dev.urom.wire.Message.ServiceInfoRequest;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Message.WorkersInGroupReply;
import dev.urom.wire.Message.WorkersInGroupRequest;
import dev.urom.wire.Message.WorkersInfoReply;
import dev.urom.wire.Message.WorkersInfoRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.ServicePlugin;
import dev.urom.wire.ServiceWorker;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A host's connection to the urom daemon: lists plugins and groups, and builds {@link Worker}s,
 * which the daemon starts and which the host then talks to directly.
 *
 * <p>Identity: on a Unix socket the daemon knows the host by its Unix user; on TCP the host proves
 * a key ({@link AuthKey}: {@code connect(address, key)}, or the file named by {@value
 * AuthKey#ENVIRONMENT_VARIABLE}), and its workers then admit only hosts that prove the same key.
 * Workers belong to the principal that started them ({@link #principal()}).
 *
 * <p>Thread-safe: control requests from several threads are sent on the one connection and
 * matched to their answers by request id; each waits at most 30 seconds (then TIME_OUT), and a
 * handshake at most 10 seconds. {@link #close()} closes only the control connection: started
 * workers keep their own connections.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public final class UromService implements AutoCloseable {
    /** The group id that asks {@link #workersInfo(long)} for the workers of every group. */
    @Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
    public static final long ALL_GROUPS = Protocol.ALL_GROUPS;

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    private final ServiceAddress address;
    private final Optional<AuthKey> key;
    private final Principal principal;
    private final int maxMessageSize;
    private final ControlConnection control;

    private UromService(
            ServiceAddress address,
            Optional<AuthKey> key,
            Principal principal,
            int maxMessageSize,
            ControlConnection control) {
        this.address = address;
        this.key = key;
        this.principal = principal;
        this.maxMessageSize = maxMessageSize;
        this.control = control;
    }

    /**
     * Connects to the daemon at its default address, {@link ServiceAddress#defaultListen()}: where
     * {@code urom daemon} listens when given no {@code --listen} (and what {@code urom address}
     * prints), with the key as {@link #connect(String)}.
     *
     * @throws UromException as {@link #connect(String)}; a NOT_CONNECTED message names the address tried
     */
    public static UromService connect() throws UromException {
        return connect(ServiceAddress.defaultListen().toString());
    }

    /**
     * Connects to the daemon at {@code address} ({@code unix:/path} or {@code tcp:host:port}) with the
     * key in the file that {@value AuthKey#ENVIRONMENT_VARIABLE} names, or without a key when it is
     * unset.
     *
     * @throws UromException as {@link #connect(String, AuthKey)}; BAD_CONFIG when the variable names
     *     a key file that cannot be used
     */
    public static UromService connect(String address) throws UromException {
        return connect(address, AuthKey.fromEnvironment(System.getenv()), REQUEST_TIMEOUT);
    }

    /**
     * Connects to the daemon at {@code address}, proving {@code key}.
     *
     * @throws UromException INVALID_VALUE for an address that does not parse; NOT_CONNECTED when
     *     nothing answers there ("cannot connect to unix:/x: Connection refused"); the daemon's
     *     status when it refuses the handshake: AUTHENTICATION for a key it does not know or a host
     *     without a key on TCP, UNSUPPORTED_VERSION, FULL when it has all the connections it takes
     */
    public static UromService connect(String address, AuthKey key) throws UromException {
        return connect(address, Optional.of(requireNonNull(key, "key is null")));
    }

    /**
     * Connects to the daemon at {@code address}, proving {@code key} when there is one and none
     * otherwise, whatever {@value AuthKey#ENVIRONMENT_VARIABLE} says.
     *
     * @throws UromException as {@link #connect(String, AuthKey)}
     */
    public static UromService connect(String address, Optional<AuthKey> key) throws UromException {
        return connect(address, requireNonNull(key, "key is null"), REQUEST_TIMEOUT);
    }

    static UromService connect(String text, Optional<AuthKey> key, Duration requestTimeout) throws UromException {
        ServiceAddress address;
        try {
            address = ServiceAddress.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UromException(UromStatus.INVALID_VALUE, e.getMessage());
        }
        FrameChannel channel = open(address, Protocol.CONTROL_FRAME_LIMIT);
        try {
            HelloOk ok = handshake(address, channel, Proofs.Channel.CONTROL, key);
            Principal principal;
            try {
                principal = Principal.parse(ok.principal());
            } catch (IllegalArgumentException e) {
                throw new UromException(
                        UromStatus.UNEXPECTED,
                        address + " named this host '" + ok.principal() + "', which is not a principal");
            }
            return new UromService(
                    address,
                    key,
                    principal,
                    ok.maxMessageSize(),
                    new ControlConnection(address, channel, requestTimeout));
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

    static HelloOk handshake(
            ServiceAddress address, FrameChannel channel, Proofs.Channel purpose, Optional<AuthKey> key)
            throws UromException {
        try {
            return Handshake.client(channel, Role.HOST, purpose, key, HANDSHAKE_TIMEOUT);
        } catch (IOException e) {
            throw new UromException(UromStatus.NOT_CONNECTED, "handshake with " + address + " failed: " + reason(e));
        } catch (UromException e) {
            throw new UromException(e.status(), address + " refused the connection: " + e.getMessage());
        }
    }

    private static String reason(IOException e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** Who the daemon takes this host for: the owner of the workers it starts. */
    public Principal principal() {
        return principal;
    }

    /** The key this host proves, to the daemon and to its workers. */
    Optional<AuthKey> key() {
        return key;
    }

    /** The largest command (24-byte header included) the service's workers accept. */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** The daemon's address, as {@link #connect(String)} takes it ({@code unix:/path} or {@code tcp:host:port}). */
    public String address() {
        return address.toString();
    }

    /** The plugins the daemon can load now (it re-scans its plugin path). */
    public List<Plugin> plugins() throws UromException {
        return expect(control.request(new PluginsRequest()), PluginsReply.class).plugins().stream()
                .map(UromService::plugin)
                .toList();
    }

    /** Ids of the running workers of group {@code gid}. */
    public List<Long> workersInGroup(long gid) throws UromException {
        return expect(control.request(new WorkersInGroupRequest(gid)), WorkersInGroupReply.class)
                .workerIds();
    }

    /**
     * The caller's workers of group {@code gid} ({@link #ALL_GROUPS}: of every group), starting
     * or running, with their state, process, uptime and the commands they have served, ascending by
     * id (unsigned). A daemon that predates WORKERS_INFO closes the connection instead of answering.
     */
    @Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
    public List<WorkerInfo> workersInfo(long gid) throws UromException {
        return expect(control.request(new WorkersInfoRequest(gid)), WorkersInfoReply.class).workers().stream()
                .map(UromService::workerInfo)
                .toList();
    }

    /**
     * What the daemon lets workers have: the CPUs they may be pinned to and the most workers a
     * principal may have. Asked anew at each call. A daemon that predates SERVICE_INFO closes the
     * connection instead of answering (NOT_CONNECTED).
     */
    @Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
    public ServiceInfo serviceInfo() throws UromException {
        ServiceInfoReply reply = expect(control.request(new ServiceInfoRequest()), ServiceInfoReply.class);
        return new ServiceInfo(reply.cpus(), reply.maxWorkers());
    }

    /** A builder for a worker of this service; nothing starts until {@link Worker#start()}. */
    public WorkerBuilder newWorker() {
        return new WorkerBuilder(this);
    }

    private static Plugin plugin(ServicePlugin p) {
        return new Plugin(p.info(), p.kind());
    }

    private static WorkerInfo workerInfo(ServiceWorker w) {
        WorkerInfo.State state = switch (w.state()) {
            case STARTING -> WorkerInfo.State.STARTING;
            case RUNNING -> WorkerInfo.State.RUNNING;
        };
        return new WorkerInfo(
                w.id(), w.gid(), w.pluginMask(), state, w.pid(), w.uptimeMillis(), w.commandsServed(), w.plugins());
    }

    WorkerStartReply startWorker(WorkerStartRequest request) throws UromException {
        WorkerStartReply reply = expect(control.request(request), WorkerStartReply.class);
        if (!reply.status().isSuccess()) {
            throw new UromException(
                    reply.status(),
                    reply.message().isEmpty() ? "worker did not start: " + reply.status() : reply.message());
        }
        return reply;
    }

    private <T extends Message> T expect(Message reply, Class<T> type) throws UromException {
        if (!type.isInstance(reply)) {
            throw new UromException(
                    UromStatus.UNEXPECTED,
                    address + " answered with " + reply.messageType() + " instead of " + type.getSimpleName());
        }
        return type.cast(reply);
    }

    @Override
    public void close() {
        control.close();
    }
}
