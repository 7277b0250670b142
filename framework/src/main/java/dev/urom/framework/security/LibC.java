// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.security;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

/**
 * The libc account calls of {@link UnixAccounts}, bound once by JNA direct mapping. The {@code
 * *_r} calls return an error number rather than setting {@code errno}; the caller owns every
 * buffer it passes, so each call is thread-safe. Package-private.
 *
 * <p>Linux only; {@code uid_t} and {@code gid_t} are passed as {@code int}, {@code size_t} as
 * {@code long}.
 */
final class LibC {
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int ESRCH = 3;
    static final int EBADF = 9;
    static final int ERANGE = 34;

    static {
        Native.register(LibC.class, NativeLibrary.getInstance("c"));
    }

    private LibC() {}

    static native int getpwnam_r(String name, Pointer passwd, Pointer buffer, long bufferLength, Pointer result);

    static native int getpwuid_r(int uid, Pointer passwd, Pointer buffer, long bufferLength, Pointer result);

    static native int getgrnam_r(String name, Pointer group, Pointer buffer, long bufferLength, Pointer result);

    static native int getgrgid_r(int gid, Pointer group, Pointer buffer, long bufferLength, Pointer result);

    static native int getgrouplist(String user, int group, int[] groups, int[] count);

    static native int geteuid();

    static native int getegid();

    static native String strerror(int errnum);
}
