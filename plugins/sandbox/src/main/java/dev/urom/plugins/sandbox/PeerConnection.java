package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One Unix stream connection between this plugin and a peer, opened by this plugin (to send to the
 * peer; it starts with HELLO) or accepted from the peer. Either way it is read (a {@link
 * FrameReader} reassembles the frames) and written (frames queued in order, written as far as the
 * socket takes them), never blocking.
 *
 * <p>Not thread-safe: owned by one plugin instance. Owns its channel; {@link #close} closes it.
 *
 * @param <T> what the caller attaches to a frame to learn when it has been written
 */
final class PeerConnection<T> {
    /** How a read round ended. */
    enum ReadEnd { OPEN, ENDED, BAD_FRAME }

    private record Pending<T>(ByteBuffer bytes, T token) {}

    private final SocketChannel channel;
    private final String description;
    private final ArrayDeque<Pending<T>> queue = new ArrayDeque<>();
    private FrameReader reader;
    private boolean connected;
    private boolean byeReceived;
    private String failure;

    private PeerConnection(SocketChannel channel, String description, boolean connected) {
        this.channel = channel;
        this.description = description;
        this.connected = connected;
    }

    /**
     * Starts connecting to the socket at {@code path} and queues HELLO.
     *
     * @throws IOException when the socket cannot be reached (missing, refused)
     */
    static <T> PeerConnection<T> connect(String path, String description, long helloSenderId, FrameReader.Listener listener)
            throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.configureBlocking(false);
            boolean connected = channel.connect(UnixDomainSocketAddress.of(path));
            PeerConnection<T> connection = new PeerConnection<>(channel, description, connected);
            connection.reader = connection.readerFor(listener);
            connection.queue.add(new Pending<>(Frames.hello(helloSenderId), null));
            return connection;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** A connection a peer opened, already non-blocking. */
    static <T> PeerConnection<T> accepted(SocketChannel channel, String description, FrameReader.Listener listener) {
        PeerConnection<T> connection = new PeerConnection<>(channel, description, true);
        connection.reader = connection.readerFor(listener);
        return connection;
    }

    private FrameReader readerFor(FrameReader.Listener listener) {
        requireNonNull(listener, "listener is null");
        return new FrameReader(new FrameReader.Listener() {
            @Override
            public void hello(long senderDomainId) {
                listener.hello(senderDomainId);
            }

            @Override
            public void message(long tag, byte[] data) {
                listener.message(tag, data);
            }

            @Override
            public void bye() {
                byeReceived = true;
                listener.bye();
            }

            @Override
            public void protocolError(String reason) {
                failure = reason;
                listener.protocolError(reason);
            }
        });
    }

    SocketChannel channel() {
        return channel;
    }

    String description() {
        return description;
    }

    /** Whether the peer said BYE on this connection. */
    boolean byeReceived() {
        return byeReceived;
    }

    /** Why the connection ended or failed, once {@link #read} or {@link #flush} said so. */
    String failure() {
        return failure;
    }

    /** Queues {@code frame}; {@code token} (may be null) comes back from {@link #flush} once it is written. */
    void enqueue(ByteBuffer frame, T token) {
        queue.add(new Pending<>(requireNonNull(frame, "frame is null"), token));
    }

    boolean idle() {
        return queue.isEmpty();
    }

    /**
     * Writes as much of the queue as the socket takes now.
     *
     * @param written receives the token of each frame written completely, in order
     * @return false when the connection failed (see {@link #failure}); what is still queued is
     *     then never written (see {@link #abandon})
     */
    boolean flush(List<? super T> written) {
        try {
            if (!finishConnecting()) {
                return true;
            }
            Pending<T> head;
            while ((head = queue.peek()) != null) {
                channel.write(head.bytes);
                if (head.bytes.hasRemaining()) {
                    return true;
                }
                queue.remove();
                if (head.token != null) {
                    written.add(head.token);
                }
            }
            return true;
        } catch (IOException e) {
            failure = "writing failed: " + e.getMessage();
            return false;
        }
    }

    /** Whether the connection is established, finishing a connect in progress if it can be now. */
    private boolean finishConnecting() throws IOException {
        if (!connected) {
            connected = channel.finishConnect();
        }
        return connected;
    }

    /**
     * Reads everything available now through {@code scratch} and feeds it to the reader, which
     * reports each frame to the listener.
     *
     * @return {@link ReadEnd#OPEN} while the connection lives, {@link ReadEnd#ENDED} at the end of
     *     the stream (or a read failure), {@link ReadEnd#BAD_FRAME} when the peer broke the protocol
     */
    ReadEnd read(ByteBuffer scratch) {
        try {
            if (!finishConnecting()) {
                return ReadEnd.OPEN;
            }
            while (true) {
                scratch.clear();
                int n = channel.read(scratch);
                if (n > 0) {
                    scratch.flip();
                    reader.feed(scratch);
                    if (reader.broken()) {
                        return ReadEnd.BAD_FRAME;
                    }
                } else if (n == 0) {
                    return ReadEnd.OPEN;
                } else {
                    if (!byeReceived) {
                        failure = reader.atFrameBoundary() ? "the peer closed the connection without BYE"
                                : "the peer closed the connection in the middle of a frame";
                    }
                    return ReadEnd.ENDED;
                }
            }
        } catch (IOException e) {
            failure = "reading failed: " + e.getMessage();
            return ReadEnd.ENDED;
        }
    }

    /** Empties the queue and returns the tokens of the frames that will never be written. */
    List<T> abandon() {
        List<T> lost = new ArrayList<>();
        for (Pending<T> pending : queue) {
            if (pending.token != null) {
                lost.add(pending.token);
            }
        }
        queue.clear();
        return lost;
    }

    void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // the connection is over either way
        }
    }
}
