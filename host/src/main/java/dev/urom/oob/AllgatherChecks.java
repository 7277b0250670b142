// SPDX-License-Identifier: Apache-2.0
package dev.urom.oob;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;

/** Argument checks shared by the allgather implementations. Stateless. */
final class AllgatherChecks {
    private AllgatherChecks() {}

    static void checkRank(int index, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("allgather size " + size + " is not positive");
        }
        if (index < 0 || index >= size) {
            throw new IllegalArgumentException(
                    "allgather index " + index + " is outside 0.." + (size - 1) + " (size " + size + ")");
        }
    }

    static void checkBuffers(byte[] send, byte[] recv, int len, int size) throws UromException {
        if (send == null || recv == null) {
            throw new UromException(UromStatus.INVALID_VALUE, "allgather buffers must not be null");
        }
        if (len < 0 || len > send.length) {
            throw new UromException(
                    UromStatus.INVALID_VALUE,
                    "allgather length " + len + " does not fit the send buffer of " + send.length + " bytes");
        }
        if ((long) len * size > recv.length) {
            throw new UromException(
                    UromStatus.INVALID_VALUE,
                    "allgather receive buffer of " + recv.length + " bytes is smaller than " + size + " ranks x " + len
                            + " bytes");
        }
    }
}
