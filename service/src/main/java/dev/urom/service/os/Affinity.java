// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import com.sun.jna.LastErrorException;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;

/**
 * The CPU affinity of this process (Linux {@code sched_getaffinity}/{@code sched_setaffinity}).
 *
 * <p>Stateless and thread-safe. Failures throw {@link UromException}: {@code INVALID_VALUE} for a
 * CPU set the process may not use, {@code OPERATING_SYSTEM} for a failing system call, each with
 * one line naming the CPUs and the {@code errno} text.
 */
public final class Affinity {
    private static final Path TASKS = Path.of("/proc/self/task");
    private static final int INITIAL_MASK_BYTES = 128;
    private static final int MAX_MASK_BYTES = 1 << 16;

    private Affinity() {}

    /** The CPUs the calling thread may run on (for a worker: the whole process's set). */
    public static BitSet allowedCpus() throws UromException {
        for (int bytes = INITIAL_MASK_BYTES; ; bytes *= 2) {
            byte[] mask = new byte[bytes];
            try {
                LibC.sched_getaffinity(0, bytes, mask);
                return BitSet.valueOf(mask);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != LibC.EINVAL || bytes >= MAX_MASK_BYTES) {
                    throw new UromException(
                            UromStatus.OPERATING_SYSTEM, "cannot read the CPU affinity: " + LibC.describe(e), e);
                }
            }
        }
    }

    /**
     * Pins every thread of this process to {@code cpus}: the calling thread first (threads it
     * starts afterwards inherit its set), then each thread listed in {@code /proc/self/task},
     * repeating until a pass finds no thread it has not pinned. A thread that ends meanwhile is
     * skipped.
     *
     * @throws UromException {@code INVALID_VALUE} when {@code cpus} is empty or names a CPU that
     *     is not in {@link #allowedCpus()}; {@code OPERATING_SYSTEM} when a system call fails
     */
    public static void pinProcess(BitSet cpus) throws UromException {
        if (cpus == null || cpus.isEmpty()) {
            throw new UromException(UromStatus.INVALID_VALUE, "no CPU to pin the process to");
        }
        BitSet allowed = allowedCpus();
        BitSet notAllowed = (BitSet) cpus.clone();
        notAllowed.andNot(allowed);
        if (!notAllowed.isEmpty()) {
            throw new UromException(
                    UromStatus.INVALID_VALUE,
                    "CPU " + format(notAllowed) + " is not available to this process (available: " + format(allowed)
                            + ")");
        }
        byte[] mask = toMask(cpus);
        setAffinity(0, mask, cpus);
        Set<Integer> pinned = new HashSet<>();
        boolean foundNew = true;
        while (foundNew) {
            foundNew = false;
            for (int tid : threadIds()) {
                if (pinned.add(tid)) {
                    foundNew = true;
                    setAffinity(tid, mask, cpus);
                }
            }
        }
    }

    /** {@code cpus} as a CPU list, the form of {@code Cpus_allowed_list}: {@code 0-3,8,10-11}. */
    public static String format(BitSet cpus) {
        StringBuilder text = new StringBuilder();
        for (int first = cpus.nextSetBit(0); first >= 0; ) {
            int last = cpus.nextClearBit(first) - 1;
            if (text.length() > 0) {
                text.append(',');
            }
            text.append(first);
            if (last > first) {
                text.append('-').append(last);
            }
            first = cpus.nextSetBit(last + 1);
        }
        return text.toString();
    }

    private static void setAffinity(int tid, byte[] mask, BitSet cpus) throws UromException {
        try {
            LibC.sched_setaffinity(tid, mask.length, mask);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == LibC.ESRCH && tid != 0) {
                return;
            }
            UromStatus status =
                    e.getErrorCode() == LibC.EINVAL ? UromStatus.INVALID_VALUE : UromStatus.OPERATING_SYSTEM;
            throw new UromException(
                    status,
                    "cannot pin " + (tid == 0 ? "the process" : "thread " + tid) + " to CPU " + format(cpus) + ": "
                            + LibC.describe(e),
                    e);
        }
    }

    private static byte[] toMask(BitSet cpus) {
        int bytes = Math.max(INITIAL_MASK_BYTES, (cpus.length() + 63) / 64 * 8);
        byte[] mask = new byte[bytes];
        byte[] set = cpus.toByteArray();
        System.arraycopy(set, 0, mask, 0, set.length);
        return mask;
    }

    private static Set<Integer> threadIds() throws UromException {
        Set<Integer> ids = new HashSet<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                ids.add(Integer.parseInt(task.getFileName().toString()));
            }
        } catch (IOException | NumberFormatException e) {
            throw new UromException(
                    UromStatus.OPERATING_SYSTEM, "cannot list the threads in " + TASKS + ": " + e.getMessage(), e);
        }
        return ids;
    }
}
