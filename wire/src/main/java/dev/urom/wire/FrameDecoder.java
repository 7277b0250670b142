// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import dev.urom.spi.Api;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the bytes of one stream, read in pieces of any size (a non-blocking reader's selector
 * loop), into frames.
 *
 * <p>Not thread-safe: one decoder per connection, fed by one thread. A frame's length field is
 * checked against the frame limit, and the buffer of a partial frame grows as its bytes arrive (up to
 * that length), so a peer that announces a large frame and sends nothing more costs nothing. After a
 * {@link WireException} the stream cannot be resynchronised: close the connection.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public final class FrameDecoder {
    private final ByteBuffer lengthField =
            ByteBuffer.allocate(Protocol.LENGTH_FIELD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    /** The first buffer of a partial frame; it doubles as bytes arrive. */
    private static final int FIRST_PARTIAL_BYTES = 4096;

    private ByteBuffer partial;
    private int partialLength;
    private int frameLimit;

    /** @param frameLimit most bytes after a frame's length field */
    public FrameDecoder(int frameLimit) {
        setFrameLimit(frameLimit);
    }

    /** Changes the limit for frames whose length field is read after this call (e.g. after the handshake). */
    public void setFrameLimit(int frameLimit) {
        FrameLimits.checkLimit(frameLimit);
        this.frameLimit = frameLimit;
    }

    /** Whether part of a frame is buffered (a stream that ends now ends mid-frame). */
    public boolean hasPartialFrame() {
        return partial != null || lengthField.position() > 0;
    }

    /**
     * Consumes every remaining byte of {@code readBuffer} (in read mode: flipped) and returns the
     * frames completed by them, in order; possibly none.
     *
     * @throws WireException for a frame over the limit, a malformed frame or an unknown type
     */
    public List<Frame> feed(ByteBuffer readBuffer) throws WireException {
        List<Frame> frames = List.of();
        while (readBuffer.hasRemaining()) {
            if (partial == null) {
                int length;
                if (lengthField.position() == 0 && readBuffer.remaining() >= Protocol.LENGTH_FIELD_BYTES) {
                    int raw = readBuffer.getInt();
                    length = FrameLimits.check(
                            readBuffer.order() == ByteOrder.LITTLE_ENDIAN ? raw : Integer.reverseBytes(raw),
                            frameLimit);
                } else {
                    while (lengthField.hasRemaining() && readBuffer.hasRemaining()) {
                        lengthField.put(readBuffer.get());
                    }
                    if (lengthField.hasRemaining()) {
                        break;
                    }
                    length = FrameLimits.check(lengthField.getInt(0), frameLimit);
                    lengthField.clear();
                }
                if (readBuffer.remaining() >= length) {
                    ByteBuffer whole = readBuffer.slice().limit(length);
                    readBuffer.position(readBuffer.position() + length);
                    frames = add(frames, FrameCodec.decode(whole));
                    continue;
                }
                partial = ByteBuffer.allocate(Math.min(length, FIRST_PARTIAL_BYTES));
                partialLength = length;
            }
            if (!partial.hasRemaining()) {
                partial = ByteBuffer.allocate((int) Math.min(partialLength, 2L * partial.capacity()))
                        .put(partial.flip());
            }
            int n = Math.min(partial.remaining(), readBuffer.remaining());
            partial.put(readBuffer.slice().limit(n));
            readBuffer.position(readBuffer.position() + n);
            if (partial.position() == partialLength) {
                ByteBuffer whole = partial.flip();
                partial = null;
                frames = add(frames, FrameCodec.decode(whole));
            }
        }
        return frames;
    }

    private static List<Frame> add(List<Frame> frames, Frame f) {
        List<Frame> out = frames.isEmpty() ? new ArrayList<>(4) : frames;
        out.add(f);
        return out;
    }
}
