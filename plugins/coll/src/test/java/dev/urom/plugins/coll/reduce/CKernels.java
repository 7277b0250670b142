// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.reduce;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The C kernels (libcoll_kernels.so, built by the module's Makefile, named by the system property {@code urom.coll.kernels})
 * through JNA, on the regions of direct buffers; stateless, usable from any thread. {@link #load()} throws an
 * {@link AssertionError} of one line when the library is missing, so that a test without it fails rather than passes.
 */
final class CKernels {
    /** The library's functions; {@code size_t} is a Java {@code long} on the 64-bit platforms the plugin runs on. */
    interface Library extends com.sun.jna.Library {
        long coll_dtype_size(byte dtype);

        int coll_op_valid(byte dtype, byte op);

        int coll_reduce(byte dtype, byte op, Pointer dst, Pointer left, Pointer right, long count);
    }

    private static Library library;

    private CKernels() {}

    static synchronized Library load() {
        if (library == null) {
            String path = System.getProperty("urom.coll.kernels");
            if (path == null || !Files.isRegularFile(Path.of(path))) {
                throw new AssertionError("libcoll_kernels.so is missing (system property urom.coll.kernels: " + path
                        + "); run the tests through Maven, whose test-compile phase builds it");
            }
            library = Native.load(path, Library.class);
        }
        return library;
    }

    /** coll_reduce on the buffers' regions from their positions; returns its result. */
    static int reduce(int dtype, int op, ByteBuffer dst, ByteBuffer left, ByteBuffer right, long count) {
        return load().coll_reduce((byte) dtype, (byte) op, at(dst), at(left), at(right), count);
    }

    private static Pointer at(ByteBuffer buffer) {
        return Native.getDirectBufferPointer(buffer).share(buffer.position());
    }
}
