// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.service.testkit.TestWorkers;
import dev.urom.wire.ServiceAddress;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * A daemon and its HTTP endpoint in a process of their own, for tests that run it under a small
 * open-files limit. Arguments: the Unix socket, the log directory, the plugin path. Prints {@code
 * READY <http port> <open fds>} once both serve, then serves until its stdin ends, closes both and
 * exits 0.
 */
public final class AcceptLimitDaemonMain {
    private AcceptLimitDaemonMain() {}

    public static void main(String[] args) throws IOException {
        DaemonConfig config = Daemon.configureLogging(DaemonConfig.builder()
                .listen(ServiceAddress.unix(Path.of(args[0])))
                .logDir(Path.of(args[1]))
                .pluginPath(args[2])
                .security(TestWorkers.security())
                .build());
        Daemon daemon = Daemon.start(config);
        HttpEndpoint http = HttpEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), daemon);
        String[] fds = new File("/proc/self/fd").list();
        System.out.println("READY " + http.address().getPort() + " " + (fds == null ? -1 : fds.length));
        System.out.flush();
        while (System.in.read() >= 0) {
            // serve until the test closes our stdin
        }
        http.close();
        daemon.close();
        System.exit(0);
    }
}
