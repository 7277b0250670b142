// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A daemon in a process of its own, for the tests that start it under another umask, user or
 * environment ({@link OsChildDaemon}). Options, each with a value: {@code --listen PATH|default}
 * (default: {@link ServiceAddress#defaultListen()}), {@code --log-dir DIR}, {@code --plugin-path P},
 * {@code --worker-user U}, {@code --worker-groups G,G}, {@code --worker-uid-range A-B}, {@code
 * --socket-group G}, {@code --worker-env-allow P,P}, {@code --auth-keys DIR}, {@code --dumpable-workers
 * true}; the rest as {@link DaemonConfig#defaults()} and {@link
 * DaemonSecurity#defaults()} say.
 *
 * <p>Prints {@code READY <address>} once it serves, then serves until its stdin ends, closes and
 * exits 0; or, when the daemon does not start, prints {@code FAILED <the one-line reason>}, as
 * {@code urom daemon} would, and exits 2.
 */
public final class OsChildDaemonMain {
    private OsChildDaemonMain() {}

    public static void main(String[] args) throws IOException {
        Daemon daemon;
        try {
            daemon = Daemon.start(Daemon.configureLogging(config(args)));
        } catch (IOException | IllegalArgumentException e) {
            System.out.println("FAILED " + e.getMessage());
            System.out.flush();
            System.exit(2);
            return;
        }
        System.out.println("READY " + daemon.address());
        System.out.flush();
        while (System.in.read() >= 0) {
            // serve until the test closes our stdin
        }
        daemon.close();
        System.exit(0);
    }

    private static DaemonConfig config(String[] args) {
        DaemonConfig.Builder config = DaemonConfig.builder().pluginPath("");
        DaemonSecurity.Builder security = DaemonSecurity.builder();
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException("options come in pairs: " + Arrays.toString(args));
        }
        for (int i = 0; i < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--listen" ->
                    config.listen(
                            value.equals("default")
                                    ? ServiceAddress.defaultListen()
                                    : ServiceAddress.unix(Path.of(value)));
                case "--log-dir" -> config.logDir(Path.of(value));
                case "--plugin-path" -> config.pluginPath(value);
                case "--worker-user" -> security.workerUser(value);
                case "--worker-groups" -> security.workerGroups(List.of(value.split(",")));
                case "--worker-uid-range" -> security.workerUidRange(UidRange.parse(value));
                case "--socket-group" -> security.socketGroup(value);
                case "--auth-keys" -> security.authKeys(Path.of(value));
                case "--dumpable-workers" -> security.dumpableWorkers(Boolean.parseBoolean(value));
                case "--worker-env-allow" -> security.workerEnvAllow(List.of(value.split(",")));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        return config.security(security.build()).build();
    }
}
