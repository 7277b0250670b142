package dev.urom.service.os;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The one line a child process answers its spawner with on its stdout, kept apart from anything
 * else the process might print. {@link #claim()} moves the original stdout to a private file
 * descriptor and points descriptor 1 at stderr, so that stray output (a native plugin's {@code
 * printf}, a Java plugin's {@code System.out}) goes to stderr and cannot come before or after the
 * line. {@link #send} writes the line and closes the original stdout, which the spawner sees as
 * end of file.
 *
 * <p>Linux only. {@link #send} is effective once; later calls do nothing. Thread-safe.
 */
public final class StartupReply {
    private static final int STDOUT = 1;
    private static final int STDERR = 2;

    private int fd;

    private StartupReply(int fd) {
        this.fd = fd;
    }

    /**
     * Takes stdout for the reply and sends the process's own descriptor 1 to stderr.
     *
     * @throws IOException when the descriptors cannot be duplicated
     */
    public static StartupReply claim() throws IOException {
        System.out.flush();
        int saved;
        try {
            saved = LibC.dup(STDOUT);
        } catch (LastErrorException e) {
            throw new IOException("cannot duplicate stdout: " + LibC.describe(e), e);
        }
        try {
            LibC.dup2(STDERR, STDOUT);
        } catch (LastErrorException e) {
            closeQuietly(saved);
            throw new IOException("cannot point stdout at stderr: " + LibC.describe(e), e);
        }
        return new StartupReply(saved);
    }

    /**
     * Writes {@code line} and a newline to the original stdout and closes it.
     *
     * @throws IOException when the write fails (the descriptor is closed all the same)
     */
    public synchronized void send(String line) throws IOException {
        if (fd < 0) {
            return;
        }
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        int target = fd;
        fd = -1;
        try {
            int done = 0;
            while (done < bytes.length) {
                byte[] rest = done == 0 ? bytes : java.util.Arrays.copyOfRange(bytes, done, bytes.length);
                long written = LibC.write(target, rest, rest.length);
                done += (int) written;
            }
        } catch (LastErrorException e) {
            throw new IOException("cannot write the start-up reply: " + LibC.describe(e), e);
        } finally {
            closeQuietly(target);
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
