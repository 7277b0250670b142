// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.io.InputStream;

/**
 * An input stream over a file descriptor this process inherited, read with {@code read(2)}: the
 * daemon's pipe, which the worker launcher moves to descriptor 3 (the JDK opens no stream on a
 * number; reopening {@code /proc/self/fd/3} would need permission on the pipe, which a worker that
 * dropped its privileges lacks). Linux only.
 *
 * <p>Not thread-safe: one reader. {@link #close} closes the descriptor.
 */
public final class DescriptorInput extends InputStream {
    private static final int EINTR = 4;

    private final int fd;
    private boolean closed;

    private DescriptorInput(int fd) {
        this.fd = fd;
    }

    /** The stream of descriptor {@code fd}, which this stream then owns. */
    public static InputStream of(int fd) {
        if (fd < 0) {
            throw new IllegalArgumentException("file descriptor " + fd + " is negative");
        }
        return new DescriptorInput(fd);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : Byte.toUnsignedInt(one[0]);
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        if (closed) {
            throw new IOException("file descriptor " + fd + " is closed");
        }
        if (length == 0) {
            return 0;
        }
        byte[] chunk = offset == 0 ? buffer : new byte[length];
        while (true) {
            try {
                long n = LibC.read(fd, chunk, length);
                if (n == 0) {
                    return -1;
                }
                if (chunk != buffer) {
                    System.arraycopy(chunk, 0, buffer, offset, (int) n);
                }
                return (int) n;
            } catch (LastErrorException e) {
                if (e.getErrorCode() != EINTR) {
                    throw new IOException("reading file descriptor " + fd + " failed: " + LibC.describe(e), e);
                }
            }
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                LibC.close(fd);
            } catch (LastErrorException ignored) {
                // the descriptor is gone either way
            }
        }
    }
}
