// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reusable block of native memory with a native-order {@link ByteBuffer} view, so that Java reads
 * and writes it without a JNI call. It grows on demand (contents are not kept when it does) and
 * never shrinks: it holds the largest message seen. The memory is freed when the object is
 * collected.
 *
 * <p>Not thread-safe: owned by one plugin instance, which one thread drives.
 */
final class NativeScratch {
    private Memory memory;
    private ByteBuffer view;

    NativeScratch(int initialCapacity) {
        allocate(initialCapacity);
    }

    /**
     * Makes room for at least {@code size} bytes (doubling, up to {@code Integer.MAX_VALUE}).
     *
     * @throws IllegalArgumentException when {@code size} exceeds {@code Integer.MAX_VALUE}
     * @throws OutOfMemoryError when the native memory cannot be allocated
     */
    void reserve(long size) {
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "a native scratch buffer of " + size + " bytes exceeds the limit of " + Integer.MAX_VALUE);
        }
        if (size > view.capacity()) {
            allocate((int) Math.min(Integer.MAX_VALUE, Math.max(size, 2L * view.capacity())));
        }
    }

    /** The buffer over the whole block; its position and limit are the caller's to use. */
    ByteBuffer view() {
        return view;
    }

    /** The block's native address. */
    long address() {
        return Pointer.nativeValue(memory);
    }

    int capacity() {
        return view.capacity();
    }

    private void allocate(int capacity) {
        Memory block = new Memory(capacity);
        view = block.getByteBuffer(0, capacity).order(ByteOrder.nativeOrder());
        memory = block;
    }
}
