// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.ServerHandshake.Decision;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The handshake over real Unix socket pairs: admission, key proofs both ways, refusals, limits. */
class HandshakeTest {
    private static final Duration LIMIT = Duration.ofSeconds(10);
    private static final AuthKey JOB_A = AuthKey.of("jobA", bytes(0x11));
    private static final AuthKey JOB_A_WRONG = AuthKey.of("jobA", bytes(0x22));

    @TempDir
    Path dir;

    private static byte[] bytes(int fill) {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) fill);
        return secret;
    }

    /** A server that proves {@code key} for its own name, and admits everyone else as anonymous. */
    private static ServerHandshake.Admission knowing(AuthKey key) {
        return hello -> hello.principal().isEmpty()
                ? new Decision.Admit(Principal.ANONYMOUS)
                : hello.principal().equals(key.name())
                        ? new Decision.ProveKey(key.principal(), Proofs.controlKey(key), null)
                        : new Decision.ProveKey(
                                Principal.key(hello.principal()), Proofs.randomSecret(32), "no key file for it");
    }

    private static ServerHandshake control(ServerHandshake.Admission admission) {
        return new ServerHandshake(Proofs.Channel.CONTROL, admission, 4096, 42, 0);
    }

    private CompletableFuture<Principal> serve(FrameChannel server, ServerHandshake handshake) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return Handshake.server(server, handshake, LIMIT);
            } catch (UromException e) {
                throw new IllegalStateException(e.status() + ": " + e.getMessage(), e);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static String refusal(CompletableFuture<Principal> served) throws Exception {
        try {
            served.get(30, TimeUnit.SECONDS);
            throw new AssertionError("the server admitted the peer");
        } catch (ExecutionException e) {
            return e.getCause().getMessage();
        }
    }

    @Test
    void aRefusalThatCameBeforeTheHelloWentOutIsTheAnswerNotABrokenPipe() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT)) {
            try (FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
                server.send(
                        0,
                        new ErrorReply(
                                UromStatus.FULL,
                                "this daemon already has its maximum of 1 connections (--max-connections)"));
            }

            assertThatThrownBy(
                            () -> Handshake.client(client, Role.HOST, Proofs.Channel.CONTROL, Optional.empty(), LIMIT))
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.FULL))
                    .hasMessage("this daemon already has its maximum of 1 connections (--max-connections)");
        }
    }

    @Test
    void anAdmittedClientLearnsTheLimitsAndWhoTheServerTakesItFor() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Principal> served =
                    serve(server, control(hello -> new Decision.Admit(Principal.unix(1000))));
            HelloOk ok = Handshake.client(client, Role.HOST, Proofs.Channel.CONTROL, Optional.empty(), LIMIT);
            assertThat(ok).isEqualTo(new HelloOk(Protocol.VERSION, 4096, 42, 0, "unix:1000", new byte[0]));
            assertThat(served.get(30, TimeUnit.SECONDS)).isEqualTo(Principal.unix(1000));
            assertThat(client.frameLimit())
                    .as("the caller's limit is back after the handshake")
                    .isEqualTo(Protocol.CONTROL_FRAME_LIMIT);
        }
    }

    @Test
    void theServerZeroesTheKeyItWasGivenOnceTheProofIsChecked() throws Exception {
        for (AuthKey client : List.of(JOB_A, JOB_A_WRONG)) {
            byte[] given = Proofs.controlKey(JOB_A);
            try (WireSockets pair = WireSockets.open(dir);
                    FrameChannel channel = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                    FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
                CompletableFuture<Principal> served =
                        serve(server, control(hello -> new Decision.ProveKey(JOB_A.principal(), given, null)));
                try {
                    Handshake.client(channel, Role.HOST, Proofs.Channel.CONTROL, Optional.of(client), LIMIT);
                } catch (UromException refused) {
                    assertThat(client).as("only the wrong key is refused").isSameAs(JOB_A_WRONG);
                }
                served.handle((principal, failure) -> null).get(30, TimeUnit.SECONDS);
            }
            assertThat(given)
                    .as("the key given for %s's proof, after it", client == JOB_A ? "the right key" : "a wrong key")
                    .isEqualTo(new byte[given.length]);
        }
    }

    @Test
    void aKeyIsProvedBothWaysAndNeverSent() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Principal> served = serve(server, control(knowing(JOB_A)));
            // The client's side through a recording socket: every byte it sends is kept.
            try (Recording recording = new Recording(pair.client())) {
                HelloOk ok = Handshake.client(
                        recording.channel, Role.HOST, Proofs.Channel.CONTROL, Optional.of(JOB_A), LIMIT);
                assertThat(ok.principal()).isEqualTo("key:jobA");
                assertThat(ok.serverProof()).hasSize(Proofs.MAC_BYTES);
                assertThat(served.get(30, TimeUnit.SECONDS)).isEqualTo(Principal.key("jobA"));
                String sent = HexFormat.of().formatHex(recording.sent());
                assertThat(sent)
                        .contains(HexFormat.of().formatHex("jobA".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                        .doesNotContain(HexFormat.of().formatHex(bytes(0x11)).substring(0, 16));
            }
        }
    }

    @Test
    void aWrongKeyIsRefusedWithAuthenticationAndTheReasonIsLogged() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Principal> served = serve(server, control(knowing(JOB_A)));
            assertThatThrownBy(() -> Handshake.client(
                            client, Role.HOST, Proofs.Channel.CONTROL, Optional.of(JOB_A_WRONG), LIMIT))
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION))
                    .hasMessage("authentication failed: the proof does not match the key of principal 'jobA'");
            assertThat(refusal(served))
                    .isEqualTo("AUTHENTICATION: principal 'jobA' refused: its proof does not match the key");
        }
    }

    @Test
    void anUnknownPrincipalLooksLikeAWrongKeyToTheClientButNotInTheLog() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Principal> served = serve(server, control(knowing(JOB_A)));
            AuthKey stranger = AuthKey.of("jobB", bytes(0x33));
            assertThatThrownBy(() ->
                            Handshake.client(client, Role.HOST, Proofs.Channel.CONTROL, Optional.of(stranger), LIMIT))
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION))
                    .hasMessage("authentication failed: the proof does not match the key of principal 'jobB'");
            assertThat(refusal(served)).isEqualTo("AUTHENTICATION: principal 'jobB' refused: no key file for it");
        }
    }

    @Test
    void aProofIsGoodForOneConnectionOnly() throws Exception {
        // Record a good handshake's PROOF, then replay it on a second connection: the server's nonce differs.
        byte[] recordedProof;
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Principal> served = serve(server, control(knowing(JOB_A)));
            try (Recording recording = new Recording(pair.client())) {
                Handshake.client(recording.channel, Role.HOST, Proofs.Channel.CONTROL, Optional.of(JOB_A), LIMIT);
                served.get(30, TimeUnit.SECONDS);
                recordedProof = recording.lastFrameBody(Proofs.MAC_BYTES);
            }
        }
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Principal> served = serve(server, control(knowing(JOB_A)));
            client.send(0, Hello.of(Role.HOST, "jobA"));
            assertThat(client.receive().message()).isInstanceOf(Message.Challenge.class);
            client.send(0, new Message.Proof(recordedProof));
            assertThat(client.receive().message())
                    .isInstanceOfSatisfying(
                            ErrorReply.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION));
            assertThat(refusal(served)).contains("principal 'jobA' refused");
        }
    }

    @Test
    void aClientWithoutAKeyIsToldWhatToGiveWhenChallenged() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            serve(server, control(hello -> new Decision.ProveKey(JOB_A.principal(), Proofs.controlKey(JOB_A), null)));
            assertThatThrownBy(
                            () -> Handshake.client(client, Role.HOST, Proofs.Channel.CONTROL, Optional.empty(), LIMIT))
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION))
                    .hasMessage(
                            "it asks for a key and this host has none: give one with --auth-key-file or UROM_AUTH_KEY_FILE");
        }
    }

    @Test
    void aServerThatDoesNotAskForTheKeyIsNotTrusted() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            serve(server, control(hello -> new Decision.Admit(Principal.key(hello.principal()))));
            assertThatThrownBy(() ->
                            Handshake.client(client, Role.HOST, Proofs.Channel.CONTROL, Optional.of(JOB_A), LIMIT))
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION))
                    .hasMessage(
                            "it let this host in without asking for the key of 'jobA': it is not a service that key is for");
        }
    }

    @Test
    void aServerThatHoldsAnotherKeyFailsItsOwnProof() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Void> impostor = CompletableFuture.runAsync(() -> {
                try {
                    Hello hello = (Hello) server.receive().message();
                    server.send(0, new Message.Challenge(Proofs.nonce()));
                    server.receive();
                    server.send(0, new HelloOk(Protocol.VERSION, 4096, 1, 0, "key:" + hello.principal(), bytes(0x44)));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThatThrownBy(() ->
                            Handshake.client(client, Role.HOST, Proofs.Channel.CONTROL, Optional.of(JOB_A), LIMIT))
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION))
                    .hasMessage("its proof does not match the key of 'jobA': it does not hold that key");
            impostor.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aDataChannelProofDoesNotOpenTheControlChannel() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Principal> served = serve(server, control(knowing(JOB_A)));
            assertThatThrownBy(
                            () -> Handshake.client(client, Role.HOST, Proofs.Channel.DATA, Optional.of(JOB_A), LIMIT))
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION));
            assertThat(refusal(served)).contains("its proof does not match the key");
        }
    }

    @Test
    void anotherVersionIsRefusedWithBothVersionsNamed() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Principal> served =
                    serve(server, control(hello -> new Decision.Admit(Principal.ANONYMOUS)));
            // A version-1 HELLO: magic, version, role and nothing more.
            pair.client()
                    .write(ByteBuffer.allocate(24)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .putInt(20)
                            .putShort((short) 1)
                            .putShort((short) 0)
                            .putLong(0)
                            .putInt(Protocol.MAGIC)
                            .putShort((short) 1)
                            .putShort((short) 1)
                            .flip());
            assertThat(client.receive().message())
                    .isEqualTo(new ErrorReply(
                            UromStatus.UNSUPPORTED_VERSION,
                            "protocol version 1 is not supported; this service speaks 2"));
            assertThat(refusal(served))
                    .isEqualTo("UNSUPPORTED_VERSION: protocol version 1 is not supported; this service speaks 2");
        }
    }

    @Test
    void checkRefusesBadMagic() {
        assertThat(Handshake.check(new Hello(0x12345678, Protocol.VERSION, Role.WORKER, new byte[0], "")))
                .get()
                .satisfies(e -> assertThat(e.status()).isEqualTo(UromStatus.UNSUPPORTED_VERSION))
                .satisfies(
                        e -> assertThat(e.message())
                                .isEqualTo(
                                        "HELLO magic 0x12345678 is not UROM (0x4d4f5255); the peer does not speak this protocol"));
        assertThat(Handshake.check(Hello.of(Role.WORKER))).isEmpty();
    }

    @Test
    void aClientThatSaysNothingIsDroppedAtTheDeadline() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            ServerHandshake handshake = control(hello -> new Decision.Admit(Principal.ANONYMOUS));
            assertThatThrownBy(() -> Handshake.server(server, handshake, Duration.ofMillis(100)))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("no frame arrived within");
            assertThat(server.isOpen()).isFalse();
        }
    }

    @Test
    void aLargeFrameBeforeTheHandshakeIsRefusedUnread() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            pair.client()
                    .write(ByteBuffer.allocate(4)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .putInt(Protocol.HANDSHAKE_FRAME_LIMIT + 1)
                            .flip());
            ServerHandshake handshake = control(hello -> new Decision.Admit(Principal.ANONYMOUS));
            assertThatThrownBy(() -> Handshake.server(server, handshake, LIMIT))
                    .isInstanceOfSatisfying(
                            WireException.class,
                            e -> assertThat(e.reason()).isEqualTo(WireException.Reason.FRAME_TOO_LARGE))
                    .hasMessage("frame of 1025 bytes is over the limit of 1024");
        }
    }

    @Test
    void aHelloWithoutAFullNonceIsRefused() {
        ServerHandshake handshake = control(hello -> new Decision.Admit(Principal.ANONYMOUS));
        ServerHandshake.Step step =
                handshake.receive(new Hello(Protocol.MAGIC, Protocol.VERSION, Role.HOST, new byte[4], ""));
        assertThat(step.state()).isEqualTo(ServerHandshake.State.REFUSED);
        assertThat(step.reply())
                .isEqualTo(new ErrorReply(UromStatus.INVALID_VALUE, "the HELLO nonce has 4 bytes instead of 32"));
    }

    /**
     * A client channel whose bytes pass through a relay that copies them aside: the client talks to
     * one socket pair, the relay forwards both ways to {@code toServer}.
     */
    private final class Recording implements AutoCloseable {
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        private final WireSockets clientSide;
        final FrameChannel channel;

        Recording(java.nio.channels.SocketChannel toServer) throws IOException {
            clientSide = WireSockets.open(dir);
            channel = new FrameChannel(clientSide.client(), Protocol.CONTROL_FRAME_LIMIT);
            relay(clientSide.server(), toServer, true);
            relay(toServer, clientSide.server(), false);
        }

        private void relay(java.nio.channels.SocketChannel from, java.nio.channels.SocketChannel to, boolean record) {
            Thread thread = new Thread(
                    () -> {
                        ByteBuffer buffer = ByteBuffer.allocate(4096);
                        try {
                            while (from.read(buffer.clear()) > 0) {
                                buffer.flip();
                                if (record) {
                                    synchronized (bytes) {
                                        bytes.write(buffer.array(), 0, buffer.limit());
                                    }
                                }
                                while (buffer.hasRemaining()) {
                                    to.write(buffer);
                                }
                            }
                        } catch (IOException ended) {
                            // a side closed
                        }
                    },
                    "handshake-test-relay");
            thread.setDaemon(true);
            thread.start();
        }

        byte[] sent() {
            synchronized (bytes) {
                return bytes.toByteArray();
            }
        }

        /** The last {@code n} bytes the client sent: the end of its last frame's body. */
        byte[] lastFrameBody(int n) {
            byte[] all = sent();
            return Arrays.copyOfRange(all, all.length - n, all.length);
        }

        @Override
        public void close() throws IOException {
            clientSide.close();
        }
    }
}
