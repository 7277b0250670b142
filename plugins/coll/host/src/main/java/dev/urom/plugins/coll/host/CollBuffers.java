// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.host;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;

/** Native addresses of buffers a Java host hands to its workers. Stateless. */
public final class CollBuffers {
    private CollBuffers() {}

    /**
     * The address of {@code buffer}'s first byte (its position 0); the buffer must stay reachable
     * until every collective that names it has completed.
     *
     * @throws IllegalArgumentException when the buffer is not direct: a heap buffer has no stable address
     */
    public static long address(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException(
                    "a collective needs a direct buffer: the workers read and write it in place");
        }
        return Pointer.nativeValue(Native.getDirectBufferPointer(buffer));
    }
}
