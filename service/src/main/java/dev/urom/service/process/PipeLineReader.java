// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads whole lines from one end of the daemon↔worker pipes, each bounded; not thread-safe, and it
 * does not own the stream (closing it stays with the caller).
 *
 * <ul>
 *   <li>A line is the bytes before a {@code '\n'}; bytes after the last one at end of file are not a
 *       line and are dropped.
 *   <li>At most {@code maxBytes} of a line are kept; the rest of a longer line is read and dropped,
 *       so that a writer cannot make the reader hold more.
 *   <li>The reader's own buffer is zeroed once a line is copied out of it: the daemon's first line
 *       carries keys.
 * </ul>
 *
 * <p>The stream is read a byte at a time, so that nothing after a line's end is taken from it; give
 * it a buffered stream (a process's pipes and {@code System.in} are).
 */
public final class PipeLineReader {
    private static final int INITIAL_BYTES = 256;

    private final InputStream in;
    private final int maxBytes;
    private byte[] buffer;

    /** @throws IllegalArgumentException when {@code maxBytes} is not positive */
    public PipeLineReader(InputStream in, int maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("a line bound of " + maxBytes + " bytes is not positive");
        }
        this.in = in;
        this.maxBytes = maxBytes;
        this.buffer = new byte[Math.min(INITIAL_BYTES, maxBytes)];
    }

    /** The next whole line's bytes without its {@code '\n'}, cut to the bound; null at end of file. */
    public byte[] next() throws IOException {
        int length = 0;
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                byte[] line = Arrays.copyOf(buffer, length);
                Arrays.fill(buffer, 0, length, (byte) 0);
                return line;
            }
            if (length == buffer.length && length < maxBytes) {
                grow();
            }
            if (length < buffer.length) {
                buffer[length++] = (byte) b;
            }
        }
        Arrays.fill(buffer, 0, length, (byte) 0);
        return null;
    }

    private void grow() {
        byte[] larger = Arrays.copyOf(buffer, (int) Math.min((long) buffer.length * 2, maxBytes));
        Arrays.fill(buffer, (byte) 0);
        buffer = larger;
    }
}
