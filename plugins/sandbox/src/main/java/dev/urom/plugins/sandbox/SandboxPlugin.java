package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import dev.urom.plugins.sandbox.SandboxCommand.MemMap;
import dev.urom.plugins.sandbox.SandboxCommand.TagRecv;
import dev.urom.plugins.sandbox.SandboxCommand.TagSend;
import dev.urom.plugins.sandbox.SandboxNotification.MemMapDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagRecvDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagSendDone;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The sandbox plugin in Java, the twin of {@code worker_sandbox.so}: MEM_MAP, TAG_SEND and TAG_RECV
 * between workers of a domain over Unix stream sockets, with the commands, notifications and
 * frames of {@code docs/sandbox-protocol.md}.
 *
 * <p>{@link #open} creates the listening socket {@code urom-sandbox-<pid>-<n>.sock} in {@code
 * java.io.tmpdir}; its address is {@code unix:<path>}. A TAG_SEND looks its peer up in the domain
 * (when it has no connection to it yet), connects once and keeps the connection; its answer comes
 * once the MESSAGE frame is written to that connection. A TAG_RECV is matched by a {@link
 * TagMatcher}. Nothing blocks: {@link #progress} writes what the sockets take, accepts, reads what
 * has arrived and hands out the answers ready so far. {@link #close} says BYE to every peer it
 * sent to, closes every socket and removes the socket file.
 *
 * <p>MEM_MAP opens its file through {@link MappedRegions}: beneath {@code /dev/shm} or a hugetlbfs
 * mount, through no symbolic link, owned by the worker's user or by {@code UROM_OWNER_UID}'s (read
 * at {@link #open} from the environment; {@code BAD_CONFIG} when it is not a uid). A region whose
 * file shrank fails TAG_SEND and TAG_RECV with {@code IO_FAILED}; the plugin keeps serving.
 *
 * <p>Not thread-safe: the worker drives a plugin from one thread (see {@link PluginIface}).
 */
public final class SandboxPlugin implements PluginIface {
    private static final Logger LOG = LogManager.getLogger(SandboxPlugin.class);
    private static final String ADDRESS_PREFIX = "unix:";
    private static final long INLINE_RECEIVE_BUFFER = 1;
    private static final byte[] NO_DATA = new byte[0];

    /** A TAG_SEND whose frame is queued on a connection, answered once it is written (or the connection ends). */
    private record PendingSend(WorkerCommand command, long context) {
    }

    private record PostedReceive(WorkerCommand command, TagRecv receive) {
        long notifiedBuffer() {
            return receive.memhId() == 0 ? INLINE_RECEIVE_BUFFER : receive.buffer();
        }
    }

    private record ArrivedMessage(long tag, byte[] data) {}

    private final ArrayDeque<WorkerNotification> ready = new ArrayDeque<>();
    private final TagMatcher<PostedReceive, ArrivedMessage> matcher = new TagMatcher<>();
    private final List<PeerConnection<PendingSend>> connections = new ArrayList<>();
    private final Map<Long, PeerConnection<PendingSend>> outgoing = new HashMap<>();
    private final FrameListener listener = new FrameListener();
    private long accepted;
    private final List<PendingSend> written = new ArrayList<>();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(64 * 1024);
    private final Function<String, String> environment;
    private WorkerContext context;
    private MappedRegions regions;
    private ServerSocketChannel server;
    private Selector selector;
    private Path socketPath;
    private byte[] address;

    /** The plugin as the worker loads it: {@code UROM_OWNER_UID} comes from the process environment. */
    public SandboxPlugin() {
        this(System::getenv);
    }

    /** A plugin that reads {@code UROM_OWNER_UID} from {@code environment} (name to value, null when unset). */
    SandboxPlugin(Function<String, String> environment) {
        this.environment = requireNonNull(environment, "environment is null");
    }

    @Override
    public void open(WorkerContext context) throws UromException {
        this.context = requireNonNull(context, "context is null");
        FileOwners owners;
        try {
            owners = FileOwners.fromEnvironment(environment, FileOwners.effectiveUid());
        } catch (UromException e) {
            LOG.error("sandbox plugin of worker {}: {}", context.workerId(), e.getMessage());
            throw e;
        }
        regions = new MappedRegions(MappableRoots::ofSystem, owners);
        Path directory = SocketFiles.directory();
        try {
            server = SocketFiles.bind(directory);
            socketPath = ((UnixDomainSocketAddress) server.getLocalAddress()).getPath().toAbsolutePath();
            selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            closeQuietly();
            throw new UromException(UromStatus.IO_FAILED, "the sandbox plugin cannot listen on a Unix socket in " + directory + ": " + e.getMessage());
        }
        address = (ADDRESS_PREFIX + socketPath).getBytes(StandardCharsets.UTF_8);
        LOG.debug("sandbox plugin of worker {} listens on {}", context.workerId(), socketPath);
    }

    @Override
    public void close() {
        for (PeerConnection<PendingSend> connection : connections) {
            sayBye(connection);
        }
        connections.clear();
        outgoing.clear();
        closeQuietly();
        ready.clear();
        matcher.drainReceives();
        if (regions != null) {
            regions.clear();
        }
    }

    /** Messages that arrived and wait for a matching TAG_RECV (for tests). */
    int unexpectedMessages() {
        return matcher.unexpectedCount();
    }

    /** Connections open now, opened and accepted (for tests). */
    int openConnections() {
        return connections.size();
    }

    @Override
    public byte[] address() throws UromException {
        if (address == null) {
            throw new UromException(UromStatus.BAD_STATE, "the sandbox plugin has no address before it is opened");
        }
        return address.clone();
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        if (selector == null) {
            throw new UromException(UromStatus.BAD_STATE, "the sandbox plugin is not open");
        }
        SandboxCommand decoded = SandboxCommand.decode(command.payload());
        if (decoded instanceof MemMap memMap) {
            long memhId;
            try {
                memhId = regions.map(memMap.path(), memMap.length());
            } catch (UromException e) {
                LOG.warn("sandbox plugin of worker {}: {}", context.workerId(), e.getMessage());
                throw e;
            }
            ready.add(WorkerNotification.replyTo(command, UromStatus.SUCCESS, new MemMapDone(memMap.context(), memhId).encode()));
        } else if (decoded instanceof TagSend send) {
            send(command, send);
        } else if (decoded instanceof TagRecv receive) {
            if (receive.memhId() != 0) {
                regions.check(receive.memhId(), receive.buffer(), receive.count());
            }
            PostedReceive posted = new PostedReceive(command, receive);
            ArrivedMessage message = matcher.post(receive.tag(), receive.tagMask(), posted);
            if (message != null) {
                complete(posted, message);
            }
        }
    }

    private void send(WorkerCommand command, TagSend send) throws UromException {
        if (send.memhId() != 0) {
            regions.check(send.memhId(), send.buffer(), send.count());
        }
        if (Long.compareUnsigned(send.count(), Frames.MAX_MESSAGE_BYTES) > 0) {
            throw new UromException(UromStatus.INVALID_VALUE, "TAG_SEND of " + Long.toUnsignedString(send.count())
                    + " bytes refused: a message is at most " + Frames.MAX_MESSAGE_BYTES + " bytes");
        }
        PeerConnection<PendingSend> connection = connectionTo(send.dest());
        ByteBuffer frame;
        if (send.memhId() == 0) {
            frame = Frames.message(send.tag(), send.data());
        } else {
            frame = Frames.messageHeader(send.tag(), (int) send.count());
            try {
                regions.read(send.memhId(), send.buffer(), frame);
            } catch (UromException e) {
                LOG.warn("sandbox plugin of worker {}: {}", context.workerId(), e.getMessage());
                throw e;
            }
            frame.flip();
        }
        connection.enqueue(frame, new PendingSend(command, send.context()));
        flush(connection);
    }

    private PeerConnection<PendingSend> connectionTo(long dest) throws UromException {
        PeerConnection<PendingSend> connection = outgoing.get(dest);
        if (connection != null) {
            return connection;
        }
        byte[] peerAddress = context.domain().address(dest);
        String text = new String(peerAddress, StandardCharsets.UTF_8);
        if (!text.startsWith(ADDRESS_PREFIX + "/")) {
            throw new UromException(UromStatus.INVALID_VALUE, "the address of peer " + Long.toUnsignedString(dest)
                    + " ('" + text + "') is not a sandbox address (unix:<absolute path>)");
        }
        String path = text.substring(ADDRESS_PREFIX.length());
        String description = "to peer " + Long.toUnsignedString(dest) + " at " + path;
        try {
            connection = PeerConnection.connect(path, description, Frames.UNKNOWN_DOMAIN_ID, listener);
            register(connection);
        } catch (IOException | RuntimeException e) {
            throw new UromException(UromStatus.NOT_CONNECTED, "cannot connect " + description + ": " + e.getMessage());
        }
        LOG.debug("sandbox plugin of worker {}: connected {}", context.workerId(), description);
        outgoing.put(dest, connection);
        return connection;
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) throws UromException {
        if (selector == null) {
            return;
        }
        pollSockets();
        for (int i = 0; i < connections.size(); ) {
            PeerConnection<PendingSend> connection = connections.get(i);
            if (connection.idle() || !flush(connection)) {
                i++;
            }
        }
        while (!ready.isEmpty()) {
            notifications.add(ready.remove());
        }
    }

    /**
     * Writes what {@code connection} takes now, answering each send written; ends it when it failed.
     *
     * @return whether the connection was ended (and left {@code connections})
     */
    private boolean flush(PeerConnection<PendingSend> connection) {
        boolean alive = connection.flush(written);
        for (PendingSend sent : written) {
            answerSend(sent, UromStatus.SUCCESS);
        }
        written.clear();
        if (!alive) {
            end(connection, connection.byeReceived());
        }
        return !alive;
    }

    /**
     * Ends a connection: its unwritten sends fail with CONNECTION_RESET, and unless it ended cleanly
     * (BYE received) so does every waiting TAG_RECV.
     */
    private void end(PeerConnection<PendingSend> connection, boolean clean) {
        for (PendingSend unsent : connection.abandon()) {
            answerSend(unsent, UromStatus.CONNECTION_RESET);
        }
        if (!clean) {
            List<PostedReceive> waiting = matcher.drainReceives();
            LOG.warn("sandbox plugin of worker {}: the connection {} ended ({}); {} waiting TAG_RECV fail with CONNECTION_RESET",
                    context.workerId(), connection.description(), connection.failure(), waiting.size());
            for (PostedReceive posted : waiting) {
                answerReceive(posted, UromStatus.CONNECTION_RESET, 0, 0, NO_DATA);
            }
        } else {
            LOG.debug("sandbox plugin of worker {}: the connection {} ended after BYE", context.workerId(), connection.description());
        }
        connections.remove(connection);
        outgoing.values().remove(connection);
        SelectionKey key = connection.channel().keyFor(selector);
        if (key != null) {
            key.cancel();
        }
        connection.close();
    }

    private void answerSend(PendingSend send, UromStatus status) {
        ready.add(WorkerNotification.replyTo(send.command(), status, new TagSendDone(send.context(), status).encode()));
    }

    private void pollSockets() throws UromException {
        try {
            if (selector.selectNow() == 0) {
                return;
            }
        } catch (IOException e) {
            throw new UromException(UromStatus.IO_FAILED, "the sandbox plugin's selector failed: " + e.getMessage());
        }
        for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
            SelectionKey key = it.next();
            it.remove();
            if (!key.isValid()) {
                continue;
            }
            if (key.isAcceptable()) {
                acceptAll();
            } else if (key.isReadable()) {
                @SuppressWarnings("unchecked")
                PeerConnection<PendingSend> connection = (PeerConnection<PendingSend>) key.attachment();
                read(connection);
            }
        }
    }

    private void acceptAll() {
        while (true) {
            try {
                SocketChannel channel = server.accept();
                if (channel == null) {
                    return;
                }
                channel.configureBlocking(false);
                PeerConnection<PendingSend> connection = PeerConnection.accepted(channel, "accepted #" + ++accepted, listener);
                register(connection);
            } catch (IOException e) {
                LOG.warn("sandbox plugin of worker {}: accepting a peer connection failed: {}", context.workerId(), e.getMessage());
                return;
            }
        }
    }

    private void register(PeerConnection<PendingSend> connection) throws IOException {
        try {
            connection.channel().register(selector, SelectionKey.OP_READ, connection);
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
        connections.add(connection);
    }

    private void read(PeerConnection<PendingSend> connection) {
        PeerConnection.ReadEnd end = connection.read(scratch);
        if (end != PeerConnection.ReadEnd.OPEN) {
            end(connection, end == PeerConnection.ReadEnd.ENDED && connection.byeReceived());
        }
    }

    /** Delivers the frames of every connection to the matcher. */
    private final class FrameListener implements FrameReader.Listener {
        @Override
        public void hello(long senderDomainId) {
            LOG.debug("sandbox plugin of worker {}: HELLO from peer {}", context.workerId(), Long.toUnsignedString(senderDomainId));
        }

        @Override
        public void message(long tag, byte[] data) {
            ArrivedMessage message = new ArrivedMessage(tag, data);
            PostedReceive posted = matcher.arrive(tag, message);
            if (posted != null) {
                complete(posted, message);
            }
        }

        @Override
        public void bye() {
            LOG.debug("sandbox plugin of worker {}: a peer said BYE", context.workerId());
        }

        @Override
        public void protocolError(String reason) {
            LOG.warn("sandbox plugin of worker {}: dropping a peer connection: {}", context.workerId(), reason);
        }
    }

    private void complete(PostedReceive posted, ArrivedMessage message) {
        TagRecv receive = posted.receive();
        long length = message.data().length;
        if (Long.compareUnsigned(length, receive.count()) > 0) {
            answerReceive(posted, UromStatus.TOO_BIG, 0, message.tag(), NO_DATA);
        } else if (receive.memhId() == 0) {
            answerReceive(posted, UromStatus.SUCCESS, length, message.tag(), message.data());
        } else {
            try {
                regions.write(receive.memhId(), receive.buffer(), message.data());
            } catch (UromException e) {
                LOG.warn("sandbox plugin of worker {}: {}", context.workerId(), e.getMessage());
                answerReceive(posted, e.status(), 0, message.tag(), NO_DATA);
                return;
            }
            answerReceive(posted, UromStatus.SUCCESS, length, message.tag(), NO_DATA);
        }
    }

    private void answerReceive(PostedReceive posted, UromStatus status, long count, long senderTag, byte[] data) {
        TagRecvDone done = new TagRecvDone(posted.receive().context(), posted.notifiedBuffer(), count, senderTag, status, data);
        ready.add(WorkerNotification.replyTo(posted.command(), status, done.encode()));
    }

    /** Best effort, as the C plugin: BYE goes out if the socket takes it now. */
    private void sayBye(PeerConnection<PendingSend> connection) {
        connection.enqueue(Frames.bye(), null);
        if (!connection.flush(new ArrayList<>()) || !connection.idle()) {
            LOG.debug("sandbox plugin: BYE on the connection {} did not go out", connection.description());
        }
        connection.close();
    }

    private void closeQuietly() {
        if (selector != null) {
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("sandbox plugin: closing the selector failed: {}", e.getMessage());
            }
            selector = null;
        }
        if (server != null) {
            try {
                server.close();
            } catch (IOException e) {
                LOG.debug("sandbox plugin: closing the listening socket failed: {}", e.getMessage());
            }
            server = null;
        }
        if (socketPath != null) {
            try {
                Files.deleteIfExists(socketPath);
            } catch (IOException e) {
                LOG.warn("sandbox plugin: cannot remove its socket file {}: {}", socketPath, e.getMessage());
            }
            socketPath = null;
        }
    }
}
