package dev.urom.plugins.sandbox;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reassembles the frames of one connection from the chunks it is fed, however they are split.
 * Checks the magic, the kind, and a MESSAGE length against {@link Frames#MAX_MESSAGE_BYTES} before
 * allocating its data; these three are the protocol errors (a HELLO anywhere, or a frame after BYE,
 * is accepted as is).
 *
 * <p>Not thread-safe: one per connection, used from the plugin's driving thread. After it reported
 * a protocol error it reads nothing more.
 */
final class FrameReader {
    /** What the reader finds in a stream. */
    interface Listener {
        void hello(long senderDomainId);

        void message(long tag, byte[] data);

        void bye();

        /** The stream broke the protocol; {@code reason} is one line naming what. */
        void protocolError(String reason);
    }

    private enum State { HEADER, HELLO_BODY, MESSAGE_HEADER, MESSAGE_DATA, BROKEN }

    private final Listener listener;
    private final ByteBuffer header = ByteBuffer.allocate(Frames.MESSAGE_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private State state = State.HEADER;
    private long messageTag;
    private ByteBuffer messageData;

    FrameReader(Listener listener) {
        this.listener = listener;
        header.limit(Frames.HEADER_BYTES);
    }

    /** Whether a protocol error ended the stream. */
    boolean broken() {
        return state == State.BROKEN;
    }

    /** Whether the stream ended on a frame boundary (nothing half-read). */
    boolean atFrameBoundary() {
        return state == State.HEADER && header.position() == 0;
    }

    /** Consumes all of {@code chunk} (or up to the end of the stream), reporting each frame completed. */
    void feed(ByteBuffer chunk) {
        while (state != State.BROKEN && chunk.hasRemaining()) {
            switch (state) {
                case HEADER, HELLO_BODY, MESSAGE_HEADER -> {
                    copy(chunk, header);
                    if (!header.hasRemaining()) {
                        header.flip();
                        headerComplete();
                    }
                }
                case MESSAGE_DATA -> {
                    copy(chunk, messageData);
                    if (!messageData.hasRemaining()) {
                        byte[] data = messageData.array();
                        messageData = null;
                        expectHeader();
                        listener.message(messageTag, data);
                    }
                }
                default -> throw new IllegalStateException(state.name());
            }
        }
    }

    private void headerComplete() {
        switch (state) {
            case HEADER -> {
                int magic = header.getInt();
                int kind = header.getInt();
                if (magic != Frames.MAGIC) {
                    fail("bad magic 0x" + Integer.toHexString(magic) + " (expected 0x" + Integer.toHexString(Frames.MAGIC) + ")");
                } else if (kind == Frames.HELLO) {
                    expect(State.HELLO_BODY, 8);
                } else if (kind == Frames.MESSAGE) {
                    expect(State.MESSAGE_HEADER, Frames.MESSAGE_HEADER_BYTES);
                } else if (kind == Frames.BYE) {
                    expectHeader();
                    listener.bye();
                } else {
                    fail("unknown frame kind " + Integer.toUnsignedString(kind));
                }
            }
            case HELLO_BODY -> {
                long sender = header.getLong();
                expectHeader();
                listener.hello(sender);
            }
            case MESSAGE_HEADER -> {
                messageTag = header.getLong();
                long length = header.getLong();
                if (length < 0 || length > Frames.MAX_MESSAGE_BYTES) {
                    fail("a MESSAGE of " + Long.toUnsignedString(length) + " bytes exceeds the " + Frames.MAX_MESSAGE_BYTES + "-byte limit");
                } else {
                    state = State.MESSAGE_DATA;
                    messageData = ByteBuffer.allocate((int) length);
                    if (length == 0) {
                        messageData = null;
                        expectHeader();
                        listener.message(messageTag, new byte[0]);
                    }
                }
            }
            default -> throw new IllegalStateException(state.name());
        }
    }

    private void expectHeader() {
        expect(State.HEADER, Frames.HEADER_BYTES);
    }

    private void expect(State next, int bytes) {
        state = next;
        header.clear().limit(bytes);
    }

    private void fail(String reason) {
        state = State.BROKEN;
        listener.protocolError(reason);
    }

    private static void copy(ByteBuffer from, ByteBuffer to) {
        int n = Math.min(from.remaining(), to.remaining());
        to.put(to.position(), from, from.position(), n);
        to.position(to.position() + n);
        from.position(from.position() + n);
    }
}
