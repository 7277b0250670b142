package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The sandbox plugin's command bytes ({@code docs/sandbox-protocol.md}, "Commands"): a {@code u64
 * type} and a fixed part of u64 fields, little-endian, then the inline bytes of MEM_MAP (the path)
 * and of an inline TAG_SEND (the data). Decoding checks the layout only (type, lengths); the values
 * (a BOUNCE's ranges, say) are the plugin's to check.
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
            return littleEndian(FIXED_BYTES + path.length).putLong(MEM_MAP).putLong(context).putLong(length).putLong(path.length)
                    .put(path).array();
        }
    }

    /**
     * TAG_SEND to the peer with domain id {@code dest}: {@code data} holds the {@code count} inline
     * bytes when {@code memhId} is 0, and is empty otherwise (the data is then in the region).
     */
    record TagSend(long context, long dest, long buffer, long count, long tag, long memhId, byte[] data) implements SandboxCommand {
        static final int FIXED_BYTES = 8 * 7;

        public TagSend {
            requireNonNull(data, "data is null");
        }

        @Override
        public long type() {
            return TAG_SEND;
        }

        @Override
        public byte[] encode() {
            return littleEndian(FIXED_BYTES + data.length).putLong(TAG_SEND).putLong(context).putLong(dest).putLong(buffer)
                    .putLong(count).putLong(tag).putLong(memhId).put(data).array();
        }
    }

    /** TAG_RECV of at most {@code count} bytes whose tag matches {@code tag} under {@code tagMask}. */
    record TagRecv(long context, long buffer, long count, long tag, long tagMask, long memhId) implements SandboxCommand {
        static final int FIXED_BYTES = 8 * 7;

        @Override
        public long type() {
            return TAG_RECV;
        }

        @Override
        public byte[] encode() {
            return littleEndian(FIXED_BYTES).putLong(TAG_RECV).putLong(context).putLong(buffer).putLong(count).putLong(tag)
                    .putLong(tagMask).putLong(memhId).array();
        }
    }

    /**
     * BOUNCE with the peer of domain id {@code dest}: {@code iterations} round trips of {@code
     * count}-byte messages with tag {@code tag}, as initiator ({@code role} {@value #BOUNCE_INITIATOR})
     * or responder ({@value #BOUNCE_RESPONDER}).
     */
    record Bounce(long context, long dest, long count, long tag, long iterations, long role) implements SandboxCommand {
        static final int BYTES = 8 * 7;

        @Override
        public long type() {
            return BOUNCE;
        }

        @Override
        public byte[] encode() {
            return littleEndian(BYTES).putLong(BOUNCE).putLong(context).putLong(dest).putLong(count).putLong(tag).putLong(iterations)
                    .putLong(role).array();
        }
    }

    /**
     * Reads a command.
     *
     * @throws UromException {@code NOT_SUPPORTED} for an unknown type; {@code INVALID_VALUE} for a
     *     command shorter than 8 bytes or than its fixed part, or whose trailing bytes are not
     *     exactly its path ({@code path_len}) or inline data ({@code count}, none when {@code
     *     memh_id != 0}), or a TAG_RECV or BOUNCE of other than 56 bytes; each message names the
     *     field and the lengths
     */
    static SandboxCommand decode(byte[] payload) throws UromException {
        if (payload.length < 8) {
            throw invalid("sandbox command of " + payload.length + " bytes refused: it is shorter than its 8-byte type");
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
            requireFixed("TAG_SEND", payload, TagSend.FIXED_BYTES);
            long context = in.getLong();
            long dest = in.getLong();
            long buffer = in.getLong();
            long count = in.getLong();
            long tag = in.getLong();
            long memhId = in.getLong();
            int trailing = payload.length - TagSend.FIXED_BYTES;
            if (memhId == 0) {
                requireTrailing("TAG_SEND", "count", count, trailing);
            } else if (trailing != 0) {
                throw invalid("sandbox TAG_SEND refused: it carries " + trailing + " inline bytes but sends from region memh_id " + memhId);
            }
            byte[] data = new byte[trailing];
            in.get(data);
            return new TagSend(context, dest, buffer, count, tag, memhId, data);
        }
        if (type == TAG_RECV) {
            requireFixed("TAG_RECV", payload, TagRecv.FIXED_BYTES);
            if (payload.length != TagRecv.FIXED_BYTES) {
                throw invalid("sandbox TAG_RECV of " + payload.length + " bytes refused: a TAG_RECV is exactly " + TagRecv.FIXED_BYTES + " bytes");
            }
            return new TagRecv(in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong());
        }
        if (type == BOUNCE) {
            requireFixed("BOUNCE", payload, Bounce.BYTES);
            if (payload.length != Bounce.BYTES) {
                throw invalid("sandbox BOUNCE of " + payload.length + " bytes refused: a BOUNCE is exactly " + Bounce.BYTES + " bytes");
            }
            return new Bounce(in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong(), in.getLong());
        }
        throw new UromException(UromStatus.NOT_SUPPORTED, "sandbox command type " + Long.toUnsignedString(type)
                + " is not supported: the sandbox plugin knows MEM_MAP (0), TAG_SEND (1), TAG_RECV (2) and BOUNCE (3)");
    }

    private static void requireFixed(String name, byte[] payload, int fixedBytes) throws UromException {
        if (payload.length < fixedBytes) {
            throw invalid("sandbox " + name + " of " + payload.length + " bytes refused: its fixed part is " + fixedBytes + " bytes");
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
