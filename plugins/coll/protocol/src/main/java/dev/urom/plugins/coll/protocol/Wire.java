// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Little-endian reads and checks shared by the codecs. Stateless. */
final class Wire {
    private Wire() {}

    static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    static ByteBuffer allocate(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    static int u16(ByteBuffer b, int offset) {
        return Short.toUnsignedInt(b.getShort(offset));
    }

    static int u8(ByteBuffer b, int offset) {
        return Byte.toUnsignedInt(b.get(offset));
    }

    static void length(String what, byte[] bytes, int expected) throws CollProtocolException {
        if (bytes.length != expected) {
            throw CollProtocolException.bad(what + " has " + bytes.length + " bytes, not " + expected);
        }
    }

    static void version(String what, int version) throws CollProtocolException {
        if (version != CollLayout.PROTOCOL_VERSION) {
            throw CollProtocolException.bad(what + " version is " + version + ", not " + CollLayout.PROTOCOL_VERSION);
        }
    }

    static void zero(String field, long value) throws CollProtocolException {
        if (value != 0) {
            throw CollProtocolException.bad(field + " is 0x" + Long.toHexString(value) + ", not 0");
        }
    }
}
