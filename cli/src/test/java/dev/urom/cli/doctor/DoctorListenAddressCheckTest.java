// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServerHandshake;
import dev.urom.wire.ServiceAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listen-address check against real sockets: one that answers the UROM handshake as a daemon
 * does, one held by a program that does not speak it, a free one, and a file that is no socket.
 */
class DoctorListenAddressCheckTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    /** Accepts one connection on {@code server} and answers HELLO as a daemon would. */
    private static CompletableFuture<Void> answerOneHandshake(ServerSocketChannel server) {
        return CompletableFuture.runAsync(() -> {
            try (SocketChannel accepted = server.accept();
                    FrameChannel channel = new FrameChannel(accepted, Protocol.CONTROL_FRAME_LIMIT)) {
                Handshake.server(
                        channel,
                        new ServerHandshake(
                                Proofs.Channel.CONTROL,
                                hello -> new ServerHandshake.Decision.Admit(Principal.ANONYMOUS),
                                4096,
                                1,
                                0),
                        TIMEOUT);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aUnixSocketAnsweredByADaemonIsOk() throws Exception {
        ServiceAddress address = ServiceAddress.unix(dir.resolve("urom.sock"));
        try (ServerSocketChannel server = address.bind()) {
            CompletableFuture<Void> daemon = answerOneHandshake(server);

            CheckResult result = new ListenAddressCheck(address, TIMEOUT, null, false).run();

            assertThat(result.ok()).as(result.detail()).isTrue();
            assertThat(result.detail())
                    .startsWith("a daemon is listening on " + address)
                    .contains("max message size 4096");
            daemon.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aTcpPortHeldByAnotherProgramFails() throws Exception {
        try (ServerSocketChannel other = ServerSocketChannel.open()) {
            other.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = ((InetSocketAddress) other.getLocalAddress()).getPort();
            CompletableFuture<Void> hangsUp = CompletableFuture.runAsync(() -> {
                try (SocketChannel accepted = other.accept()) {
                    // closes at once: not a UROM daemon
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });

            CheckResult result =
                    new ListenAddressCheck(ServiceAddress.tcp("127.0.0.1", port), TIMEOUT, keys(), false).run();

            assertThat(result.ok()).isFalse();
            assertThat(result.detail()).contains("tcp:127.0.0.1:" + port).contains("in use by another program");
            assertThat(result.advice()).contains("--listen");
            hangsUp.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aTcpPortAnsweredByADaemonIsOk() throws Exception {
        try (ServerSocketChannel server = ServiceAddress.tcp("127.0.0.1", 0).bind()) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            CompletableFuture<Void> daemon = answerOneHandshake(server);

            CheckResult result =
                    new ListenAddressCheck(ServiceAddress.tcp("127.0.0.1", port), TIMEOUT, keys(), false).run();

            assertThat(result.ok()).as(result.detail()).isTrue();
            assertThat(result.detail()).startsWith("a daemon is listening");
            daemon.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFreeTcpPortWithKeysIsOk() throws Exception {
        CheckResult result = new ListenAddressCheck(ServiceAddress.tcp("127.0.0.1", 0), TIMEOUT, keys(), false).run();

        assertThat(result.grade()).as(result.detail()).isEqualTo(CheckResult.Grade.OK);
        assertThat(result.detail()).endsWith(" is free");
    }

    @Test
    void aTcpAddressWithoutKeysFailsAsTheDaemonRefusesToStart() {
        CheckResult result = new ListenAddressCheck(ServiceAddress.tcp("0.0.0.0", 0), TIMEOUT, null, false).run();

        assertThat(result.grade()).isEqualTo(CheckResult.Grade.FAIL);
        assertThat(result.detail())
                .isEqualTo("the daemon refuses to listen on tcp:0.0.0.0:0 without keys to know who connects");
        assertThat(result.advice())
                .contains("--auth-keys DIR")
                .contains("--insecure-tcp")
                .contains("urom keygen");
    }

    @Test
    void aTcpAddressWithInsecureTcpAloneIsAWarning() {
        CheckResult result = new ListenAddressCheck(ServiceAddress.tcp("127.0.0.1", 0), TIMEOUT, null, true).run();

        assertThat(result.grade()).isEqualTo(CheckResult.Grade.WARN);
        assertThat(result.ok()).isTrue();
        assertThat(result.detail())
                .contains(" is free; with --insecure-tcp any client that reaches it may start workers without a key");
        assertThat(result.advice()).contains("--auth-keys DIR");
    }

    @Test
    void aKeyDirectoryTheDaemonWouldRefuseFailsWithItsReasonOnAnyAddress() throws Exception {
        Path missing = dir.resolve("no-keys");

        for (ServiceAddress address :
                java.util.List.of(ServiceAddress.tcp("127.0.0.1", 0), ServiceAddress.unix(dir.resolve("u.sock")))) {
            CheckResult result = new ListenAddressCheck(address, TIMEOUT, missing, true).run();

            assertThat(result.grade()).as(address.toString()).isEqualTo(CheckResult.Grade.FAIL);
            assertThat(result.detail())
                    .isEqualTo("the daemon would not start: --auth-keys " + missing + ": key directory " + missing
                            + " does not exist");
        }
    }

    @Test
    void aStaleUnixSocketIsAWarningSinceTheDaemonRemovesIt() throws Exception {
        ServiceAddress address = ServiceAddress.unix(dir.resolve("stale.sock"));
        address.bind().close();

        CheckResult result = new ListenAddressCheck(address, TIMEOUT, null, false).run();

        assertThat(result.grade()).isEqualTo(CheckResult.Grade.WARN);
        assertThat(result.detail()).contains("stale").contains("the daemon removes it when it starts");
    }

    /** A key directory the daemon accepts: mode 0700, one key that urom keygen's code wrote. */
    private Path keys() throws Exception {
        Path keys = Files.createDirectories(dir.resolve("keys"));
        Files.setPosixFilePermissions(keys, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        if (!Files.exists(keys.resolve("jobA.key"))) {
            dev.urom.auth.AuthKey.generate(keys.resolve("jobA.key"));
        }
        return keys;
    }

    @Test
    void aRegularFileAtTheSocketPathFails() throws Exception {
        Path file = Files.writeString(dir.resolve("urom.sock"), "not a socket");

        CheckResult result = new ListenAddressCheck(ServiceAddress.unix(file), TIMEOUT, null, false).run();

        assertThat(result.ok()).isFalse();
        assertThat(result.detail()).isEqualTo(file + " exists and is not a socket");
    }
}
