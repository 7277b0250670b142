// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** A growing little-endian buffer that one frame is encoded into. Not thread-safe. */
final class BodyWriter {
    private ByteBuffer buf;

    BodyWriter(int initialCapacity) {
        buf = ByteBuffer.allocate(initialCapacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    private void ensure(int more) {
        if (buf.remaining() < more) {
            long needed = (long) buf.position() + more;
            int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, buf.capacity() * 2L));
            if (capacity < needed) {
                throw new IllegalArgumentException("message of " + needed + " bytes is too large to encode");
            }
            ByteBuffer bigger = ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
            buf.flip();
            bigger.put(buf);
            buf = bigger;
        }
    }

    BodyWriter u8(int v) {
        ensure(1);
        buf.put((byte) v);
        return this;
    }

    BodyWriter u16(int v) {
        ensure(2);
        buf.putShort((short) v);
        return this;
    }

    BodyWriter u32(int v) {
        ensure(4);
        buf.putInt(v);
        return this;
    }

    BodyWriter u64(long v) {
        ensure(8);
        buf.putLong(v);
        return this;
    }

    BodyWriter bytes(byte[] b) {
        ensure(b.length);
        buf.put(b);
        return this;
    }

    BodyWriter zeros(int n) {
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf.put((byte) 0);
        }
        return this;
    }

    BodyWriter string(String what, String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > 0xffff) {
            throw new IllegalArgumentException(
                    what + " is " + utf8.length + " bytes of UTF-8; a string on the wire holds at most 65535");
        }
        u16(utf8.length);
        return bytes(utf8);
    }

    int position() {
        return buf.position();
    }

    /** Writes {@code v} at {@code index} without moving the position. */
    void patchU32(int index, int v) {
        buf.putInt(index, v);
    }

    /** The bytes written so far, ready to read. */
    ByteBuffer finish() {
        return buf.flip();
    }
}
