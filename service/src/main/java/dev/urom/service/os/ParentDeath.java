// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import com.sun.jna.LastErrorException;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;

/**
 * Ties this process's life to its parent's: once {@link #arm} has run, the kernel sends this
 * process {@code SIGKILL} when the thread that spawned it ends ({@code prctl(PR_SET_PDEATHSIG)}).
 * Linux only. Stateless and thread-safe.
 */
public final class ParentDeath {
    /** The exit status of a process that finds its parent already gone. */
    public static final int PARENT_GONE_EXIT_STATUS = 1;

    private ParentDeath() {}

    /** This process's parent pid ({@code getppid}). */
    public static long parentPid() {
        return LibC.getppid();
    }

    /**
     * Asks for {@code SIGKILL} on the parent's death, then checks that the parent is still {@code
     * expectedParentPid}: when it is not, the parent died before the request took effect and the
     * process halts at once with {@link #PARENT_GONE_EXIT_STATUS}. A parent pid of 1 is not taken
     * for death: in a container the daemon is the entrypoint, pid 1 of its namespace. (A parent that
     * died before the worker read its pid is caught by the worker's stdin watcher instead.)
     *
     * @throws UromException {@code OPERATING_SYSTEM} when {@code prctl} fails
     */
    public static void arm(long expectedParentPid) throws UromException {
        try {
            LibC.prctl(LibC.PR_SET_PDEATHSIG, LibC.SIGKILL, 0, 0, 0);
        } catch (LastErrorException e) {
            throw new UromException(
                    UromStatus.OPERATING_SYSTEM,
                    "cannot ask for SIGKILL on the parent's death: " + LibC.describe(e),
                    e);
        }
        long parent = parentPid();
        if (parent != expectedParentPid) {
            Runtime.getRuntime().halt(PARENT_GONE_EXIT_STATUS);
        }
    }
}
