// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import com.sun.jna.LastErrorException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A child process's line channel to the daemon that spawned it, on the original stdout, kept apart
 * from anything else the process might print. {@link #claim()} moves the original stdout to a
 * private, close-on-exec file descriptor and points descriptor 1 at stderr, so that stray output
 * (a native plugin's {@code printf}, a Java plugin's {@code System.out}) goes to stderr and cannot
 * mix with the lines. The first line is the start-up reply (READY or FAILED); a worker later
 * answers its daemon's requests for counts on it. {@link #close} is the end of file the daemon sees.
 *
 * <p>Linux only. Thread-safe: lines are written whole, one at a time; after {@link #close} (or a
 * failed write) {@link #send} writes nothing.
 */
public final class DaemonChannel implements AutoCloseable {
    private static final int STDOUT = 1;
    private static final int STDERR = 2;
    private static final int F_DUPFD_CLOEXEC = 1030;
    private static final int FIRST_PRIVATE_FD = 3;

    private int fd;

    private DaemonChannel(int fd) {
        this.fd = fd;
    }

    /**
     * Takes stdout for the channel and sends the process's own descriptor 1 to stderr.
     *
     * @throws java.io.IOException when the descriptors cannot be duplicated
     */
    public static DaemonChannel claim() throws java.io.IOException {
        System.out.flush();
        int saved;
        try {
            saved = LibC.fcntl(STDOUT, F_DUPFD_CLOEXEC, FIRST_PRIVATE_FD);
        } catch (LastErrorException e) {
            throw new java.io.IOException("cannot duplicate stdout: " + LibC.describe(e), e);
        }
        try {
            LibC.dup2(STDERR, STDOUT);
        } catch (LastErrorException e) {
            closeQuietly(saved);
            throw new java.io.IOException("cannot point stdout at stderr: " + LibC.describe(e), e);
        }
        return new DaemonChannel(saved);
    }

    /**
     * Writes {@code line} and a newline.
     *
     * @return false when the channel is closed or the write failed (the channel is closed then)
     */
    public synchronized boolean send(String line) {
        if (fd < 0) {
            return false;
        }
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            int done = 0;
            while (done < bytes.length) {
                byte[] rest = done == 0 ? bytes : Arrays.copyOfRange(bytes, done, bytes.length);
                done += (int) LibC.write(fd, rest, rest.length);
            }
            return true;
        } catch (LastErrorException e) {
            System.err.println("urom: cannot write to the daemon: " + LibC.describe(e));
            close();
            return false;
        }
    }

    /** Closes the channel; idempotent. */
    @Override
    public synchronized void close() {
        if (fd >= 0) {
            closeQuietly(fd);
            fd = -1;
        }
    }

    private static void closeQuietly(int fd) {
        try {
            LibC.close(fd);
        } catch (LastErrorException ignored) {
            // the descriptor is gone either way
        }
    }
}
