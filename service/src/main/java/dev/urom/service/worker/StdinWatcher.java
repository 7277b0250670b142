// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Reads the pipe the daemon holds on this process's stdin: each line goes to a handler (the
 * worker's access, then the daemon's requests for counts), and when the pipe ends (the daemon exited
 * or was killed, even by {@code SIGKILL}) another action runs, which ends the process.
 *
 * <p>The pipe is read a byte at a time, so that no buffer holds more than the line at hand; the
 * handler gets the line's bytes without its newline, at most {@value #MAX_LINE_BYTES} (the rest of
 * a longer line is dropped), and the array is zeroed once the handler returns: the first line
 * carries keys.
 *
 * <p>Runs on its own daemon thread; the handler runs on it too, one line at a time.
 */
final class StdinWatcher {
    static final int MAX_LINE_BYTES = 4096;

    private StdinWatcher() {}

    /** Starts watching {@code stdin}; {@code onEnd} runs on the watcher thread at end of file or a read error. */
    static Thread start(InputStream stdin, Consumer<byte[]> onLine, Runnable onEnd) {
        Thread thread = new Thread(() -> {
            try (stdin) {
                readLines(stdin, onLine);
            } catch (IOException ignored) {
                // a broken pipe means the same as end of file
            }
            onEnd.run();
        }, "urom-stdin-watcher");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Hands every whole line of {@code in} to {@code onLine}, until end of file. */
    static void readLines(InputStream in, Consumer<byte[]> onLine) throws IOException {
        byte[] line = new byte[MAX_LINE_BYTES];
        int length = 0;
        int b;
        while ((b = in.read()) >= 0) {
            if (b != '\n') {
                if (length < line.length) {
                    line[length++] = (byte) b;
                }
                continue;
            }
            byte[] whole = Arrays.copyOf(line, length);
            Arrays.fill(line, 0, length, (byte) 0);
            length = 0;
            try {
                onLine.accept(whole);
            } finally {
                Arrays.fill(whole, (byte) 0);
            }
        }
        Arrays.fill(line, (byte) 0);
    }
}
