// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

/** Checks a frame's length field against a limit, before anything is allocated for the frame. */
final class FrameLimits {
    private FrameLimits() {}

    static void checkLimit(int limit) {
        if (limit < Protocol.FRAME_HEADER_BYTES) {
            throw new IllegalArgumentException(
                    "frame limit " + limit + " is below the " + Protocol.FRAME_HEADER_BYTES + "-byte frame header");
        }
    }

    /** The length field read as a u32, when it is within {@code limit}. */
    static int check(int lengthField, int limit) throws WireException {
        long length = Integer.toUnsignedLong(lengthField);
        if (length > limit) {
            throw new WireException(
                    WireException.Reason.FRAME_TOO_LARGE,
                    "frame of " + length + " bytes is over the limit of " + limit);
        }
        if (length < Protocol.FRAME_HEADER_BYTES) {
            throw new WireException(
                    WireException.Reason.MALFORMED,
                    "frame of " + length + " bytes is shorter than its " + Protocol.FRAME_HEADER_BYTES
                            + "-byte header");
        }
        return (int) length;
    }
}
