// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import dev.urom.plugins.coll.protocol.CollCommand;
import java.nio.file.Path;

/**
 * A child JVM for {@link AttachRefusedTest}: with argument {@code refuse} it first installs a
 * seccomp filter that fails {@code process_vm_readv} and {@code process_vm_writev} with EPERM (what
 * Yama does to a worker that is not its host's declared tracer), then creates a team of one with
 * the C plugin ({@code worker_coll.so} at the second argument) and with the Java plugin, and prints
 * {@code c REASON} and {@code java REASON}. With {@code allow} it installs nothing.
 */
public final class AttachRefusedMain {
    private static final int PR_SET_NO_NEW_PRIVS = 38;
    private static final int PR_SET_SECCOMP = 22;
    private static final int SECCOMP_MODE_FILTER = 2;
    private static final int EPERM = 1;

    static {
        Native.register(AttachRefusedMain.class, NativeLibrary.getInstance("c"));
    }

    private static native int prctl(int option, long arg2, long arg3, long arg4, long arg5);

    private AttachRefusedMain() {}

    public static void main(String[] args) {
        if (args[0].equals("refuse")) {
            refuseCrossMemoryAttach();
        }
        try (CollWorkers c = new CollWorkers(Path.of(args[1]), true)) {
            System.out.println("c " + createTeamOfOne(c));
        }
        try (CollWorkers java = new CollWorkers(Path.of(args[1]), false)) {
            System.out.println("java " + createTeamOfOne(java));
        }
    }

    private static String createTeamOfOne(CollWorkers workers) {
        return workers.call(0, CollCommand.TeamCreate.range(workers.cookie(), 1, 1, 0, 0, 1, 0, 0, 10_000))
                .header()
                .reasonValue()
                .name();
    }

    /** Applies to this thread and those it starts from now on: every thread the test kit makes. */
    private static void refuseCrossMemoryAttach() {
        int arch;
        int readv;
        if (Platform.isIntel() && Platform.is64Bit()) {
            arch = 0xc000003e;
            readv = 310;
        } else if (Platform.isARM() && Platform.is64Bit()) {
            arch = 0xc00000b7;
            readv = 270;
        } else {
            throw new IllegalStateException("no seccomp numbers for " + Platform.ARCH);
        }
        int[][] program = {
            {0x20, 0, 0, 4}, // load the architecture
            {0x15, 0, 3, arch}, // another one: allow
            {0x20, 0, 0, 0}, // load the system call's number
            {0x15, 2, 0, readv}, // process_vm_readv: refuse
            {0x15, 1, 0, readv + 1}, // process_vm_writev: refuse
            {0x06, 0, 0, 0x7fff0000}, // allow
            {0x06, 0, 0, 0x00050000 | EPERM}, // refuse with EPERM
        };
        Memory filter = new Memory(8L * program.length);
        for (int i = 0; i < program.length; i++) {
            filter.setShort(8L * i, (short) program[i][0]);
            filter.setByte(8L * i + 2, (byte) program[i][1]);
            filter.setByte(8L * i + 3, (byte) program[i][2]);
            filter.setInt(8L * i + 4, program[i][3]);
        }
        Memory fprog = new Memory(16);
        fprog.clear();
        fprog.setShort(0, (short) program.length);
        fprog.setPointer(8, filter);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, Pointer.nativeValue(fprog), 0, 0) != 0) {
            throw new IllegalStateException("cannot install the seccomp filter: errno " + Native.getLastError());
        }
    }
}
