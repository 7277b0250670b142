// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.service.process.PipeLineReader;
import dev.urom.service.process.WorkerLines;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Reads the pipe the daemon holds on this process's stdin: each line goes to a handler (the
 * worker's access, then the daemon's requests for counts), and when the pipe ends (the daemon exited
 * or was killed, even by {@code SIGKILL}) another action runs, which ends the process.
 *
 * <p>The handler gets each whole line's bytes without its newline, at most {@value #MAX_LINE_BYTES}
 * ({@link PipeLineReader}), and the array is zeroed once the handler returns: the first line carries
 * keys.
 *
 * <p>Runs on its own daemon thread; the handler runs on it too, one line at a time.
 */
final class StdinWatcher {
    static final int MAX_LINE_BYTES = WorkerLines.MAX_CONTROL_LINE_BYTES;

    private StdinWatcher() {}

    /** Starts watching {@code stdin}; {@code onEnd} runs on the watcher thread at end of file or a read error. */
    static Thread start(InputStream stdin, Consumer<byte[]> onLine, Runnable onEnd) {
        Thread thread = new Thread(
                () -> {
                    try (stdin) {
                        readLines(stdin, onLine);
                    } catch (IOException ignored) {
                        // a broken pipe means the same as end of file
                    }
                    onEnd.run();
                },
                "urom-stdin-watcher");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Hands every whole line of {@code in} to {@code onLine}, until end of file. */
    static void readLines(InputStream in, Consumer<byte[]> onLine) throws IOException {
        PipeLineReader lines = new PipeLineReader(in, MAX_LINE_BYTES);
        byte[] line;
        while ((line = lines.next()) != null) {
            try {
                onLine.accept(line);
            } finally {
                Arrays.fill(line, (byte) 0);
            }
        }
    }
}
