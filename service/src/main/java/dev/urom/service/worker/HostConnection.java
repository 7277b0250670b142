// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.wire.FrameDecoder;
import dev.urom.wire.ServerHandshake;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;

/**
 * One host's data connection to this worker: its dest id, its frame decoder, its handshake and
 * its deadline, its commands in flight, and the bytes still to be written to it.
 *
 * <p>Not thread-safe: owned by the {@link DataPlane} thread. Writes never block: what the socket
 * does not take is queued (copied) and {@code OP_WRITE} is asked for until the queue is empty.
 * While more than a given number of bytes are queued, the connection is not read
 * ({@link #pauseReadingWhileOver}); reading resumes once half of them are written.
 */
final class HostConnection {
    enum State {
        /** Connected; the handshake runs (HELLO, and PROOF when a key is proved). */
        AWAITING_HELLO,
        /** Handshake done: commands are accepted. */
        OPEN,
        /** STOP received: answered with STOP_OK after this round's notifications. */
        STOPPING,
        /** Nothing more is read; the connection closes once its output is written. */
        CLOSING
    }

    private final long id;
    private final SocketChannel channel;
    private final SelectionKey key;
    private final FrameDecoder decoder;
    private final ServerHandshake handshake;
    private final long handshakeDeadline;
    private final ArrayDeque<ByteBuffer> output = new ArrayDeque<>();
    private long queuedBytes;
    private boolean readingPaused;
    private int inFlight;
    private State state = State.AWAITING_HELLO;
    private String closeReason;
    private boolean refused;

    /** @param handshakeDeadline the {@link System#nanoTime()} by which the handshake must have ended */
    HostConnection(
            long id,
            SocketChannel channel,
            SelectionKey key,
            FrameDecoder decoder,
            ServerHandshake handshake,
            long handshakeDeadline) {
        this.id = id;
        this.channel = channel;
        this.key = key;
        this.decoder = decoder;
        this.handshake = handshake;
        this.handshakeDeadline = handshakeDeadline;
    }

    ServerHandshake handshake() {
        return handshake;
    }

    long handshakeDeadline() {
        return handshakeDeadline;
    }

    /** Commands of this connection the plugins have not answered yet. */
    int inFlight() {
        return inFlight;
    }

    void inFlight(int value) {
        inFlight = value;
    }

    /** This connection's dest id (HELLO_OK's connection id). */
    long id() {
        return id;
    }

    SocketChannel channel() {
        return channel;
    }

    FrameDecoder decoder() {
        return decoder;
    }

    State state() {
        return state;
    }

    void state(State newState) {
        state = newState;
    }

    /** Whether the worker refused this connection (its refusal is logged; its close is not). */
    boolean refused() {
        return refused;
    }

    void markRefused() {
        refused = true;
    }

    /** Why the connection is closing (set with {@link #closeAfterOutput}); null while it is not. */
    String closeReason() {
        return closeReason;
    }

    /**
     * Writes {@code frame} (position to limit) now as far as the socket takes it and queues a copy
     * of the rest. Consumes {@code frame}; the caller may reuse it afterwards.
     *
     * @throws IOException when the write fails: the connection is broken
     */
    void send(ByteBuffer frame) throws IOException {
        if (output.isEmpty()) {
            channel.write(frame);
            if (!frame.hasRemaining()) {
                return;
            }
            key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
        }
        ByteBuffer rest = ByteBuffer.allocate(frame.remaining());
        rest.put(frame).flip();
        output.add(rest);
        queuedBytes += rest.remaining();
    }

    /** Stops reading this connection while more than {@code limit} bytes wait to be written to it. */
    void pauseReadingWhileOver(int limit) {
        if (!readingPaused && queuedBytes > limit && key.isValid()) {
            readingPaused = true;
            key.interestOps(key.interestOps() & ~SelectionKey.OP_READ);
        }
    }

    /**
     * Writes queued output as far as the socket takes it, and reads again once no more than half of
     * {@code pauseLimit} bytes are left.
     *
     * @return whether everything queued has been written
     * @throws IOException when the write fails
     */
    boolean flush(int pauseLimit) throws IOException {
        ByteBuffer head;
        boolean all = true;
        while ((head = output.peek()) != null) {
            queuedBytes -= channel.write(head);
            if (head.hasRemaining()) {
                all = false;
                break;
            }
            output.poll();
        }
        if (readingPaused && queuedBytes <= pauseLimit / 2 && state != State.CLOSING) {
            readingPaused = false;
            key.interestOps(key.interestOps() | SelectionKey.OP_READ);
        }
        if (all) {
            key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
        }
        return all;
    }

    boolean hasOutput() {
        return !output.isEmpty();
    }

    /** Stops reading: the connection is closed once its queued output is written. */
    void closeAfterOutput(String reason) {
        state = State.CLOSING;
        closeReason = reason;
        if (key.isValid()) {
            key.interestOps(key.interestOps() & ~SelectionKey.OP_READ);
        }
    }

    /** Closes the socket; idempotent. */
    void close() {
        key.cancel();
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing a socket that failed: nothing left to do
        }
    }
}
