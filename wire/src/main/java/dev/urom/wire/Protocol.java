// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import dev.urom.spi.Api;

/**
 * Constants of the wire protocol (docs/wire-protocol.md), version 2.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public final class Protocol {
    /** The protocol version this code speaks. */
    public static final int VERSION = 2;
    /** {@code "UROM"} read as a little-endian u32. */
    public static final int MAGIC = 0x4d4f5255;
    /** Most bytes after the length field of any frame before the handshake has ended. */
    public static final int HANDSHAKE_FRAME_LIMIT = 1024;
    /** Most bytes after the length field of a frame on a host ↔ daemon connection. */
    public static final int CONTROL_FRAME_LIMIT = 65536;
    /** Worker id that lets the daemon choose one. */
    public static final long ANY_WORKER = -1L;
    /** Group id of a WORKERS_IN_GROUP request that asks for every running worker, whatever its group. */
    public static final long ALL_GROUPS = -1L;
    /** Bytes of a frame before its body, after the length field: type, flags, request id. */
    public static final int FRAME_HEADER_BYTES = 12;
    /** Bytes of the length field. */
    public static final int LENGTH_FIELD_BYTES = 4;

    private Protocol() {}

    /** Most bytes after the length field of a frame on a host ↔ worker connection. */
    public static int dataFrameLimit(int maxMessageSize) {
        if (maxMessageSize <= 0 || maxMessageSize > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException(
                    "max message size " + maxMessageSize + " is out of range (1.." + (Integer.MAX_VALUE - 64) + ")");
        }
        return maxMessageSize + 64;
    }
}
