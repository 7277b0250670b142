// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

import static dev.urom.plugins.coll.protocol.CollLayout.*;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A command from a host to its worker's collectives plugin, one record per {@link CommandType}.
 * {@link #encode} lays it out as {@code urom_coll.h} does; {@link #decode} takes exactly those
 * bytes back and throws {@link CollProtocolException} (reason BAD_COMMAND) for anything else: a
 * wrong length, version or type, or a reserved field that is not zero. Decoding checks the bytes
 * only: whether the values make sense (a known datatype, a team id in bounds) is the plugin's
 * question. Fields that the C structure holds as {@code uint32_t} are {@code long}s here in
 * {@code [0, 2^32)}; {@code uint64_t} fields are {@code long}s read as unsigned. Immutable.
 */
public sealed interface CollCommand {
    long U32_MAX = 0xffff_ffffL;

    CommandType type();

    /** The host's cookie, copied into the answer. */
    long cookie();

    byte[] encode();

    /**
     * Builds a team over the worker's domain.
     *
     * @param memberIds the ranks' domain ids when {@code members} is {@link CollLayout#MEMBERS_LIST}, else empty
     */
    record TeamCreate(
            long cookie,
            long teamId,
            long size,
            long rank,
            long members,
            long start,
            long stride,
            long chunkBytes,
            long smallBytes,
            long timeoutMs,
            long[] memberIds)
            implements CollCommand {
        public TeamCreate {
            u32("team_id", teamId);
            u32("size", size);
            u32("rank", rank);
            u32("members", members);
            u32("chunk_bytes", chunkBytes);
            u32("small_bytes", smallBytes);
            u32("timeout_ms", timeoutMs);
            memberIds = memberIds.clone();
            if (members == MEMBERS_LIST ? memberIds.length != size : memberIds.length != 0) {
                throw new IllegalArgumentException("a TEAM_CREATE has " + memberIds.length + " member ids for members "
                        + members + " and size " + size);
            }
        }

        /** A team of ranks {@code start + i * stride}. */
        public static TeamCreate range(
                long cookie,
                long teamId,
                long size,
                long rank,
                long start,
                long stride,
                long chunkBytes,
                long smallBytes,
                long timeoutMs) {
            return new TeamCreate(
                    cookie,
                    teamId,
                    size,
                    rank,
                    MEMBERS_RANGE,
                    start,
                    stride,
                    chunkBytes,
                    smallBytes,
                    timeoutMs,
                    new long[0]);
        }

        /** A team of the listed domain ids. */
        public static TeamCreate list(
                long cookie, long teamId, long rank, long[] ids, long chunkBytes, long smallBytes, long timeoutMs) {
            return new TeamCreate(
                    cookie, teamId, ids.length, rank, MEMBERS_LIST, 0, 0, chunkBytes, smallBytes, timeoutMs, ids);
        }

        @Override
        public long[] memberIds() {
            return memberIds.clone();
        }

        /** The domain id of rank {@code i} (range or list). */
        public long memberId(int i) {
            return members == MEMBERS_LIST ? memberIds[i] : start + i * stride;
        }

        @Override
        public CommandType type() {
            return CommandType.TEAM_CREATE;
        }

        @Override
        public byte[] encode() {
            ByteBuffer b = header(type(), cookie, TEAM_CREATE_SIZE + 8 * memberIds.length);
            b.putInt(TEAM_CREATE_TEAM_ID, (int) teamId)
                    .putInt(TEAM_CREATE_SIZE_FIELD, (int) size)
                    .putInt(TEAM_CREATE_RANK, (int) rank)
                    .putInt(TEAM_CREATE_MEMBERS, (int) members)
                    .putLong(TEAM_CREATE_START, start)
                    .putLong(TEAM_CREATE_STRIDE, stride)
                    .putInt(TEAM_CREATE_CHUNK_BYTES, (int) chunkBytes)
                    .putInt(TEAM_CREATE_SMALL_BYTES, (int) smallBytes)
                    .putInt(TEAM_CREATE_TIMEOUT_MS, (int) timeoutMs);
            for (int i = 0; i < memberIds.length; i++) {
                b.putLong(TEAM_CREATE_MEMBER_IDS + 8 * i, memberIds[i]);
            }
            return b.array();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TeamCreate t
                    && cookie == t.cookie
                    && teamId == t.teamId
                    && size == t.size
                    && rank == t.rank
                    && members == t.members
                    && start == t.start
                    && stride == t.stride
                    && chunkBytes == t.chunkBytes
                    && smallBytes == t.smallBytes
                    && timeoutMs == t.timeoutMs
                    && Arrays.equals(memberIds, t.memberIds);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(cookie) * 31 + Long.hashCode(teamId) * 17 + Arrays.hashCode(memberIds);
        }

        @Override
        public String toString() {
            return "TeamCreate[cookie=" + cookie + ", teamId=" + teamId + ", size=" + size + ", rank=" + rank
                    + ", members=" + members
                    + ", start=" + start + ", stride=" + stride + ", chunkBytes=" + chunkBytes + ", smallBytes="
                    + smallBytes
                    + ", timeoutMs=" + timeoutMs + ", memberIds=" + Arrays.toString(memberIds) + "]";
        }
    }

    /** Destroys a team, failing its pending collectives. */
    record TeamDestroy(long cookie, long teamId) implements CollCommand {
        public TeamDestroy {
            u32("team_id", teamId);
        }

        @Override
        public CommandType type() {
            return CommandType.TEAM_DESTROY;
        }

        @Override
        public byte[] encode() {
            return header(type(), cookie, TEAM_DESTROY_SIZE)
                    .putInt(TEAM_DESTROY_TEAM_ID, (int) teamId)
                    .array();
        }
    }

    /** Registers a range of the host's memory for {@code access} ({@link CollLayout#ACCESS_READ} and/or {@code ACCESS_WRITE}). */
    record MemMap(long cookie, long address, long length, long access) implements CollCommand {
        public MemMap {
            u32("access", access);
        }

        @Override
        public CommandType type() {
            return CommandType.MEM_MAP;
        }

        @Override
        public byte[] encode() {
            return header(type(), cookie, MEM_MAP_SIZE)
                    .putLong(MEM_MAP_ADDRESS, address)
                    .putLong(MEM_MAP_LENGTH, length)
                    .putInt(MEM_MAP_ACCESS, (int) access)
                    .array();
        }
    }

    /** Forgets a handle. */
    record MemUnmap(long cookie, long memh) implements CollCommand {
        @Override
        public CommandType type() {
            return CommandType.MEM_UNMAP;
        }

        @Override
        public byte[] encode() {
            return header(type(), cookie, MEM_UNMAP_SIZE)
                    .putLong(MEM_UNMAP_MEMH, memh)
                    .array();
        }
    }

    /** Starts a collective; {@code coll} (u16), {@code dtype} and {@code op} (u8) are raw codes, checked by the plugin. */
    record Post(
            long cookie,
            long teamId,
            int coll,
            int dtype,
            int op,
            long root,
            long flags,
            long count,
            long src,
            long dst,
            long srcMemh,
            long dstMemh)
            implements CollCommand {
        public Post {
            u32("team_id", teamId);
            if (coll < 0 || coll > 0xffff) {
                throw new IllegalArgumentException("coll " + coll + " is not a uint16_t");
            }
            if (dtype < 0 || dtype > 0xff || op < 0 || op > 0xff) {
                throw new IllegalArgumentException("dtype " + dtype + " or op " + op + " is not a uint8_t");
            }
            u32("root", root);
            u32("flags", flags);
        }

        /** A builder of the POST of team {@code teamId} under {@code cookie}; every field not named is 0. */
        public static Builder builder(long cookie, long teamId) {
            return new Builder(cookie, teamId);
        }

        /**
         * A POST's fields by name. Codes are raw, as on the wire, so that a test can post one the
         * plugin refuses. Mutable and not thread-safe; {@link #build} throws what the record does.
         */
        public static final class Builder {
            private final long cookie;
            private final long teamId;
            private int coll;
            private int dtype;
            private int op;
            private long root;
            private long flags;
            private long count;
            private long src;
            private long dst;
            private long srcMemh;
            private long dstMemh;

            private Builder(long cookie, long teamId) {
                this.cookie = cookie;
                this.teamId = teamId;
            }

            public Builder coll(int code) {
                coll = code;
                return this;
            }

            public Builder dtype(int code) {
                dtype = code;
                return this;
            }

            public Builder op(int code) {
                op = code;
                return this;
            }

            public Builder root(long rank) {
                root = rank;
                return this;
            }

            public Builder flags(long value) {
                flags = value;
                return this;
            }

            /** Elements per rank. */
            public Builder count(long elements) {
                count = elements;
                return this;
            }

            /** The source buffer's address. */
            public Builder src(long address) {
                src = address;
                return this;
            }

            /** The destination buffer's address. */
            public Builder dst(long address) {
                dst = address;
                return this;
            }

            /** The MEM_MAP handles of the source and destination buffers (0: none). */
            public Builder memh(long source, long destination) {
                srcMemh = source;
                dstMemh = destination;
                return this;
            }

            public Post build() {
                return new Post(cookie, teamId, coll, dtype, op, root, flags, count, src, dst, srcMemh, dstMemh);
            }
        }

        @Override
        public CommandType type() {
            return CommandType.POST;
        }

        @Override
        public byte[] encode() {
            return header(type(), cookie, POST_SIZE)
                    .putInt(POST_TEAM_ID, (int) teamId)
                    .putShort(POST_COLL, (short) coll)
                    .put(POST_DTYPE, (byte) dtype)
                    .put(POST_OP, (byte) op)
                    .putInt(POST_ROOT, (int) root)
                    .putInt(POST_FLAGS, (int) flags)
                    .putLong(POST_COUNT, count)
                    .putLong(POST_SRC, src)
                    .putLong(POST_DST, dst)
                    .putLong(POST_SRC_MEMH, srcMemh)
                    .putLong(POST_DST_MEMH, dstMemh)
                    .array();
        }
    }

    /**
     * The command in {@code bytes}: exactly one command's bytes.
     *
     * @throws CollProtocolException BAD_COMMAND, naming the field, for any other bytes
     */
    static CollCommand decode(byte[] bytes) throws CollProtocolException {
        if (bytes.length < CMD_HDR_SIZE) {
            throw CollProtocolException.bad(
                    "a command has " + bytes.length + " bytes, fewer than its header's " + CMD_HDR_SIZE);
        }
        ByteBuffer b = Wire.le(bytes);
        int typeCode = Wire.u16(b, CMD_HDR_TYPE);
        CommandType type = CommandType.ofCode(typeCode);
        if (type == null) {
            throw CollProtocolException.bad("command type " + typeCode + " is unknown");
        }
        Wire.version("the " + type + " command's", Wire.u16(b, CMD_HDR_VERSION));
        Wire.zero("the command header's reserved", Integer.toUnsignedLong(b.getInt(CMD_HDR_RESERVED)));
        long cookie = b.getLong(CMD_HDR_COOKIE);
        switch (type) {
            case TEAM_CREATE -> {
                if (bytes.length < TEAM_CREATE_SIZE) {
                    throw CollProtocolException.bad(
                            "TEAM_CREATE has " + bytes.length + " bytes, fewer than its fixed " + TEAM_CREATE_SIZE);
                }
                long size = u32(b, TEAM_CREATE_SIZE_FIELD);
                long members = u32(b, TEAM_CREATE_MEMBERS);
                if (members != MEMBERS_RANGE && members != MEMBERS_LIST) {
                    throw CollProtocolException.bad(
                            "TEAM_CREATE members is " + members + ", neither range (0) nor list (1)");
                }
                Wire.zero("TEAM_CREATE reserved", u32(b, TEAM_CREATE_RESERVED));
                long expected = TEAM_CREATE_SIZE + (members == MEMBERS_LIST ? 8 * size : 0);
                if (bytes.length != expected) {
                    throw CollProtocolException.bad("TEAM_CREATE has " + bytes.length + " bytes, not " + expected
                            + " for members " + members + " and size " + size);
                }
                long[] ids = new long[members == MEMBERS_LIST ? (int) size : 0];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = b.getLong(TEAM_CREATE_MEMBER_IDS + 8 * i);
                }
                return new TeamCreate(
                        cookie,
                        u32(b, TEAM_CREATE_TEAM_ID),
                        size,
                        u32(b, TEAM_CREATE_RANK),
                        members,
                        b.getLong(TEAM_CREATE_START),
                        b.getLong(TEAM_CREATE_STRIDE),
                        u32(b, TEAM_CREATE_CHUNK_BYTES),
                        u32(b, TEAM_CREATE_SMALL_BYTES),
                        u32(b, TEAM_CREATE_TIMEOUT_MS),
                        ids);
            }
            case TEAM_DESTROY -> {
                Wire.length("TEAM_DESTROY", bytes, TEAM_DESTROY_SIZE);
                Wire.zero("TEAM_DESTROY reserved", u32(b, TEAM_DESTROY_RESERVED));
                return new TeamDestroy(cookie, u32(b, TEAM_DESTROY_TEAM_ID));
            }
            case MEM_MAP -> {
                Wire.length("MEM_MAP", bytes, MEM_MAP_SIZE);
                Wire.zero("MEM_MAP reserved", u32(b, MEM_MAP_RESERVED));
                return new MemMap(
                        cookie, b.getLong(MEM_MAP_ADDRESS), b.getLong(MEM_MAP_LENGTH), u32(b, MEM_MAP_ACCESS));
            }
            case MEM_UNMAP -> {
                Wire.length("MEM_UNMAP", bytes, MEM_UNMAP_SIZE);
                return new MemUnmap(cookie, b.getLong(MEM_UNMAP_MEMH));
            }
            case POST -> {
                Wire.length("POST", bytes, POST_SIZE);
                return new Post(
                        cookie,
                        u32(b, POST_TEAM_ID),
                        Wire.u16(b, POST_COLL),
                        Wire.u8(b, POST_DTYPE),
                        Wire.u8(b, POST_OP),
                        u32(b, POST_ROOT),
                        u32(b, POST_FLAGS),
                        b.getLong(POST_COUNT),
                        b.getLong(POST_SRC),
                        b.getLong(POST_DST),
                        b.getLong(POST_SRC_MEMH),
                        b.getLong(POST_DST_MEMH));
            }
            default -> throw new AssertionError(type);
        }
    }

    /** The command type and cookie of {@code bytes}, for answering bytes that do not decode; null when too short for a header. */
    static long[] typeAndCookie(byte[] bytes) {
        if (bytes.length < CMD_HDR_SIZE) {
            return null;
        }
        ByteBuffer b = Wire.le(bytes);
        return new long[] {Wire.u16(b, CMD_HDR_TYPE), b.getLong(CMD_HDR_COOKIE)};
    }

    private static ByteBuffer header(CommandType type, long cookie, int size) {
        return Wire.allocate(size)
                .putShort(CMD_HDR_TYPE, (short) type.code())
                .putShort(CMD_HDR_VERSION, (short) PROTOCOL_VERSION)
                .putLong(CMD_HDR_COOKIE, cookie);
    }

    private static long u32(ByteBuffer b, int offset) {
        return Integer.toUnsignedLong(b.getInt(offset));
    }

    private static void u32(String field, long value) {
        if (value < 0 || value > U32_MAX) {
            throw new IllegalArgumentException(field + " " + value + " is not a uint32_t");
        }
    }
}
