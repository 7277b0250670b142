// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge.testkit;

import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The host-process fixture ({@code host_process_plugin.c}, next to this class): a native plugin
 * that asks {@code urom_worker_host_process} who sent a command and reads that process's memory
 * with {@code process_vm_readv}. Its commands and its answer are described in the source; this class
 * builds the one and reads the other. Stateless.
 */
public final class HostProcessFixture {
    /** Look up the command's own dest id. */
    public static final long SELF = 1;
    /** Look up the dest id the command names. */
    public static final long OTHER = 2;
    /** Call with {@code host} NULL. */
    public static final long NULL_HOST = 3;
    /** Call with {@code ctx} NULL. */
    public static final long NULL_CTX = 4;

    private static final int ANSWER_HEADER = 32;

    private HostProcessFixture() {}

    /**
     * What the fixture answered.
     *
     * @param available whether the process provides {@code urom_worker_host_process}
     * @param status what the call returned
     * @param pid the host's pid (0 unless SUCCESS)
     * @param alive 1 when {@code pidfd_send_signal(pidfd, 0)} succeeded, else minus its errno
     * @param closeOnExec whether the pidfd was close-on-exec
     * @param closed whether the plugin's {@code close(pidfd)} succeeded
     * @param read {@code process_vm_readv}'s result, or minus its errno
     * @param bytes what it read
     */
    public record Answer(
            boolean available,
            UromStatus status,
            int pid,
            int alive,
            boolean closeOnExec,
            boolean closed,
            long read,
            byte[] bytes) {}

    /** Compiles the fixture into {@code outDir/fileName}. */
    public static Path compile(Path outDir, String fileName) {
        return NativeFixtures.compilePlugin(outDir, fileName, source());
    }

    /** The fixture's C source. */
    public static String source() {
        try (var in = HostProcessFixture.class.getResourceAsStream("host_process_plugin.c")) {
            if (in == null) {
                throw new AssertionError(
                        "host_process_plugin.c is missing next to " + HostProcessFixture.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read host_process_plugin.c", e);
        }
    }

    /** A command: {@code op}, the dest id to look up (for {@link #OTHER}), what to read from the host. */
    public static byte[] command(long op, long destId, long address, long length) {
        return ByteBuffer.allocate(32)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(op)
                .putLong(destId)
                .putLong(address)
                .putLong(length)
                .array();
    }

    /** A command that looks up its own dest id and reads nothing. */
    public static byte[] self() {
        return command(SELF, 0, 0, 0);
    }

    /**
     * Reads an answer's payload.
     *
     * @throws AssertionError when it is shorter than the fixture's header
     */
    public static Answer answer(byte[] payload) {
        if (payload.length < ANSWER_HEADER) {
            throw new AssertionError("the host-process fixture answered " + payload.length + " bytes, fewer than its "
                    + ANSWER_HEADER + "-byte header");
        }
        ByteBuffer in = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        return new Answer(
                in.getInt(0) != 0,
                UromStatus.fromCode(in.getInt(4)),
                in.getInt(8),
                in.getInt(12),
                in.getInt(16) != 0,
                in.getInt(20) != 0,
                in.getLong(24),
                Arrays.copyOfRange(payload, ANSWER_HEADER, payload.length));
    }
}
