// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.AuthKey;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.service.daemon.testing.DaemonLog;
import dev.urom.service.testkit.TestKeys;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whom a daemon's listener admits, decided when it starts: a TCP listener without a key directory
 * would admit hosts it cannot tell apart, so the daemon refuses to start unless the operator says
 * {@code --insecure-tcp}, and then warns at every start. Real daemons in this JVM.
 */
class DaemonListenSecurityTest {
    private static final String INSECURE_WARNING = "--insecure-tcp: any client that reaches ";

    @TempDir
    Path dir;

    private DaemonLog log;
    private final List<Daemon> daemons = new ArrayList<>();
    private final List<ControlClient> clients = new ArrayList<>();

    @BeforeEach
    void setUp() {
        log = new DaemonLog(Daemon.logFile(Daemon.configureLogging(config(ServiceAddress.tcp("127.0.0.1", 0)))));
    }

    @AfterEach
    void tearDown() {
        clients.forEach(ControlClient::close);
        daemons.forEach(Daemon::close);
        Configurator.reconfigure();
    }

    private DaemonConfig config(ServiceAddress listen) {
        try {
            return DaemonConfig.builder()
                    .listen(listen)
                    .logDir(dir.resolve("log"))
                    .pluginPath(Files.createDirectories(dir.resolve("plugins")).toString())
                    .security(TestWorkers.security())
                    .build();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private Daemon start(DaemonConfig config) throws IOException {
        Daemon daemon = Daemon.start(config);
        daemons.add(daemon);
        return daemon;
    }

    private ControlClient connect(Daemon daemon, Optional<AuthKey> key) throws Exception {
        ControlClient client = ControlClient.connect(daemon.address(), key);
        clients.add(client);
        return client;
    }

    /** A TCP port that nothing listens on now. */
    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    @Test
    void aTcpListenerWithoutKeysIsRefusedAtStartWithOneLineAndBindsNothing() throws Exception {
        int port = freePort();
        ServiceAddress listen = ServiceAddress.tcp("127.0.0.1", port);

        assertThatThrownBy(() -> start(config(listen)))
                .isInstanceOf(IOException.class)
                .hasMessage("listening on " + listen
                        + " needs keys to know who connects: give --auth-keys DIR (one key file per principal),"
                        + " or --insecure-tcp to let anyone who reaches the port in")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));

        try (ServerSocket rebind = new ServerSocket()) {
            rebind.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            assertThat(rebind.isBound())
                    .as("the refused daemon left port %d free", port)
                    .isTrue();
        }
        assertThat(log.linesWith("daemon listening on")).isEmpty();
    }

    @Test
    void insecureTcpAdmitsHostsWithoutAKeyAsAnonymousAndWarnsAtEveryStart() throws Exception {
        DaemonConfig insecure = config(ServiceAddress.tcp("127.0.0.1", 0));
        insecure = insecure.toBuilder()
                .security(insecure.security().toBuilder().insecureTcp(true).build())
                .build();

        Daemon first = start(insecure);
        HelloOk admitted = connect(first, Optional.empty()).hello();
        assertThat(connect(first, Optional.empty()).call(new PluginsRequest())).isInstanceOf(PluginsReply.class);
        first.close();
        Daemon second = start(insecure);

        assertThat(admitted.principal()).isEqualTo("anonymous");
        List<String> warnings = log.linesWith(INSECURE_WARNING);
        assertThat(warnings).hasSize(2);
        assertThat(warnings.get(0))
                .contains(" WARN ")
                .contains(INSECURE_WARNING + first.address()
                        + " may start workers and use them without a key; give --auth-keys instead");
        assertThat(warnings.get(1)).contains(INSECURE_WARNING + second.address());
    }

    @Test
    void insecureTcpWithKeysStillKnowsKeyHoldersByTheirKeysAndStillWarns() throws Exception {
        DaemonConfig both = config(ServiceAddress.tcp("127.0.0.1", 0));
        Path keys = TestKeys.directory(dir, "alice");
        both = both.toBuilder()
                .security(both.security().toBuilder()
                        .insecureTcp(true)
                        .authKeys(keys)
                        .build())
                .build();

        Daemon daemon = start(both);

        assertThat(connect(daemon, Optional.of(TestKeys.key(keys, "alice")))
                        .hello()
                        .principal())
                .isEqualTo("key:alice");
        assertThat(connect(daemon, Optional.empty()).hello().principal()).isEqualTo("anonymous");
        assertThat(log.linesWith(INSECURE_WARNING)).hasSize(1);
    }

    @Test
    void aUnixListenerNeedsNoKeysAndInsecureTcpDoesNotWarnThere() throws Exception {
        DaemonConfig unix = config(ServiceAddress.unix(dir.resolve("urom.sock")));
        unix = unix.toBuilder()
                .security(unix.security().toBuilder().insecureTcp(true).build())
                .build();

        Daemon daemon = start(unix);

        assertThat(connect(daemon, Optional.empty()).hello().principal())
                .isEqualTo("unix:" + UnixAccounts.effectiveUid());
        assertThat(log.linesWith(INSECURE_WARNING)).isEmpty();
    }

    @Test
    void aKeyDirectoryThatCannotBeUsedIsRefusedAtStartWithOneLineNamingIt() throws Exception {
        DaemonConfig config = config(ServiceAddress.tcp("127.0.0.1", 0));
        Path missing = dir.resolve("no-such-keys");

        assertThatThrownBy(() -> start(config.toBuilder()
                        .security(
                                config.security().toBuilder().authKeys(missing).build())
                        .build()))
                .isInstanceOf(IOException.class)
                .hasMessage("key directory " + missing + " does not exist");
    }
}
