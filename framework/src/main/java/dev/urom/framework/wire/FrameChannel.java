package dev.urom.framework.wire;

import static java.util.Objects.requireNonNull;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Frames over a blocking {@link SocketChannel}.
 *
 * <p>Thread-safety: {@link #send} may be called from any number of threads (each frame is
 * encoded outside the lock and written whole under one lock); {@link #receive} must be called by
 * one reader thread at a time. {@link #close} may be called from any thread and makes a blocked
 * {@code receive} or {@code send} throw an {@link IOException}. The channel owns the socket and
 * closes it.
 */
public final class FrameChannel implements AutoCloseable {
    private final SocketChannel channel;
    private final ReentrantLock sendLock = new ReentrantLock();
    /** Frames up to this size are read into {@link #frame}, larger ones into a buffer of their own. */
    private static final int REUSED_FRAME_BYTES = 64 * 1024;

    private final ByteBuffer lengthField = ByteBuffer.allocate(Protocol.LENGTH_FIELD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private ByteBuffer frame = ByteBuffer.allocate(0);
    private volatile int frameLimit;

    /**
     * @param channel a connected socket in blocking mode
     * @param frameLimit most bytes after the length field of a frame received
     */
    public FrameChannel(SocketChannel channel, int frameLimit) {
        this.channel = requireNonNull(channel, "channel is null");
        if (!channel.isBlocking()) {
            throw new IllegalArgumentException("FrameChannel needs a blocking socket channel");
        }
        setFrameLimit(frameLimit);
    }

    /** Changes the limit for frames received after this call (e.g. after the handshake). */
    public void setFrameLimit(int frameLimit) {
        FrameLimits.checkLimit(frameLimit);
        this.frameLimit = frameLimit;
    }

    /** Sends one frame. Thread-safe. */
    public void send(long requestId, Message m) throws IOException {
        ByteBuffer[] parts = FrameCodec.encodeParts(requestId, m);
        sendLock.lock();
        try {
            long left = 0;
            for (ByteBuffer p : parts) {
                left += p.remaining();
            }
            while (left > 0) {
                left -= channel.write(parts);
            }
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Receives the next frame, blocking.
     *
     * @throws EOFException when the peer closed the connection (at a frame boundary or inside one)
     * @throws WireException when the frame is over the limit, malformed or of an unknown type;
     *     the connection must then be closed
     */
    public Frame receive() throws IOException, WireException {
        lengthField.clear();
        if (!readFully(lengthField)) {
            throw new EOFException("connection closed by the peer");
        }
        int length = FrameLimits.check(lengthField.getInt(0), frameLimit);
        ByteBuffer into = bufferFor(length);
        if (!readFully(into)) {
            throw new EOFException("connection closed by the peer in the middle of a frame");
        }
        return FrameCodec.decode(into.flip());
    }

    /** An empty buffer of {@code length} bytes; the decoder copies what it keeps, so one can serve every frame. */
    private ByteBuffer bufferFor(int length) {
        if (length > REUSED_FRAME_BYTES) {
            return ByteBuffer.allocate(length);
        }
        if (frame.capacity() < length) {
            frame = ByteBuffer.allocate(Math.max(length, Math.min(2 * frame.capacity(), REUSED_FRAME_BYTES)));
        }
        return frame.clear().limit(length);
    }

    /** Fills {@code buf}; false when the stream ended first. */
    private boolean readFully(ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            if (channel.read(buf) < 0) {
                return false;
            }
        }
        return true;
    }

    public boolean isOpen() {
        return channel.isOpen();
    }

    /** The underlying socket (for its addresses); do not read or write it directly. */
    public SocketChannel socket() {
        return channel;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing a socket has nothing left to report
        }
    }
}
