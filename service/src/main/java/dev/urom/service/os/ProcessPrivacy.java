// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import com.sun.jna.LastErrorException;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Closes this process to the other processes of its uid: once {@link #seal} has run, the process
 * is undumpable ({@code PR_SET_DUMPABLE 0}), so that only root may open its {@code /proc/PID/mem},
 * {@code environ} or descriptors, attach to it with {@code ptrace} or read it with cross-memory
 * attach, and it leaves no core file. The process itself still reads its own {@code /proc/self}
 * (maps, status, fd), except {@code /proc/self/environ}. Linux only. Stateless and thread-safe.
 */
public final class ProcessPrivacy {
    private static final int PR_GET_DUMPABLE = 3;
    private static final int PR_SET_DUMPABLE = 4;

    private ProcessPrivacy() {}

    /** Whether this process is dumpable now. */
    public static boolean dumpable() {
        return LibC.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0;
    }

    /**
     * Makes this process undumpable, unless the kernel already made it so when it executed a file
     * its uid may not read; then checks that no process traces it (one that attached before could
     * still read it).
     *
     * @return whether the process had been undumpable from its start
     * @throws UromException {@code OPERATING_SYSTEM} when {@code prctl} fails; {@code NOT_PERMITTED}
     *     when a tracer is attached, naming its pid
     */
    public static boolean seal() throws UromException {
        boolean fromStart;
        try {
            fromStart = !dumpable();
            if (!fromStart) {
                LibC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
            }
        } catch (LastErrorException e) {
            throw new UromException(
                    UromStatus.OPERATING_SYSTEM, "cannot make this process undumpable: " + LibC.describe(e), e);
        }
        long tracer = tracerPid();
        if (tracer != 0) {
            throw new UromException(
                    UromStatus.NOT_PERMITTED,
                    "process " + ProcessHandle.current().pid() + " is traced by process " + tracer
                            + ", which could read its keys; it will not start");
        }
        return fromStart;
    }

    private static long tracerPid() throws UromException {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("TracerPid:")) {
                    return Long.parseLong(line.substring("TracerPid:".length()).strip());
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new UromException(
                    UromStatus.OPERATING_SYSTEM, "cannot read /proc/self/status for TracerPid: " + e.getMessage(), e);
        }
        throw new UromException(UromStatus.OPERATING_SYSTEM, "/proc/self/status has no TracerPid line");
    }
}
