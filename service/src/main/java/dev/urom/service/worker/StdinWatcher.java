// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Reads the pipe the daemon holds on this process's stdin: each line goes to a handler (the
 * daemon's requests for counts), and when the pipe ends (the daemon exited or was killed, even by
 * {@code SIGKILL}) another action runs, which ends the process.
 *
 * <p>Runs on its own daemon thread; the handler runs on it too, one line at a time.
 */
final class StdinWatcher {
    private StdinWatcher() {}

    /** Starts watching {@code stdin}; {@code onEnd} runs on the watcher thread at end of file or a read error. */
    static Thread start(InputStream stdin, Consumer<String> onLine, Runnable onEnd) {
        Thread thread = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.US_ASCII))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    onLine.accept(line);
                }
            } catch (IOException ignored) {
                // a broken pipe means the same as end of file
            }
            onEnd.run();
        }, "urom-stdin-watcher");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
