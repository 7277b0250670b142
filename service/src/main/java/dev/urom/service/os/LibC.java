// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The few libc calls of this package, bound once by JNA direct mapping (no proxy, no per-call
 * reflection). Package-private: callers use {@link Affinity}, {@link ParentDeath}, {@link
 * DaemonChannel}, {@link DescriptorInput}, {@link ProcessPrivacy} and {@link WakeupWatcher}.
 *
 * <p>Linux on a 64-bit platform only ({@code size_t} and {@code pid_t} are passed as {@code long}
 * and {@code int}). Thread-safe: each method is one system call. A failing call throws {@link
 * LastErrorException} carrying {@code errno}.
 */
final class LibC {
    static final int PR_SET_PDEATHSIG = 1;
    static final int SIGKILL = 9;
    static final int EINVAL = 22;
    static final int ESRCH = 3;

    static {
        Native.register(LibC.class, NativeLibrary.getInstance("c"));
    }

    private LibC() {}

    static native int sched_getaffinity(int pid, long cpusetsize, byte[] mask) throws LastErrorException;

    static native int sched_setaffinity(int pid, long cpusetsize, byte[] mask) throws LastErrorException;

    static native int prctl(int option, long arg2, long arg3, long arg4, long arg5) throws LastErrorException;

    static native int getppid();

    static native String strerror(int errnum);

    static native int fcntl(int fd, int cmd, int arg) throws LastErrorException;

    static native int dup2(int oldFd, int newFd) throws LastErrorException;

    static native long write(int fd, byte[] bytes, long count) throws LastErrorException;

    static native long read(int fd, byte[] bytes, long count) throws LastErrorException;

    static native int close(int fd) throws LastErrorException;

    static native int eventfd(int initval, int flags) throws LastErrorException;

    /** {@code poll(2)} on {@code nfds} {@code struct pollfd}s packed two ints each (fd, then events and revents). */
    static native int poll(int[] fds, long nfds, int timeout) throws LastErrorException;

    /** The {@code strerror} text of the failure with its number, e.g. "Invalid argument (errno 22)". */
    static String describe(LastErrorException e) {
        int code = e.getErrorCode();
        String text = strerror(code);
        return (text == null || text.isBlank() ? "error" : text) + " (errno " + code + ")";
    }
}
