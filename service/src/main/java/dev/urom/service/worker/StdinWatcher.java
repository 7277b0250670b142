package dev.urom.service.worker;

import java.io.IOException;
import java.io.InputStream;

/**
 * Watches the pipe the daemon holds on this process's stdin: when it ends (the daemon exited or
 * was killed, even by {@code SIGKILL}), runs the given action, which ends the process.
 *
 * <p>Runs on its own daemon thread; whatever arrives on stdin is read and ignored.
 */
final class StdinWatcher {
    private StdinWatcher() {}

    /** Starts watching {@code stdin}; {@code onEnd} runs on the watcher thread at end of file or a read error. */
    static Thread start(InputStream stdin, Runnable onEnd) {
        Thread thread = new Thread(() -> {
            byte[] sink = new byte[256];
            try {
                while (stdin.read(sink) >= 0) {
                    // the daemon sends nothing; anything that comes is dropped
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
