// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;

/**
 * Copies bytes into a mapped buffer through the kernel: they are written into a pipe and read from
 * it into the buffer, so a page the mapped file no longer has makes that read fail with {@code
 * EFAULT} (an {@link IOException}) where a direct copy would fault and leave the JVM with an
 * {@link InternalError}. The sandbox plugin writes into a hugetlbfs region this way, hugetlbfs
 * having no {@code write} for a positional write to use.
 *
 * <p>Stateless; safe to call from any thread (each copy has its own pipe).
 */
final class KernelCopy {
    /** A pipe holds at least this much (one page is the least Linux gives a pipe). */
    private static final int CHUNK = 4096;

    private KernelCopy() {}

    /**
     * Copies the bytes remaining in {@code source} to {@code target}, which has room for them;
     * both positions advance by what was copied.
     *
     * @throws IOException when {@code target} cannot take them (the mapped file shrank) or the pipe fails
     */
    static void copy(ByteBuffer source, ByteBuffer target) throws IOException {
        Pipe pipe = Pipe.open();
        try (Pipe.SinkChannel sink = pipe.sink();
                Pipe.SourceChannel from = pipe.source()) {
            while (source.hasRemaining()) {
                int chunk = Math.min(CHUNK, source.remaining());
                int queued = sink.write(source.slice(source.position(), chunk));
                source.position(source.position() + queued);
                for (int moved = 0; moved < queued; ) {
                    int read = from.read(target);
                    if (read < 0) {
                        throw new EOFException("the pipe of a kernel copy ended early");
                    }
                    moved += read;
                }
            }
        }
    }
}
