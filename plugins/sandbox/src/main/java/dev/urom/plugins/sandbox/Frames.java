package dev.urom.plugins.sandbox;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes the worker-to-worker frames ({@code docs/sandbox-protocol.md}, "Worker to worker"): {@code
 * u32 magic, u32 kind}, then HELLO {@code u64 sender_domain_id}, MESSAGE {@code u64 tag, u64
 * length, data}, or BYE (nothing). Little-endian. Stateless.
 */
final class Frames {
    static final int MAGIC = 0x58424453;
    static final int HELLO = 1;
    static final int MESSAGE = 2;
    static final int BYE = 3;
    static final int HEADER_BYTES = 8;
    static final int MESSAGE_HEADER_BYTES = 16;
    /** Longest MESSAGE data: 64 MiB. */
    static final long MAX_MESSAGE_BYTES = 64L << 20;
    /** The HELLO sender id of a plugin that does not know its domain id. */
    static final long UNKNOWN_DOMAIN_ID = -1L;

    private Frames() {}

    /** A HELLO frame, ready to write. */
    static ByteBuffer hello(long senderDomainId) {
        return buffer(HEADER_BYTES + 8).putInt(MAGIC).putInt(HELLO).putLong(senderDomainId).flip();
    }

    /** A MESSAGE frame, ready to write. */
    static ByteBuffer message(long tag, byte[] data) {
        return messageHeader(tag, data.length).put(data).flip();
    }

    /**
     * A MESSAGE frame of {@code length} data bytes with its header written: the caller puts the data
     * between the position and the limit, then flips the buffer to write it.
     */
    static ByteBuffer messageHeader(long tag, int length) {
        if (length > MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("message of " + length + " bytes exceeds the " + MAX_MESSAGE_BYTES + "-byte limit");
        }
        return buffer(HEADER_BYTES + MESSAGE_HEADER_BYTES + length).putInt(MAGIC).putInt(MESSAGE).putLong(tag).putLong(length);
    }

    /** A BYE frame, ready to write. */
    static ByteBuffer bye() {
        return buffer(HEADER_BYTES).putInt(MAGIC).putInt(BYE).flip();
    }

    private static ByteBuffer buffer(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
