// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.spi.HostProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A host process's memory through the kernel's cross-memory attach: {@link #read} and {@link
 * #write} are one {@code process_vm_readv}/{@code process_vm_writev} each (repeated only for a
 * partial transfer), {@link #exited} one {@code poll} of the pidfd, {@link #check} a reading of
 * {@code /proc/<pid>/maps}. Failures come back as a {@link Reason} (NONE when it went well), never
 * as exceptions. Not thread-safe (one scratch iovec pair): the plugin's thread only. Owns the
 * pidfd ({@link #dispose} closes it).
 */
final class HostMemory {
    private static final int EFAULT = 14;
    private static final int ESRCH = 3;
    private static final int EPERM = 1;
    private static final int ENOENT = 2;
    private static final int PROBE_MAPPINGS = 8;
    private static final short POLLIN = 1;

    static {
        Native.register(HostMemory.class, NativeLibrary.getInstance("c"));
    }

    private static native long process_vm_readv(
            int pid, long localIov, long localCount, long remoteIov, long remoteCount, long flags);

    private static native long process_vm_writev(
            int pid, long localIov, long localCount, long remoteIov, long remoteCount, long flags);

    private static native int poll(long fds, long count, int timeout);

    private static native int close(int fd);

    private final HostProcess host;
    private final Memory scratch = new Memory(40);
    private final long iov = Pointer.nativeValue(scratch);
    private List<String> held;
    private boolean holding;

    HostMemory(HostProcess host) {
        this.host = host;
    }

    HostProcess host() {
        return host;
    }

    /** Copies {@code length} bytes at the host's {@code remote} to native {@code local}. */
    Reason read(long local, long remote, long length) {
        return transfer(false, local, remote, length);
    }

    /** Copies {@code length} bytes at native {@code local} to the host's {@code remote}. */
    Reason write(long local, long remote, long length) {
        return transfer(true, local, remote, length);
    }

    private Reason transfer(boolean write, long local, long remote, long length) {
        long done = 0;
        while (done < length) {
            scratch.setLong(0, local + done);
            scratch.setLong(8, length - done);
            scratch.setLong(16, remote + done);
            scratch.setLong(24, length - done);
            long moved = write
                    ? process_vm_writev(host.pid(), iov, 1, iov + 16, 1, 0)
                    : process_vm_readv(host.pid(), iov, 1, iov + 16, 1, 0);
            if (moved <= 0) {
                int errno = moved < 0 ? Native.getLastError() : EFAULT;
                return errno == ESRCH ? Reason.HOST_GONE : errno == EPERM ? Reason.HOST_UNREACHABLE : Reason.NOT_MAPPED;
            }
            done += moved;
        }
        return Reason.NONE;
    }

    /** Whether the host process has exited (its pidfd is readable). */
    boolean exited() {
        scratch.setInt(32, host.pidfd());
        scratch.setShort(36, POLLIN);
        scratch.setShort(38, (short) 0);
        int ready = poll(iov + 32, 1, 0);
        return ready > 0 && (scratch.getShort(38) & POLLIN) != 0;
    }

    /**
     * 0 when the worker may attach to the host's memory (what TEAM_CREATE requires), else the errno
     * that refused it: ENOENT when the maps cannot be read, else that of a one-byte read at the
     * start of the first readable mappings ({@value #PROBE_MAPPINGS} at most). Reading the maps
     * needs less than attaching: Yama ({@code kernel.yama.ptrace_scope} 1) and security modules may
     * refuse cross-memory attach to a process whose maps the worker reads.
     */
    int attachRefusal() {
        List<String> lines = maps();
        if (lines == null) {
            return ENOENT;
        }
        int tried = 0;
        int refusal = EFAULT;
        for (int i = 0; i < lines.size() && tried < PROBE_MAPPINGS && refusal == EFAULT; i++) {
            String line = lines.get(i);
            int dash = line.indexOf('-');
            int space = line.indexOf(' ', dash);
            if (dash < 0 || space < 0 || line.length() < space + 2 || line.charAt(space + 1) != 'r') {
                continue;
            }
            tried++;
            scratch.setLong(0, iov + 32);
            scratch.setLong(8, 1);
            scratch.setLong(16, Long.parseUnsignedLong(line, 0, dash, 16));
            scratch.setLong(24, 1);
            refusal = process_vm_readv(host.pid(), iov, 1, iov + 16, 1, 0) == 1 ? 0 : Native.getLastError();
        }
        return refusal;
    }

    /**
     * Whether {@code [address, address + length)} is covered by the host's mappings with the
     * access asked for: NONE, NOT_MAPPED (a hole, an address range that wraps, or unreadable maps),
     * NOT_READABLE or NOT_WRITABLE.
     */
    Reason check(long address, long length, boolean read, boolean write) {
        if (length == 0) {
            return Reason.NONE;
        }
        long end = address + length;
        if (Long.compareUnsigned(end, address) < 0 && end != 0) {
            return Reason.NOT_MAPPED;
        }
        List<String> lines = maps();
        if (lines == null) {
            return Reason.NOT_MAPPED;
        }
        long at = address;
        Reason lacking = Reason.NONE;
        for (String line : lines) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ', dash);
            if (dash < 0 || space < 0 || line.length() < space + 3) {
                continue;
            }
            long from = Long.parseUnsignedLong(line, 0, dash, 16);
            long to = Long.parseUnsignedLong(line, dash + 1, space, 16);
            if (Long.compareUnsigned(to, at) <= 0) {
                continue;
            }
            if (Long.compareUnsigned(from, at) > 0) {
                return Reason.NOT_MAPPED;
            }
            if (lacking == Reason.NONE) {
                if (read && line.charAt(space + 1) != 'r') {
                    lacking = Reason.NOT_READABLE;
                } else if (write && line.charAt(space + 2) != 'w') {
                    lacking = Reason.NOT_WRITABLE;
                }
            }
            at = to;
            if (Long.compareUnsigned(at, end - 1) > 0 || at == 0) {
                return lacking;
            }
        }
        return Reason.NOT_MAPPED;
    }

    /**
     * Keeps the host's mappings, once read, for the checks that follow (those of one POST) until
     * {@link #releaseMaps}: a POST's ranges are checked against one reading, and none when
     * nothing needs it.
     */
    void holdMaps() {
        held = null;
        holding = true;
    }

    void releaseMaps() {
        held = null;
        holding = false;
    }

    private List<String> maps() {
        if (holding && held != null) {
            return held;
        }
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc", Integer.toString(host.pid()), "maps"));
            if (holding) {
                held = lines;
            }
            return lines;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Frees the scratch memory and closes the pidfd. */
    void dispose() {
        scratch.close();
        close(host.pidfd());
    }
}
