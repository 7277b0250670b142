// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

import static dev.urom.plugins.coll.protocol.CollLayout.*;

import java.nio.ByteBuffer;

/**
 * The answer to one command: {@code struct urom_coll_notif_hdr} ({@link Header}) and the body of
 * the command's type, one record per {@link CommandType}. {@link #encode} lays it out as {@code
 * urom_coll.h} does; {@link #decode} takes exactly those bytes back and throws {@link
 * CollProtocolException} (BAD_COMMAND, naming the field) for a wrong length, version or type or a
 * reserved field that is not zero. Immutable.
 */
public sealed interface CollNotification {
    Header header();

    byte[] encode();

    /**
     * The header every answer starts with.
     *
     * @param type the command's type code
     * @param status a {@code urom_status_t} number, 0 on success
     * @param reason a {@link Reason} code
     * @param detail a rank or a field, where the reason says so (u32)
     */
    record Header(int type, int status, long cookie, int reason, long detail) {
        public Header {
            if (type < 0 || type > 0xffff) {
                throw new IllegalArgumentException("type " + type + " is not a uint16_t");
            }
            if (detail < 0 || detail > CollCommand.U32_MAX) {
                throw new IllegalArgumentException("detail " + detail + " is not a uint32_t");
            }
        }

        /** A successful answer to a command of {@code type} with {@code cookie}. */
        public static Header success(CommandType type, long cookie) {
            return new Header(type.code(), 0, cookie, Reason.NONE.code(), 0);
        }

        /** A failed answer: the reason's status, the reason and the detail. */
        public static Header failure(int type, long cookie, Reason reason, long detail) {
            return new Header(type, reason.status(), cookie, reason.code(), detail);
        }

        /** The reason, or null when the code is not one. */
        public Reason reasonValue() {
            return Reason.ofCode(reason);
        }

        void write(ByteBuffer b) {
            b.putShort(NOTIF_HDR_TYPE, (short) type)
                    .putShort(NOTIF_HDR_VERSION, (short) PROTOCOL_VERSION)
                    .putInt(NOTIF_HDR_STATUS, status)
                    .putLong(NOTIF_HDR_COOKIE, cookie)
                    .putInt(NOTIF_HDR_REASON, reason)
                    .putInt(NOTIF_HDR_DETAIL, (int) detail);
        }
    }

    record TeamCreateDone(Header header, long teamId, long rank, long size) implements CollNotification {
        @Override
        public byte[] encode() {
            return body(header, NOTIF_TEAM_CREATE_SIZE)
                    .putInt(NOTIF_TEAM_CREATE_TEAM_ID, (int) teamId)
                    .putInt(NOTIF_TEAM_CREATE_RANK, (int) rank)
                    .putInt(NOTIF_TEAM_CREATE_SIZE_FIELD, (int) size)
                    .array();
        }
    }

    record TeamDestroyDone(Header header, long teamId) implements CollNotification {
        @Override
        public byte[] encode() {
            return body(header, NOTIF_TEAM_DESTROY_SIZE)
                    .putInt(NOTIF_TEAM_DESTROY_TEAM_ID, (int) teamId)
                    .array();
        }
    }

    record MemMapDone(Header header, long memh) implements CollNotification {
        @Override
        public byte[] encode() {
            return body(header, NOTIF_MEM_MAP_SIZE)
                    .putLong(NOTIF_MEM_MAP_MEMH, memh)
                    .array();
        }
    }

    record MemUnmapDone(Header header) implements CollNotification {
        @Override
        public byte[] encode() {
            return body(header, NOTIF_MEM_UNMAP_SIZE).array();
        }
    }

    record PostDone(Header header, long teamId, long sequence) implements CollNotification {
        @Override
        public byte[] encode() {
            return body(header, NOTIF_POST_SIZE)
                    .putInt(NOTIF_POST_TEAM_ID, (int) teamId)
                    .putLong(NOTIF_POST_SEQUENCE, sequence)
                    .array();
        }
    }

    /**
     * A failed answer to a command of type {@code type} with {@code cookie}: the header and, for a
     * known type, that type's body with every field zero (for an unknown type, the header alone).
     */
    static byte[] failure(int type, long cookie, Reason reason, long detail) {
        CommandType known = CommandType.ofCode(type);
        ByteBuffer b = Wire.allocate(known == null ? NOTIF_HDR_SIZE : known.answerSize());
        Header.failure(type, cookie, reason, detail).write(b);
        return b.array();
    }

    /**
     * The notification in {@code bytes}.
     *
     * @throws CollProtocolException BAD_COMMAND, naming the field, for any other bytes
     */
    static CollNotification decode(byte[] bytes) throws CollProtocolException {
        if (bytes.length < NOTIF_HDR_SIZE) {
            throw CollProtocolException.bad(
                    "a notification has " + bytes.length + " bytes, fewer than its header's " + NOTIF_HDR_SIZE);
        }
        ByteBuffer b = Wire.le(bytes);
        int typeCode = Wire.u16(b, NOTIF_HDR_TYPE);
        CommandType type = CommandType.ofCode(typeCode);
        if (type == null) {
            throw CollProtocolException.bad("notification type " + typeCode + " is unknown");
        }
        Wire.version("the " + type + " notification's", Wire.u16(b, NOTIF_HDR_VERSION));
        Wire.length(type + " notification", bytes, type.answerSize());
        Header header = new Header(
                typeCode,
                b.getInt(NOTIF_HDR_STATUS),
                b.getLong(NOTIF_HDR_COOKIE),
                b.getInt(NOTIF_HDR_REASON),
                Integer.toUnsignedLong(b.getInt(NOTIF_HDR_DETAIL)));
        return switch (type) {
            case TEAM_CREATE -> {
                Wire.zero("TEAM_CREATE notification reserved", b.getInt(NOTIF_TEAM_CREATE_RESERVED));
                yield new TeamCreateDone(
                        header,
                        u32(b, NOTIF_TEAM_CREATE_TEAM_ID),
                        u32(b, NOTIF_TEAM_CREATE_RANK),
                        u32(b, NOTIF_TEAM_CREATE_SIZE_FIELD));
            }
            case TEAM_DESTROY -> {
                Wire.zero("TEAM_DESTROY notification reserved", b.getInt(NOTIF_TEAM_DESTROY_RESERVED));
                yield new TeamDestroyDone(header, u32(b, NOTIF_TEAM_DESTROY_TEAM_ID));
            }
            case MEM_MAP -> new MemMapDone(header, b.getLong(NOTIF_MEM_MAP_MEMH));
            case MEM_UNMAP -> new MemUnmapDone(header);
            case POST -> {
                Wire.zero("POST notification reserved", b.getInt(NOTIF_POST_RESERVED));
                yield new PostDone(header, u32(b, NOTIF_POST_TEAM_ID), b.getLong(NOTIF_POST_SEQUENCE));
            }
        };
    }

    private static ByteBuffer body(Header header, int size) {
        if (CommandType.ofCode(header.type()) == null
                || CommandType.ofCode(header.type()).answerSize() != size) {
            throw new IllegalStateException("a notification of " + size + " bytes with header type " + header.type());
        }
        ByteBuffer b = Wire.allocate(size);
        header.write(b);
        return b;
    }

    private static long u32(ByteBuffer b, int offset) {
        return Integer.toUnsignedLong(b.getInt(offset));
    }
}
