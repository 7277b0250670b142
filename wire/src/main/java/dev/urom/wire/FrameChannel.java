// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Frames over a blocking {@link SocketChannel}.
 *
 * <p>Thread-safety: {@link #send} may be called from any number of threads (each frame is
 * encoded outside the lock and written whole under one lock); {@link #receive} must be called by
 * one reader thread at a time. {@link #close} may be called from any thread and makes a blocked
 * {@code receive} or {@code send} throw an {@link IOException}. The channel owns the socket and
 * closes it.
 *
 * <p>A frame's buffer grows as its bytes arrive (up to the length its field announced, which the
 * limit bounds), so a peer that announces a large frame and sends nothing more costs nothing.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public final class FrameChannel implements AutoCloseable {
    private final SocketChannel channel;
    private final ReentrantLock sendLock = new ReentrantLock();
    /** Frames up to this size are read into {@link #frame}, larger ones into a buffer of their own. */
    private static final int REUSED_FRAME_BYTES = 64 * 1024;
    /** Closes channels whose {@link #receiveWithin} ran out of time; one daemon thread for the JVM. */
    private static final ScheduledExecutorService TIMEOUTS = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "urom-frame-timeouts");
        thread.setDaemon(true);
        return thread;
    });

    private final ByteBuffer lengthField =
            ByteBuffer.allocate(Protocol.LENGTH_FIELD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
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

    /** The limit for frames received now. */
    public int frameLimit() {
        return frameLimit;
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
        ByteBuffer into = length > REUSED_FRAME_BYTES ? readLarge(length) : readSmall(length);
        return FrameCodec.decode(into.flip());
    }

    /**
     * {@link #receive()}, but when no whole frame has arrived within {@code timeout} the channel is
     * closed and an IOException says so.
     */
    public Frame receiveWithin(Duration timeout) throws IOException, WireException {
        AtomicBoolean expired = new AtomicBoolean();
        ScheduledFuture<?> alarm = TIMEOUTS.schedule(
                () -> {
                    expired.set(true);
                    close();
                },
                Math.max(1, timeout.toNanos()),
                TimeUnit.NANOSECONDS);
        try {
            return receive();
        } catch (IOException e) {
            if (expired.get()) {
                throw new IOException("no frame arrived within " + timeout.toMillis() + " ms", e);
            }
            throw e;
        } finally {
            alarm.cancel(false);
        }
    }

    /** A frame of at most {@value #REUSED_FRAME_BYTES} bytes, read into the reused buffer (the decoder copies what it keeps). */
    private ByteBuffer readSmall(int length) throws IOException {
        if (frame.capacity() < length) {
            frame = ByteBuffer.allocate(Math.max(length, Math.min(2 * frame.capacity(), REUSED_FRAME_BYTES)));
        }
        ByteBuffer into = frame.clear().limit(length);
        if (!readFully(into)) {
            throw new EOFException("connection closed by the peer in the middle of a frame");
        }
        return into;
    }

    /** A larger frame, in a buffer that doubles as its bytes arrive. */
    private ByteBuffer readLarge(int length) throws IOException {
        ByteBuffer into = ByteBuffer.allocate(REUSED_FRAME_BYTES);
        while (true) {
            if (!readFully(into)) {
                throw new EOFException("connection closed by the peer in the middle of a frame");
            }
            if (into.capacity() == length) {
                return into;
            }
            ByteBuffer grown = ByteBuffer.allocate((int) Math.min(length, 2L * into.capacity()));
            into = grown.put(into.flip());
        }
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
