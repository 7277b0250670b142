// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The sandbox plugin's notification bytes ({@code docs/sandbox-protocol.md}, "Notifications"),
 * little-endian, each starting with the {@code u64 type} of the command it answers.
 *
 * <p>A DOCA-sized TAG_SEND or TAG_RECV ({@code docs/sandbox-protocol.md}, "DOCA-sized commands") is
 * answered in DOCA's layout ({@code docaLayout}): the TAG_SEND answer is {@value #DOCA_BYTES}
 * bytes, the size of DOCA's notification struct, zero after its status; the TAG_RECV answer keeps
 * our layout, which is DOCA's; and the status inside either is UCX's {@code ucs_status_t} ({@link
 * UcsStatus#of}) instead of our status code. The descriptor's status stays ours in both layouts.
 *
 * <p>Records are immutable except for the array {@link TagRecvDone} holds, which it does not copy.
 */
public sealed interface SandboxNotification {
    /** The size of DOCA's notification struct, {@code u64 type} and the union of the answers. */
    int DOCA_BYTES = 48;

    /** This notification in its wire form. */
    byte[] encode();

    /** The answer to a MEM_MAP: the new region's {@code memhId}. */
    record MemMapDone(long context, long memhId) implements SandboxNotification {
        static final int BYTES = 24;

        @Override
        public byte[] encode() {
            return littleEndian(BYTES)
                    .putLong(SandboxCommand.MEM_MAP)
                    .putLong(context)
                    .putLong(memhId)
                    .array();
        }
    }

    /**
     * The answer to a TAG_SEND: {@value #BYTES} bytes with our status code, or ({@code docaLayout})
     * {@value SandboxNotification#DOCA_BYTES} bytes with its {@code ucs_status_t}.
     */
    record TagSendDone(long context, UromStatus status, boolean docaLayout) implements SandboxNotification {
        static final int BYTES = 24;

        public TagSendDone {
            requireNonNull(status, "status is null");
        }

        /** The answer in our layout. */
        public TagSendDone(long context, UromStatus status) {
            this(context, status, false);
        }

        @Override
        public byte[] encode() {
            int code = docaLayout ? UcsStatus.of(status) : status.code();
            return littleEndian(docaLayout ? DOCA_BYTES : BYTES)
                    .putLong(SandboxCommand.TAG_SEND)
                    .putLong(context)
                    .putInt(code)
                    .putInt(0)
                    .array();
        }
    }

    /**
     * The answer to a TAG_RECV: {@code data} is the received bytes of an inline receive that
     * succeeded, and empty otherwise. The same layout either way; {@code docaLayout}, the status
     * field is its {@code ucs_status_t}.
     */
    record TagRecvDone(
            long context, long buffer, long count, long senderTag, UromStatus status, byte[] data, boolean docaLayout)
            implements SandboxNotification {
        static final int FIXED_BYTES = 48;

        public TagRecvDone {
            requireNonNull(status, "status is null");
            requireNonNull(data, "data is null");
        }

        /** The answer in our layout. */
        public TagRecvDone(long context, long buffer, long count, long senderTag, UromStatus status, byte[] data) {
            this(context, buffer, count, senderTag, status, data, false);
        }

        @Override
        public byte[] encode() {
            int code = docaLayout ? UcsStatus.of(status) : status.code();
            return littleEndian(FIXED_BYTES + data.length)
                    .putLong(SandboxCommand.TAG_RECV)
                    .putLong(context)
                    .putLong(buffer)
                    .putLong(count)
                    .putLong(senderTag)
                    .putInt(code)
                    .putInt(0)
                    .put(data)
                    .array();
        }
    }

    /**
     * The answer to a BOUNCE that ran: {@code elapsedNs} from the start of its run to its end, the
     * rounds done, and how it ended.
     */
    record BounceDone(long context, long elapsedNs, long iterationsDone, UromStatus status)
            implements SandboxNotification {
        static final int BYTES = 40;

        public BounceDone {
            requireNonNull(status, "status is null");
        }

        @Override
        public byte[] encode() {
            return littleEndian(BYTES)
                    .putLong(SandboxCommand.BOUNCE)
                    .putLong(context)
                    .putLong(elapsedNs)
                    .putLong(iterationsDone)
                    .putInt(status.code())
                    .putInt(0)
                    .array();
        }
    }

    /**
     * Reads a notification of our layout (for tests and tools; the plugin only writes them). A
     * DOCA-layout answer is not read back: its {@code ucs_status_t} does not name one status of ours.
     *
     * @throws IllegalArgumentException naming the type or the length that is wrong
     */
    static SandboxNotification decode(byte[] bytes) {
        if (bytes.length < 8) {
            throw new IllegalArgumentException(
                    "sandbox notification of " + bytes.length + " bytes is shorter than its type");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long type = in.getLong();
        if (type == SandboxCommand.MEM_MAP) {
            requireLength("MEM_MAP", bytes.length == MemMapDone.BYTES, bytes.length);
            return new MemMapDone(in.getLong(), in.getLong());
        }
        if (type == SandboxCommand.TAG_SEND) {
            requireLength("TAG_SEND", bytes.length == TagSendDone.BYTES, bytes.length);
            long context = in.getLong();
            UromStatus status = UromStatus.fromCode(in.getInt());
            in.getInt();
            return new TagSendDone(context, status);
        }
        if (type == SandboxCommand.TAG_RECV) {
            requireLength("TAG_RECV", bytes.length >= TagRecvDone.FIXED_BYTES, bytes.length);
            long context = in.getLong();
            long buffer = in.getLong();
            long count = in.getLong();
            long senderTag = in.getLong();
            UromStatus status = UromStatus.fromCode(in.getInt());
            in.getInt();
            byte[] data = new byte[in.remaining()];
            in.get(data);
            return new TagRecvDone(context, buffer, count, senderTag, status, data);
        }
        if (type == SandboxCommand.BOUNCE) {
            requireLength("BOUNCE", bytes.length == BounceDone.BYTES, bytes.length);
            long context = in.getLong();
            long elapsedNs = in.getLong();
            long done = in.getLong();
            UromStatus status = UromStatus.fromCode(in.getInt());
            in.getInt();
            return new BounceDone(context, elapsedNs, done, status);
        }
        throw new IllegalArgumentException("sandbox notification type " + Long.toUnsignedString(type) + " is unknown");
    }

    private static void requireLength(String name, boolean ok, int length) {
        if (!ok) {
            throw new IllegalArgumentException(
                    "sandbox " + name + " notification of " + length + " bytes has the wrong length");
        }
    }

    private static ByteBuffer littleEndian(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
