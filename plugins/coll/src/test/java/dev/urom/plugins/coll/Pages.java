// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/** Pages of this process with chosen protection, for the mapping checks: mmap, mprotect, munmap. Stateless. */
final class Pages {
    static final long PAGE = 4096;
    static final int PROT_NONE = 0;
    static final int PROT_READ = 1;
    static final int PROT_WRITE = 2;
    private static final int MAP_PRIVATE = 2;
    private static final int MAP_ANONYMOUS = 0x20;

    static {
        Native.register(Pages.class, NativeLibrary.getInstance("c"));
    }

    private static native long mmap(long address, long length, int prot, int flags, int fd, long offset);

    private static native int munmap(long address, long length);

    private static native int mprotect(long address, long length, int prot);

    private Pages() {}

    /** {@code count} fresh pages with protection {@code prot}. */
    static long map(long count, int prot) {
        long address = mmap(0, count * PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (address == -1) {
            throw new IllegalStateException("mmap failed: errno " + Native.getLastError());
        }
        return address;
    }

    /** Changes the protection of {@code count} pages at {@code address}. */
    static void protect(long address, long count, int prot) {
        if (mprotect(address, count * PAGE, prot) != 0) {
            throw new IllegalStateException("mprotect failed: errno " + Native.getLastError());
        }
    }

    static void unmap(long address, long count) {
        munmap(address, count * PAGE);
    }
}
