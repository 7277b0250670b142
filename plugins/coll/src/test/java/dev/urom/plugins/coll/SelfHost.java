// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;

/**
 * A {@link HostLocator} that names this JVM as every connection's host, as the test kit's host is
 * the test itself: a pidfd on this process, opened per look-up (the plugin owns and closes it).
 * Stateless.
 */
final class SelfHost implements HostLocator {
    private static final long SYS_PIDFD_OPEN = 434;

    static {
        Native.register(SelfHost.class, NativeLibrary.getInstance("c"));
    }

    private static native long syscall(long number, long pid, long flags);

    @Override
    public HostHandle locate(long destId) throws UromException {
        int pid = (int) ProcessHandle.current().pid();
        long pidfd = syscall(SYS_PIDFD_OPEN, pid, 0);
        if (pidfd < 0) {
            throw new UromException(UromStatus.NOT_SUPPORTED, "pidfd_open failed: errno " + Native.getLastError());
        }
        return new HostHandle(pid, (int) pidfd);
    }
}
