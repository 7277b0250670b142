// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.spi.Api;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.Challenge;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.Proof;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * The exchange that opens every connection (docs/wire-protocol.md, "Handshake"): HELLO, then
 * either HELLO_OK at once (a Unix socket's peer credentials, or an insecure TCP listener, decide) or
 * CHALLENGE / PROOF / HELLO_OK when the client proves a key (see {@link Proofs}); ERROR and a closed
 * connection otherwise. The accepting side's logic is {@link ServerHandshake}; this class runs it,
 * and the connecting side, over a blocking {@link FrameChannel}.
 *
 * <p>Stateless and thread-safe; each method uses the channel it is given as its single reader for the
 * duration of the call. While a handshake runs, frames are limited to {@link
 * Protocol#HANDSHAKE_FRAME_LIMIT} bytes; the caller sets the connection's own limit afterwards.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public final class Handshake {
    private Handshake() {}

    /**
     * The connecting side: sends HELLO (claiming {@code key}'s name when there is one), proves the key
     * when challenged, and checks that the service proves it too.
     *
     * @param channel what the key is used for: the daemon's control channel or a worker's data channel
     * @param timeout how long the whole handshake may take
     * @throws UromException the peer's status and message when it answers ERROR; AUTHENTICATION when it
     *     asks for a key this host does not have, lets a key-holding host in without asking for the
     *     key, or fails to prove that it holds the key itself; UNSUPPORTED_VERSION when it answers with
     *     another protocol version; UNEXPECTED when it answers anything else or something unreadable
     * @throws IOException when the connection fails, closes, or stays silent for {@code timeout}
     */
    public static HelloOk client(
            FrameChannel connection, Role role, Proofs.Channel channel, Optional<AuthKey> key, Duration timeout)
            throws IOException, UromException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int limit = connection.frameLimit();
        connection.setFrameLimit(Protocol.HANDSHAKE_FRAME_LIMIT);
        String principal = key.map(AuthKey::name).orElse("");
        Hello hello = Hello.of(role, principal);
        send(connection, hello, deadline);
        Message reply = receive(connection, deadline);
        byte[] macKey = key.map(k -> channel == Proofs.Channel.CONTROL ? Proofs.controlKey(k) : Proofs.dataKey(k))
                .orElse(null);
        Proofs.Transcript transcript = null;
        if (reply instanceof Challenge challenge) {
            if (key.isEmpty()) {
                throw new UromException(
                        UromStatus.AUTHENTICATION,
                        "it asks for a key and this host has none: give one with --auth-key-file or "
                                + AuthKey.ENVIRONMENT_VARIABLE);
            }
            if (challenge.nonce().length != Proofs.NONCE_BYTES) {
                throw new UromException(
                        UromStatus.UNEXPECTED,
                        "its CHALLENGE holds a nonce of " + challenge.nonce().length + " bytes instead of "
                                + Proofs.NONCE_BYTES);
            }
            transcript = new Proofs.Transcript(channel, role.code(), principal, hello.nonce(), challenge.nonce());
            send(connection, new Proof(Proofs.clientProof(macKey, transcript)), deadline);
            reply = receive(connection, deadline);
        }
        if (reply instanceof HelloOk ok) {
            if (ok.version() != Protocol.VERSION) {
                throw new UromException(
                        UromStatus.UNSUPPORTED_VERSION,
                        "the service speaks protocol version " + ok.version() + "; this host speaks "
                                + Protocol.VERSION);
            }
            if (key.isPresent()) {
                if (transcript == null) {
                    throw new UromException(
                            UromStatus.AUTHENTICATION,
                            "it let this host in without asking for the key of '" + principal
                                    + "': it is not a service that key is for");
                }
                if (!Proofs.same(Proofs.serverProof(macKey, transcript), ok.serverProof())) {
                    throw new UromException(
                            UromStatus.AUTHENTICATION,
                            "its proof does not match the key of '" + principal + "': it does not hold that key");
                }
            }
            connection.setFrameLimit(limit);
            return ok;
        }
        if (reply instanceof ErrorReply e) {
            throw refusal(e);
        }
        throw new UromException(
                UromStatus.UNEXPECTED,
                "the handshake was answered with " + reply.messageType()
                        + (transcript == null ? " instead of HELLO_OK or CHALLENGE" : " instead of HELLO_OK"));
    }

    /**
     * The accepting side over a blocking channel: runs {@code handshake} until it opens the
     * connection or refuses it (an ERROR is then sent and the caller closes the connection).
     *
     * @param timeout how long the peer may take for the whole handshake
     * @return who the peer is
     * @throws UromException with the status sent to the peer and the reason for the log, when it is refused
     * @throws WireException when a frame cannot be read (nothing is sent)
     * @throws IOException when the connection fails, closes, or stays silent for {@code timeout}
     */
    public static Principal server(FrameChannel connection, ServerHandshake handshake, Duration timeout)
            throws IOException, WireException, UromException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int limit = connection.frameLimit();
        connection.setFrameLimit(Protocol.HANDSHAKE_FRAME_LIMIT);
        while (true) {
            Frame frame = connection.receiveWithin(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            ServerHandshake.Step step = handshake.receive(frame.message());
            connection.send(0, step.reply());
            switch (step.state()) {
                case OPEN -> {
                    connection.setFrameLimit(limit);
                    return handshake.principal();
                }
                case REFUSED -> throw new UromException(((ErrorReply) step.reply()).status(), step.logReason());
                default -> {
                    // the next message of the handshake
                }
            }
        }
    }

    /**
     * Sends a client frame. A server that refuses at once (over a connection cap) may have written
     * its ERROR and closed before this frame went out: when the send fails, that ERROR, if it is
     * there, is the answer.
     */
    private static void send(FrameChannel connection, Message message, long deadline)
            throws IOException, UromException {
        try {
            connection.send(0, message);
        } catch (IOException failed) {
            Message queued;
            try {
                queued = receive(connection, deadline);
            } catch (IOException | UromException unread) {
                throw failed;
            }
            if (queued instanceof ErrorReply e) {
                throw refusal(e);
            }
            throw failed;
        }
    }

    private static UromException refusal(ErrorReply error) {
        return new UromException(error.status().isSuccess() ? UromStatus.UNEXPECTED : error.status(), error.message());
    }

    private static Message receive(FrameChannel connection, long deadline) throws IOException, UromException {
        try {
            return connection
                    .receiveWithin(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))
                    .message();
        } catch (WireException e) {
            throw new UromException(UromStatus.UNEXPECTED, "its handshake answer is unreadable: " + e.getMessage());
        }
    }

    /** The ERROR to answer {@code hello} with when it is of another protocol or version, or empty. */
    public static Optional<ErrorReply> check(Hello hello) {
        if (hello.magic() != Protocol.MAGIC) {
            return Optional.of(new ErrorReply(
                    UromStatus.UNSUPPORTED_VERSION,
                    "HELLO magic 0x" + Integer.toHexString(hello.magic()) + " is not UROM (0x"
                            + Integer.toHexString(Protocol.MAGIC) + "); the peer does not speak this protocol"));
        }
        if (hello.version() != Protocol.VERSION) {
            return Optional.of(new ErrorReply(
                    UromStatus.UNSUPPORTED_VERSION,
                    "protocol version " + hello.version() + " is not supported; this service speaks "
                            + Protocol.VERSION));
        }
        return Optional.empty();
    }
}
