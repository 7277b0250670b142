// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The graph plugin's one message layout, used by both the command and its notification: {@code {
 * uint64 type; uint64 data; }}, little-endian, exactly {@value #BYTES} bytes.
 *
 * <p>Immutable; safe to share between threads.
 *
 * @param type the command type ({@link #LOOPBACK} is the only one the plugin supports)
 * @param data the value a LOOPBACK carries there and back
 */
public record GraphMessage(long type, long data) {
    /** Size of a command and of a notification payload. */
    public static final int BYTES = 16;

    /** The LOOPBACK command type. */
    public static final long LOOPBACK = 0;

    /** A LOOPBACK message carrying {@code data}. */
    public static GraphMessage loopback(long data) {
        return new GraphMessage(LOOPBACK, data);
    }

    /** This message in its 16-byte wire form. */
    public byte[] encode() {
        return ByteBuffer.allocate(BYTES)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(type)
                .putLong(data)
                .array();
    }

    /**
     * Reads a message from a payload.
     *
     * @throws UromException with {@link UromStatus#INVALID_VALUE} when {@code payload} is not
     *     exactly {@value #BYTES} bytes
     */
    public static GraphMessage decode(byte[] payload) throws UromException {
        if (payload.length != BYTES) {
            throw new UromException(
                    UromStatus.INVALID_VALUE,
                    "graph command of " + payload.length + " bytes refused: a graph command is exactly " + BYTES
                            + " bytes");
        }
        ByteBuffer buffer = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        return new GraphMessage(buffer.getLong(), buffer.getLong());
    }

    public boolean isLoopback() {
        return type == LOOPBACK;
    }
}
