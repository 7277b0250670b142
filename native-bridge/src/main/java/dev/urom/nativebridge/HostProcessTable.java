// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import com.sun.jna.Native;
import dev.urom.spi.HostProcess;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.util.Map;

/**
 * The process's table of host connections and their processes, in {@code liburom_bridge.so}
 * ({@code urom_bridge_host.c}): what a native plugin's {@code urom_worker_host_process} and a Java
 * plugin's {@code WorkerContext.hostProcess} answer in a worker. A data plane enters each connection
 * when it accepts it ({@link #enterPeer}, or {@link #enterWithoutProcess} for TCP) and removes it
 * when it closes ({@link #remove}); the table owns each entry's pidfd and closes it then.
 *
 * <p>Thread-safe: the native table has a lock of its own. One table per process, holding at most
 * the entries {@link #reserve}d. The table's {@linkplain #fallback fallback} serves the test kit,
 * whose process is the host of every connection. Failures of the system calls throw {@link
 * UromException} with one line; a bridge library that cannot be loaded throws {@link
 * IllegalStateException}.
 */
public final class HostProcessTable {
    private static final int EPERM = 1;
    private static final int ESRCH = 3;
    private static final int EBADF = 9;
    private static final int ENOMEM = 12;
    private static final int EEXIST = 17;
    private static final int EINVAL = 22;
    private static final int ENFILE = 23;
    private static final int EMFILE = 24;
    private static final int ENOSPC = 28;
    private static final int ENOSYS = 38;
    private static final int ENOTSOCK = 88;
    private static final int ENOPROTOOPT = 92;
    private static final int ENOTCONN = 107;
    private static final Map<Integer, String> ERRNO_NAMES = Map.ofEntries(
            Map.entry(EPERM, "EPERM"),
            Map.entry(ESRCH, "ESRCH"),
            Map.entry(EBADF, "EBADF"),
            Map.entry(ENOMEM, "ENOMEM"),
            Map.entry(EEXIST, "EEXIST"),
            Map.entry(EINVAL, "EINVAL"),
            Map.entry(ENFILE, "ENFILE"),
            Map.entry(EMFILE, "EMFILE"),
            Map.entry(ENOSPC, "ENOSPC"),
            Map.entry(ENOSYS, "ENOSYS"),
            Map.entry(ENOTSOCK, "ENOTSOCK"),
            Map.entry(ENOPROTOOPT, "ENOPROTOOPT"),
            Map.entry(ENOTCONN, "ENOTCONN"));

    /**
     * The peer of a connection, as entered.
     *
     * @param pid its process id
     * @param exact whether the kernel named the very process that connected ({@code SO_PEERPIDFD},
     *     Linux 6.5); false when the pidfd came from {@code pidfd_open(pid)}, which may name another
     *     process if the peer exited and its pid was reused before the worker asked
     */
    public record Peer(int pid, boolean exact) {}

    private HostProcessTable() {}

    private static boolean bound;

    /** The native functions, bound by JNA direct mapping ({@link #bridge()}). */
    private static final class Bridge {
        static native int urom_bridge_host_reserve(int capacity);

        static native int urom_bridge_host_enter(long destId, int pid, int pidfd);

        static native int urom_bridge_host_remove(long destId);

        static native void urom_bridge_host_fallback(int pid, int pidfd);

        static native int urom_bridge_host_count();

        static native int urom_bridge_host_lookup(long destId, int[] host);

        static native int urom_bridge_peer_process(int socketFd, int[] pid, int[] pidfd, int[] exact);

        static native int urom_bridge_pidfd_open(int pid);

        static native int urom_bridge_fd_dup(int fd);

        static native int urom_bridge_fd_close(int fd);
    }

    /**
     * Makes room for {@code connections} entries (a table only grows): the most connections a data
     * plane holds at once.
     *
     * @throws IllegalArgumentException when {@code connections} is negative or over the native limit
     * @throws IllegalStateException when the memory cannot be had or the bridge cannot be loaded
     */
    public static void reserve(int connections) {
        if (connections < 0) {
            throw new IllegalArgumentException("a table of " + connections + " connections");
        }
        bridge();
        int result = Bridge.urom_bridge_host_reserve(connections);
        if (result == -EINVAL) {
            throw new IllegalArgumentException("a table of " + connections + " connections is over the native limit");
        }
        if (result != 0) {
            throw new IllegalStateException("no memory for a table of " + connections + " host connections");
        }
    }

    /**
     * Enters connection {@code destId}, whose connected Unix socket is {@code socketFd}, with the
     * process at its other end. When the kernel does not name one, the connection is entered without
     * a process (its look-ups answer NOT_SUPPORTED) and the reason is thrown.
     *
     * @throws UromException NOT_SUPPORTED with the reason when the kernel names no process (the
     *     socket is no connected Unix socket, the peer has gone, no pidfds); the connection is
     *     entered without one all the same
     * @throws IllegalStateException when {@code destId} is already there or the table is full
     */
    public static Peer enterPeer(long destId, int socketFd) throws UromException {
        int[] pid = new int[1];
        int[] pidfd = new int[1];
        int[] exact = new int[1];
        bridge();
        int result = Bridge.urom_bridge_peer_process(socketFd, pid, pidfd, exact);
        if (result != 0) {
            enter(destId, 0, -1);
            throw new UromException(
                    UromStatus.NOT_SUPPORTED,
                    "the kernel names no peer process of descriptor " + socketFd + ": " + describe(-result));
        }
        enter(destId, pid[0], pidfd[0]);
        return new Peer(pid[0], exact[0] != 0);
    }

    /**
     * Enters connection {@code destId} without a process (a TCP connection, one whose descriptor the
     * worker cannot reach): its look-ups answer NOT_SUPPORTED.
     *
     * @throws IllegalStateException when {@code destId} is already there or the table is full
     */
    public static void enterWithoutProcess(long destId) {
        enter(destId, 0, -1);
    }

    /**
     * Enters connection {@code destId} with process {@code pid}, whose pidfd the table takes over
     * (closed at once when the entry cannot be made).
     *
     * @throws IllegalStateException when {@code destId} is already there or the table is full
     */
    public static void enter(long destId, int pid, int pidfd) {
        bridge();
        int result = Bridge.urom_bridge_host_enter(destId, pid, pidfd);
        if (result == -EEXIST) {
            throw new IllegalStateException(
                    "host connection " + Long.toUnsignedString(destId) + " is in the table already");
        }
        if (result == -ENOSPC) {
            throw new IllegalStateException("the table of host connections is full; reserve more room");
        }
    }

    /** Removes connection {@code destId} and closes its pidfd; whether it was there. */
    public static boolean remove(long destId) {
        bridge();
        return Bridge.urom_bridge_host_remove(destId) == 0;
    }

    /** How many connections the table holds (the fallback not counted). */
    public static int size() {
        bridge();
        return Bridge.urom_bridge_host_count();
    }

    /**
     * What {@code urom_worker_host_process} answers for {@code destId}: its process with a new pidfd,
     * which the caller owns.
     *
     * @throws UromException NOT_FOUND: no such connection (and no fallback); NOT_SUPPORTED: it has
     *     no process; NO_MEMORY or OPERATING_SYSTEM: the pidfd could not be duplicated
     */
    public static HostProcess lookup(long destId) throws UromException {
        int[] found = new int[2];
        bridge();
        int status = Bridge.urom_bridge_host_lookup(destId, found);
        if (status == UromStatus.SUCCESS.code()) {
            return new HostProcess(found[0], found[1]);
        }
        UromStatus failure = Abi.status(status);
        String why = switch (failure) {
            case NOT_FOUND -> "no open host connection " + Long.toUnsignedString(destId);
            case NOT_SUPPORTED -> "host connection " + Long.toUnsignedString(destId) + " has no local process";
            default -> "the pidfd of host connection " + Long.toUnsignedString(destId) + " cannot be duplicated";
        };
        throw new UromException(failure, why);
    }

    /**
     * Makes process {@code pid}, whose pidfd the table takes over, the host of every connection the
     * table does not hold; {@code pid} 0 (pidfd -1): those connections have no process. Replaces
     * the fallback there was, and closes its pidfd.
     */
    public static void fallback(int pid, int pidfd) {
        if (pid < 0) {
            throw new IllegalArgumentException("pid " + pid + " is negative");
        }
        bridge();
        Bridge.urom_bridge_host_fallback(pid, pidfd);
    }

    /** Removes the fallback (closing its pidfd): a connection the table does not hold is NOT_FOUND again. */
    public static void clearFallback() {
        bridge();
        Bridge.urom_bridge_host_fallback(-1, -1);
    }

    /**
     * {@code pidfd_open(pid)}: a pidfd (close-on-exec) that the caller owns.
     *
     * @throws UromException NOT_FOUND: no process {@code pid}; NOT_SUPPORTED: the kernel has no
     *     pidfds; NO_MEMORY: out of descriptors; OPERATING_SYSTEM otherwise
     */
    public static int openPidfd(int pid) throws UromException {
        bridge();
        int fd = Bridge.urom_bridge_pidfd_open(pid);
        if (fd >= 0) {
            return fd;
        }
        throw new UromException(statusOf(-fd), "pidfd_open(" + pid + ") failed: " + describe(-fd));
    }

    /**
     * A duplicate (close-on-exec) of {@code fd}, which the caller owns.
     *
     * @throws UromException NO_MEMORY: out of descriptors; OPERATING_SYSTEM otherwise
     */
    public static int duplicate(int fd) throws UromException {
        bridge();
        int copy = Bridge.urom_bridge_fd_dup(fd);
        if (copy >= 0) {
            return copy;
        }
        throw new UromException(statusOf(-copy), "duplicating descriptor " + fd + " failed: " + describe(-copy));
    }

    /** Closes {@code fd}; whether it was open. */
    public static boolean close(int fd) {
        bridge();
        return Bridge.urom_bridge_fd_close(fd) == 0;
    }

    private static UromStatus statusOf(int errno) {
        return switch (errno) {
            case ESRCH -> UromStatus.NOT_FOUND;
            case ENOSYS -> UromStatus.NOT_SUPPORTED;
            case EMFILE, ENFILE, ENOMEM -> UromStatus.NO_MEMORY;
            default -> UromStatus.OPERATING_SYSTEM;
        };
    }

    /** "ESRCH (errno 3)", or "errno N" for a number without a name here. */
    static String describe(int errno) {
        String name = ERRNO_NAMES.get(errno);
        return name == null ? "errno " + errno : name + " (errno " + errno + ")";
    }

    /**
     * Binds the natives once per process, after {@link NativeLogBridge#install()}.
     *
     * @throws IllegalStateException when the library cannot be loaded or lacks them
     */
    private static synchronized void bridge() {
        if (bound) {
            return;
        }
        try {
            Native.register(Bridge.class, NativeLogBridge.library());
        } catch (UnsatisfiedLinkError e) {
            throw new IllegalStateException(
                    "the native bridge " + NativeArtifacts.bridgeLibrary() + " lacks its host-process functions: "
                            + e.getMessage(),
                    e);
        }
        bound = true;
    }
}
