// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Proofs;
import dev.urom.host.UromService;
import dev.urom.service.daemon.testing.Await;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.service.daemon.testing.DaemonLog;
import dev.urom.service.daemon.testing.RawConnection;
import dev.urom.service.testkit.TestKeys;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message.Challenge;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's caps on host connections, against hosts that open more than their share or open
 * connections and then say nothing: {@code --max-connections} (every connection, handshaking ones
 * included), {@code --max-connections-per-principal} (connections of one proved principal) and
 * {@code --handshake-timeout-ms} (how long a connection may take for its whole handshake). A TCP
 * daemon in this JVM, with a key directory of alice, bob and carol (key principals work for any
 * Unix user), one per test with the limits it needs; no workers.
 */
class DaemonConnectionLimitsTest {
    private static final String CONNECTION_THREAD_PREFIX = "urom-daemon-connection-";

    @TempDir
    Path dir;

    private Path keys;
    private DaemonLog log;
    private Daemon daemon;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        Configurator.reconfigure();
    }

    private Daemon start(int maxConnections, int maxConnectionsPerPrincipal, Duration handshakeTimeout)
            throws IOException {
        keys = TestKeys.directory(dir, "alice", "bob", "carol");
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        DaemonConfig config = Daemon.configureLogging(DaemonConfig.builder()
                .listen(ServiceAddress.tcp("127.0.0.1", 0))
                .logDir(dir.resolve("log"))
                .pluginPath(plugins.toString())
                .security(TestWorkers.security().toBuilder()
                        .authKeys(keys)
                        .maxConnections(maxConnections)
                        .maxConnectionsPerPrincipal(maxConnectionsPerPrincipal)
                        .handshakeTimeout(handshakeTimeout)
                        .build())
                .build());
        log = new DaemonLog(Daemon.logFile(config));
        daemon = Daemon.start(config);
        return daemon;
    }

    private AuthKey key(String principal) {
        return TestKeys.key(keys, principal);
    }

    private ControlClient connect(String principal) throws Exception {
        ControlClient client = ControlClient.connect(daemon.address(), Optional.of(key(principal)));
        opened.add(client);
        return client;
    }

    private RawConnection raw() throws IOException {
        RawConnection connection = RawConnection.open(daemon.address());
        opened.add(connection);
        return connection;
    }

    private static void assertServed(ControlClient client) throws Exception {
        assertThat(client.call(new PluginsRequest())).isInstanceOf(PluginsReply.class);
    }

    /** The daemon's gauge of open host connections, as its metrics give it. */
    private long openConnections() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            daemon.writeMetrics(out);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return out.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(line -> line.startsWith("urom_control_connections_open "))
                .mapToLong(line -> (long)
                        Double.parseDouble(line.substring(line.indexOf(' ') + 1).strip()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the metrics have no urom_control_connections_open"));
    }

    private void awaitOpenConnections(long count) throws InterruptedException {
        Await.until("the daemon has " + count + " open host connections", () -> openConnections() == count);
    }

    /** The daemon's connection threads now blocked on a connection (the pool's idle threads wait for work, not on a socket). */
    private static long connectionThreadsOnASocket() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().startsWith(CONNECTION_THREAD_PREFIX))
                .filter(e -> Arrays.stream(e.getValue())
                        .anyMatch(frame -> frame.getClassName().equals(FrameChannel.class.getName())))
                .count();
    }

    @Test
    void aPrincipalOverItsCapIsRefusedInTheHandshakeWithFullAndGetsASlotAgainWhenOneOfItsConnectionsCloses()
            throws Exception {
        start(16, 2, DaemonSecurity.DEFAULT_HANDSHAKE_TIMEOUT);
        ControlClient first = connect("alice");
        ControlClient second = connect("alice");

        assertThatThrownBy(() -> connect("alice"))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.FULL))
                .hasMessage("key:alice already has its maximum of 2 connections (--max-connections-per-principal)");
        assertThatThrownBy(() -> UromService.connect(daemon.address().toString(), key("alice")))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.FULL))
                .hasMessage(
                        daemon.address() + " refused the connection: key:alice already has its maximum of 2 connections"
                                + " (--max-connections-per-principal)");
        ControlClient bob = connect("bob");

        assertServed(first);
        assertServed(second);
        assertServed(bob);
        assertThat(
                        log.awaitLinesWith(
                                "refused: key:alice already has its maximum of 2 connections (--max-connections-per-principal)"))
                .hasSize(2);

        first.close();
        awaitOpenConnections(2);
        assertServed(connect("alice"));
    }

    @Test
    void connectionsThatFailOrNeverFinishTheirProofHoldNoneOfThePrincipalsConnections() throws Exception {
        start(16, 2, DaemonSecurity.DEFAULT_HANDSHAKE_TIMEOUT);
        AuthKey impostor = AuthKey.of("alice", Proofs.randomSecret(32));
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> ControlClient.connect(daemon.address(), Optional.of(impostor)))
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION));
        }
        for (int i = 0; i < 3; i++) {
            RawConnection claimsAlice = raw().send(0, Hello.of(Role.HOST, "alice"));
            assertThat(claimsAlice.receive()).isInstanceOf(Challenge.class);
        }

        assertServed(connect("alice"));
        assertServed(connect("alice"));
    }

    @Test
    void overTheDaemonsCapAnyoneIsRefusedWithFullUntilAConnectionCloses() throws Exception {
        start(3, 2, DaemonSecurity.DEFAULT_HANDSHAKE_TIMEOUT);
        connect("alice");
        connect("alice");
        ControlClient bob = connect("bob");

        assertThatThrownBy(() -> connect("carol"))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.FULL))
                .hasMessage("the daemon has its maximum of 3 connections (--max-connections)");
        assertThat(log.awaitLinesWith("refused: the daemon has its maximum of 3 connections (--max-connections)"))
                .hasSize(1);

        bob.close();
        awaitOpenConnections(2);
        assertServed(connect("carol"));
    }

    @Test
    void silentConnectionsAreDroppedAtTheHandshakeTimeoutAndHoldNoThreadAfterwardsWhileOthersAreServed()
            throws Exception {
        Duration timeout = Duration.ofSeconds(3);
        start(16, 4, timeout);
        ControlClient warm = connect("alice");
        assertServed(warm);
        long opening = System.nanoTime();
        List<RawConnection> silent = new ArrayList<>();
        List<CompletableFuture<Long>> closedAfterNanos = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            RawConnection connection = raw();
            silent.add(connection);
            closedAfterNanos.add(CompletableFuture.supplyAsync(() -> {
                try {
                    assertThat(connection.next())
                            .as("what the daemon sends a connection that says nothing")
                            .isEmpty();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                return System.nanoTime() - opening;
            }));
        }
        Await.until("the daemon reads the six connections", () -> connectionThreadsOnASocket() == 6);

        ControlClient meanwhile = connect("bob");
        assertServed(meanwhile);
        assertServed(warm);
        assertThat(closedAfterNanos)
                .as("no silent connection was dropped before the others were served")
                .noneMatch(CompletableFuture::isDone);

        for (CompletableFuture<Long> closed : closedAfterNanos) {
            assertThat(closed.get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .isGreaterThanOrEqualTo(timeout.toNanos());
        }
        awaitOpenConnections(2);
        Await.until("only the two served connections hold a thread", () -> connectionThreadsOnASocket() == 2);
        for (RawConnection connection : silent) {
            assertThat(log.awaitLinesWith(
                            "(127.0.0.1:" + connection.localPort() + ") failed: no frame arrived within "))
                    .hasSize(1);
        }
        assertServed(meanwhile);
    }

    @Test
    void silentConnectionsFillTheDaemonsCapOnlyUntilTheirHandshakeTimeout() throws Exception {
        start(2, 2, Duration.ofSeconds(1));
        raw();
        raw();
        awaitOpenConnections(2);

        assertThatThrownBy(() -> connect("alice"))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.FULL));

        awaitOpenConnections(0);
        assertServed(connect("alice"));
    }

    @Test
    void aHandshakeThatTricklesInIsCutAtTheTimeoutOfTheWholeHandshakeNotOfEachRead() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        start(16, 4, timeout);
        ByteBuffer hello = FrameCodec.encode(0, Hello.of(Role.HOST, "alice"));
        int total = hello.remaining();
        RawConnection trickle = raw();
        AtomicInteger written = new AtomicInteger();
        ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
        long opening = System.nanoTime();
        try {
            writer.scheduleAtFixedRate(
                    () -> {
                        if (!hello.hasRemaining()) {
                            return;
                        }
                        try {
                            trickle.channel().socket().write(ByteBuffer.wrap(new byte[] {hello.get()}));
                            written.incrementAndGet();
                        } catch (IOException e) {
                            throw new IllegalStateException("the daemon closed the connection", e);
                        }
                    },
                    0,
                    100,
                    TimeUnit.MILLISECONDS);

            assertThat(trickle.next())
                    .as("what the daemon sends a connection that trickles its HELLO")
                    .isEmpty();
            long closedAfter = System.nanoTime() - opening;

            assertThat(closedAfter).isGreaterThanOrEqualTo(timeout.toNanos());
            assertThat(written.get())
                    .as("bytes of the %d-byte HELLO written before the daemon closed the connection", total)
                    .isLessThan(total);
            assertThat(log.awaitLinesWith("(127.0.0.1:" + trickle.localPort() + ") failed: no frame arrived within"))
                    .hasSize(1);
        } finally {
            writer.shutdownNow();
        }
    }
}
