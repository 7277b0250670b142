// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads the fields of one message body, little-endian, checking every length against what is
 * left; every failure is a {@link WireException} naming the message type and the field. Not
 * thread-safe.
 */
final class BodyReader {
    private final ByteBuffer in;
    private final MessageType type;

    BodyReader(ByteBuffer body, MessageType type) {
        this.in = body.slice().order(ByteOrder.LITTLE_ENDIAN);
        this.type = type;
    }

    WireException malformed(String what) {
        return new WireException(WireException.Reason.MALFORMED, type + ": " + what);
    }

    private void need(int bytes, String field) throws WireException {
        if (in.remaining() < bytes) {
            throw malformed("body ends inside " + field + " (needs " + bytes + " bytes, " + in.remaining() + " left)");
        }
    }

    int remaining() {
        return in.remaining();
    }

    int u8(String field) throws WireException {
        need(1, field);
        return Byte.toUnsignedInt(in.get());
    }

    int u16(String field) throws WireException {
        need(2, field);
        return Short.toUnsignedInt(in.getShort());
    }

    long u32(String field) throws WireException {
        need(4, field);
        return Integer.toUnsignedLong(in.getInt());
    }

    int i32(String field) throws WireException {
        need(4, field);
        return in.getInt();
    }

    long u64(String field) throws WireException {
        need(8, field);
        return in.getLong();
    }

    void skip(int bytes, String field) throws WireException {
        need(bytes, field);
        in.position(in.position() + bytes);
    }

    byte[] bytes(long count, String field) throws WireException {
        if (count < 0 || count > in.remaining()) {
            throw malformed(
                    field + " says " + Long.toUnsignedString(count) + " bytes but " + in.remaining() + " are left");
        }
        byte[] b = new byte[(int) count];
        in.get(b);
        return b;
    }

    String string(String field) throws WireException {
        int len = u16(field + " length");
        need(len, field);
        ByteBuffer slice = in.slice().limit(len);
        in.position(in.position() + len);
        return utf8(slice, field);
    }

    String utf8(ByteBuffer bytes, String field) throws WireException {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes)
                    .toString();
        } catch (CharacterCodingException e) {
            throw malformed(field + " is not valid UTF-8");
        }
    }

    /**
     * Reads a list count and checks that {@code count} items of at least {@code minItemBytes}
     * each can fit in what is left, before anything is allocated for them.
     */
    int count(String field, int minItemBytes) throws WireException {
        long count = u32(field + " count");
        if (count * minItemBytes > in.remaining()) {
            throw malformed(field + " count " + count + " needs at least " + count * minItemBytes + " bytes but "
                    + in.remaining() + " are left");
        }
        return (int) count;
    }

    void finish() throws WireException {
        if (in.hasRemaining()) {
            throw malformed("body has " + in.remaining() + " bytes left over");
        }
    }
}
