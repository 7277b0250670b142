// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The sandbox plugin's command bytes ({@code docs/sandbox-protocol.md}, "Commands"): a {@code u64
 * type} and a fixed part of u64 fields, little-endian, then the inline bytes of MEM_MAP (the path)
 * and of an inline TAG_SEND (the data). Decoding checks the layout only (type, lengths); the values
 * (a BOUNCE's ranges, say) are the plugin's to check.
 *
 * <p>TAG_SEND and TAG_RECV also come DOCA-sized ({@code docs/sandbox-protocol.md}, "DOCA-sized
 * commands"): a fixed part of {@value #DOCA_FIXED_BYTES_UCX_1_13} or {@value
 * #DOCA_FIXED_BYTES_UCX_1_14} bytes instead of 56, the same fields at the same offsets, then
 * bytes that are ignored (not kept; encoding writes zeros there). The size is told
 * by the command's length: an inline TAG_SEND's {@code length - count}, a region TAG_SEND's or a
 * TAG_RECV's length. A record keeps it ({@code fixedBytes}) so that the plugin answers in the
 * layout asked, and encodes its fixed part padded with zeros to it.
 *
 * <p>Records are immutable except for the arrays they hold, which they do not copy: whoever builds
 * one must not change the array afterwards. Safe to share between threads once built.
 */
public sealed interface SandboxCommand {
    long MEM_MAP = 0;
    long TAG_SEND = 1;
    long TAG_RECV = 2;
    long BOUNCE = 3;
    /** A BOUNCE's {@code role}: the initiator sends first and waits for the answer. */
    long BOUNCE_INITIATOR = 0;
    /** A BOUNCE's {@code role}: the responder waits for a message and sends it back. */
    long BOUNCE_RESPONDER = 1;
    /** The fixed part of our TAG_SEND and TAG_RECV (and of BOUNCE). */
    int TAG_FIXED_BYTES = 8 * 7;
    /**
     * The fixed part of DOCA's TAG_SEND and TAG_RECV from a host built with UCX 1.13 (Debian's): the
     * size of its command struct, {@code u64 type} and a union whose largest member is MEM_MAP's
     * ({@code u64 context}, a 40-byte {@code ucp_mem_map_params_t}, {@code size_t}).
     */
    int DOCA_FIXED_BYTES_UCX_1_13 = 64;
    /**
     * The same from a host built with UCX 1.14 or later, whose {@code ucp_mem_map_params_t} is 48
     * bytes (it adds {@code exported_memh_buffer}, which NVIDIA's host code uses).
     */
    int DOCA_FIXED_BYTES_UCX_1_14 = 72;

    /** The command's {@code type}. */
    long type();

    /** The caller's {@code context}, copied into the notification. */
    long context();

    /** This command in its wire form. */
    byte[] encode();

    /** MEM_MAP: map {@code length} bytes of the file named by {@code path} (raw bytes, no NUL). */
    record MemMap(long context, long length, byte[] path) implements SandboxCommand {
        static final int FIXED_BYTES = 8 * 4;

        public MemMap {
            requireNonNull(path, "path is null");
        }

        @Override
        public long type() {
            return MEM_MAP;
        }

        @Override
        public byte[] encode() {
            return littleEndian(FIXED_BYTES + path.length)
                    .putLong(MEM_MAP)
                    .putLong(context)
                    .putLong(length)
                    .putLong(path.length)
                    .put(path)
                    .array();
        }
    }

    /**
     * TAG_SEND to the peer with domain id {@code dest}: {@code data} holds the {@code count} inline
     * bytes when {@code memhId} is 0, and is empty otherwise (the data is then in the region).
     * {@code fixedBytes} is the size of its fixed part: {@value SandboxCommand#TAG_FIXED_BYTES} (ours),
     * or {@value SandboxCommand#DOCA_FIXED_BYTES_UCX_1_13} or {@value
     * SandboxCommand#DOCA_FIXED_BYTES_UCX_1_14} (DOCA's).
     *
     * @throws IllegalArgumentException for another {@code fixedBytes}
     */
    record TagSend(long context, long dest, long buffer, long count, long tag, long memhId, byte[] data, int fixedBytes)
            implements SandboxCommand {
        public TagSend {
            requireNonNull(data, "data is null");
            requireFixedBytes(fixedBytes);
        }

        /** A TAG_SEND in our layout (a fixed part of {@value SandboxCommand#TAG_FIXED_BYTES} bytes). */
        public TagSend(long context, long dest, long buffer, long count, long tag, long memhId, byte[] data) {
            this(context, dest, buffer, count, tag, memhId, data, TAG_FIXED_BYTES);
        }

        /** Whether this is a DOCA-sized command, answered in DOCA's notification layout. */
        public boolean docaSized() {
            return fixedBytes != TAG_FIXED_BYTES;
        }

        @Override
        public long type() {
            return TAG_SEND;
        }

        @Override
        public byte[] encode() {
            return littleEndian(fixedBytes + data.length)
                    .putLong(TAG_SEND)
                    .putLong(context)
                    .putLong(dest)
                    .putLong(buffer)
                    .putLong(count)
                    .putLong(tag)
                    .putLong(memhId)
                    .position(fixedBytes)
                    .put(data)
                    .array();
        }
    }

    /**
     * TAG_RECV of at most {@code count} bytes whose tag matches {@code tag} under {@code tagMask};
     * {@code fixedBytes}, its length, as for {@link TagSend}.
     *
     * @throws IllegalArgumentException for another {@code fixedBytes}
     */
    record TagRecv(long context, long buffer, long count, long tag, long tagMask, long memhId, int fixedBytes)
            implements SandboxCommand {
        public TagRecv {
            requireFixedBytes(fixedBytes);
        }

        /** A TAG_RECV in our layout ({@value SandboxCommand#TAG_FIXED_BYTES} bytes). */
        public TagRecv(long context, long buffer, long count, long tag, long tagMask, long memhId) {
            this(context, buffer, count, tag, tagMask, memhId, TAG_FIXED_BYTES);
        }

        /** Whether this is a DOCA-sized command, answered in DOCA's notification layout. */
        public boolean docaSized() {
            return fixedBytes != TAG_FIXED_BYTES;
        }

        @Override
        public long type() {
            return TAG_RECV;
        }

        @Override
        public byte[] encode() {
            return littleEndian(fixedBytes)
                    .putLong(TAG_RECV)
                    .putLong(context)
                    .putLong(buffer)
                    .putLong(count)
                    .putLong(tag)
                    .putLong(tagMask)
                    .putLong(memhId)
                    .array();
        }
    }

    /**
     * BOUNCE with the peer of domain id {@code dest}: {@code iterations} round trips of {@code
     * count}-byte messages with tag {@code tag}, as initiator ({@code role} {@value #BOUNCE_INITIATOR})
     * or responder ({@value #BOUNCE_RESPONDER}).
     */
    record Bounce(long context, long dest, long count, long tag, long iterations, long role) implements SandboxCommand {
        static final int BYTES = TAG_FIXED_BYTES;

        @Override
        public long type() {
            return BOUNCE;
        }

        @Override
        public byte[] encode() {
            return littleEndian(BYTES)
                    .putLong(BOUNCE)
                    .putLong(context)
                    .putLong(dest)
                    .putLong(count)
                    .putLong(tag)
                    .putLong(iterations)
                    .putLong(role)
                    .array();
        }
    }

    /**
     * Reads a command.
     *
     * @throws UromException {@code NOT_SUPPORTED} for an unknown type; {@code INVALID_VALUE} for a
     *     command shorter than 8 bytes or than its fixed part, a MEM_MAP whose trailing bytes are not
     *     exactly its path ({@code path_len}), an inline TAG_SEND whose {@code length - count} is not
     *     56, 64 or 72, a region TAG_SEND ({@code memh_id != 0}) or a TAG_RECV of other than 56, 64
     *     or 72 bytes, or a BOUNCE of other than 56 bytes; each message names the field and the
     *     lengths
     */
    static SandboxCommand decode(byte[] payload) throws UromException {
        if (payload.length < 8) {
            throw invalid(
                    "sandbox command of " + payload.length + " bytes refused: it is shorter than its 8-byte type");
        }
        ByteBuffer in = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        long type = in.getLong();
        if (type == MEM_MAP) {
            requireFixed("MEM_MAP", payload, MemMap.FIXED_BYTES);
            long context = in.getLong();
            long length = in.getLong();
            long pathLength = in.getLong();
            requireTrailing("MEM_MAP", "path_len", pathLength, payload.length - MemMap.FIXED_BYTES);
            byte[] path = new byte[(int) pathLength];
            in.get(path);
            return new MemMap(context, length, path);
        }
        if (type == TAG_SEND) {
            requireFixed("TAG_SEND", payload, TAG_FIXED_BYTES);
            long context = in.getLong();
            long dest = in.getLong();
            long buffer = in.getLong();
            long count = in.getLong();
            long tag = in.getLong();
            long memhId = in.getLong();
            int fixedBytes;
            if (memhId == 0) {
                if (Long.compareUnsigned(count, payload.length) > 0 || !isFixedSize(payload.length - (int) count)) {
                    throw invalid("sandbox TAG_SEND refused: count is " + Long.toUnsignedString(count) + " but "
                            + (payload.length - TAG_FIXED_BYTES) + " bytes follow the first " + TAG_FIXED_BYTES
                            + " (the fixed part is 56, 64 or 72 bytes, then count data bytes)");
                }
                fixedBytes = payload.length - (int) count;
            } else if (!isFixedSize(payload.length)) {
                throw invalid(
                        "sandbox TAG_SEND of " + payload.length + " bytes refused: a TAG_SEND from region memh_id "
                                + memhId + " is exactly its fixed part, 56, 64 or 72 bytes");
            } else {
                fixedBytes = payload.length;
            }
            byte[] data = Arrays.copyOfRange(payload, fixedBytes, payload.length);
            return new TagSend(context, dest, buffer, count, tag, memhId, data, fixedBytes);
        }
        if (type == TAG_RECV) {
            requireFixed("TAG_RECV", payload, TAG_FIXED_BYTES);
            if (!isFixedSize(payload.length)) {
                throw invalid("sandbox TAG_RECV of " + payload.length
                        + " bytes refused: a TAG_RECV is exactly 56, 64 or 72 bytes");
            }
            return new TagRecv(
                    in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong(), payload.length);
        }
        if (type == BOUNCE) {
            requireFixed("BOUNCE", payload, Bounce.BYTES);
            if (payload.length != Bounce.BYTES) {
                throw invalid("sandbox BOUNCE of " + payload.length + " bytes refused: a BOUNCE is exactly "
                        + Bounce.BYTES + " bytes");
            }
            return new Bounce(in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong());
        }
        throw new UromException(
                UromStatus.NOT_SUPPORTED,
                "sandbox command type " + Long.toUnsignedString(type)
                        + " is not supported: the sandbox plugin knows MEM_MAP (0), TAG_SEND (1), TAG_RECV (2) and BOUNCE (3)");
    }

    /** Whether {@code bytes} is the size of a TAG_SEND's or TAG_RECV's fixed part: ours or DOCA's. */
    private static boolean isFixedSize(int bytes) {
        return bytes == TAG_FIXED_BYTES || bytes == DOCA_FIXED_BYTES_UCX_1_13 || bytes == DOCA_FIXED_BYTES_UCX_1_14;
    }

    private static void requireFixedBytes(int fixedBytes) {
        if (!isFixedSize(fixedBytes)) {
            throw new IllegalArgumentException("a fixed part of " + fixedBytes + " bytes: it is 56, 64 or 72 bytes");
        }
    }

    private static void requireFixed(String name, byte[] payload, int fixedBytes) throws UromException {
        if (payload.length < fixedBytes) {
            throw invalid("sandbox " + name + " of " + payload.length + " bytes refused: its fixed part is "
                    + fixedBytes + " bytes");
        }
    }

    private static void requireTrailing(String name, String field, long declared, int actual) throws UromException {
        if (declared != actual) {
            throw invalid("sandbox " + name + " refused: " + field + " is " + Long.toUnsignedString(declared) + " but "
                    + actual + " bytes follow the fixed part");
        }
    }

    private static UromException invalid(String message) {
        return new UromException(UromStatus.INVALID_VALUE, message);
    }

    private static ByteBuffer littleEndian(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
