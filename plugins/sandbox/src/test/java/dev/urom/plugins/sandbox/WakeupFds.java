// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/** {@code poll(2)} of one descriptor through JNA, for the plugin's wake-up fd. Stateless. */
final class WakeupFds {
    private static final short POLLIN = 1;

    static {
        Native.register(WakeupFds.class, NativeLibrary.getInstance("c"));
    }

    private WakeupFds() {}

    private static native int poll(Memory fds, long nfds, int timeout);

    /** Whether {@code fd} is readable within {@code timeoutMillis} (0: now). */
    static boolean readable(int fd, int timeoutMillis) {
        try (Memory pollfd = new Memory(8)) {
            pollfd.setInt(0, fd);
            pollfd.setShort(4, POLLIN);
            pollfd.setShort(6, (short) 0);
            int ready = poll(pollfd, 1, timeoutMillis);
            assertThat(ready).as("poll(2) of fd %d", fd).isNotNegative();
            return ready == 1 && (pollfd.getShort(6) & POLLIN) != 0;
        }
    }
}
