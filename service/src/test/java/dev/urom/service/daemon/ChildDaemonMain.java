// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.service.daemon.testing.FakeWorkerMain;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A daemon in a process of its own, for tests that control the daemon's own environment (this JVM's
 * cannot be changed). Arguments: the Unix socket, the log directory, the plugin path. Its workers are
 * {@link FakeWorkerMain}s, as the tests' user, with the default env allow-list. Prints {@code READY
 * <address>} once it serves, then serves until its stdin ends, closes and exits 0.
 */
public final class ChildDaemonMain {
    private ChildDaemonMain() {}

    public static void main(String[] args) throws IOException {
        DaemonConfig config = Daemon.configureLogging(DaemonConfig.builder()
                .listen(ServiceAddress.unix(Path.of(args[0])))
                .logDir(Path.of(args[1]))
                .pluginPath(args[2])
                .workerMainClass(FakeWorkerMain.class.getName())
                .security(TestWorkers.security())
                .build());
        Daemon daemon = Daemon.start(config);
        System.out.println("READY " + daemon.address());
        System.out.flush();
        while (System.in.read() >= 0) {
            // serve until the test closes our stdin
        }
        daemon.close();
        System.exit(0);
    }
}
