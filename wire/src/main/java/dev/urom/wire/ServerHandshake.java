// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.spi.Api;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.Challenge;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.Proof;
import java.util.Arrays;
import java.util.Optional;

/**
 * The accepting side of one connection's handshake, message by message, so that a blocking server
 * ({@link Handshake#server}) and a selector loop (a worker's data plane) share it. The {@link
 * Admission} given by the server decides who may come in: at once (a Unix peer, an insecure TCP
 * listener), after proving a key, or not at all.
 *
 * <p>A refusal's reply is an ERROR whose message the client sees; its {@link Step#logReason()} may
 * say more (an unknown principal and a wrong key look the same to the client). Not thread-safe: one
 * per connection, driven by one thread.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public final class ServerHandshake {
    /** What a server decides about a HELLO. */
    public sealed interface Decision {
        /** Let the peer in now, as {@code principal}. */
        record Admit(Principal principal) implements Decision {
            public Admit {
                requireNonNull(principal, "principal is null");
            }
        }

        /**
         * Make the peer prove the key {@code macKey} of {@code principal}. {@code unknownReason} is
         * non-null when there is no such key (the MAC key is then random, so the proof fails the same
         * way a wrong key does) and says why for the log. The handshake zeroes {@code macKey} once
         * the proof is checked: give it a copy of its own.
         */
        record ProveKey(Principal principal, byte[] macKey, String unknownReason) implements Decision {
            public ProveKey {
                requireNonNull(principal, "principal is null");
                requireNonNull(macKey, "macKey is null");
            }
        }

        /** Refuse with {@code status}; {@code message} goes to the peer and to the log. */
        record Refuse(UromStatus status, String message) implements Decision {
            public Refuse {
                requireNonNull(status, "status is null");
                requireNonNull(message, "message is null");
            }
        }
    }

    /** A server's admission rule for one connection (it knows the transport: Unix peer, TCP). */
    @FunctionalInterface
    public interface Admission {
        Decision decide(Hello hello);
    }

    /** Where the handshake stands. */
    public enum State {
        AWAITING_HELLO,
        AWAITING_PROOF,
        OPEN,
        REFUSED
    }

    /**
     * What to send after a message, and the state it leads to.
     *
     * @param logReason for REFUSED: one line for the server's log
     */
    public record Step(Message reply, State state, String logReason) {}

    private final Proofs.Channel channel;
    private final Admission admission;
    private final int maxMessageSize;
    private final long connectionId;
    private final int maxInflight;
    private State state = State.AWAITING_HELLO;
    private Hello hello;
    private Decision.ProveKey proving;
    private byte[] serverNonce;
    private Principal principal;

    /**
     * @param maxMessageSize, connectionId, maxInflight what HELLO_OK announces
     */
    public ServerHandshake(
            Proofs.Channel channel, Admission admission, int maxMessageSize, long connectionId, int maxInflight) {
        this.channel = requireNonNull(channel, "channel is null");
        this.admission = requireNonNull(admission, "admission is null");
        this.maxMessageSize = maxMessageSize;
        this.connectionId = connectionId;
        this.maxInflight = maxInflight;
    }

    public State state() {
        return state;
    }

    /** Who the peer is, once OPEN. @throws IllegalStateException before */
    public Principal principal() {
        if (state != State.OPEN) {
            throw new IllegalStateException("the handshake is " + state + ", not OPEN");
        }
        return principal;
    }

    /**
     * Takes the peer's next message.
     *
     * @throws IllegalStateException when the handshake is already OPEN or REFUSED
     */
    public Step receive(Message message) {
        return switch (state) {
            case AWAITING_HELLO -> onHello(message);
            case AWAITING_PROOF -> onProof(message);
            default -> throw new IllegalStateException("the handshake is already " + state);
        };
    }

    private Step onHello(Message message) {
        if (!(message instanceof Hello h)) {
            return refuse(UromStatus.UNEXPECTED, "the first message must be HELLO, not " + message.messageType());
        }
        Optional<ErrorReply> wrongVersion = Handshake.check(h);
        if (wrongVersion.isPresent()) {
            return refuse(wrongVersion.get().status(), wrongVersion.get().message());
        }
        if (h.nonce().length != Proofs.NONCE_BYTES) {
            return refuse(
                    UromStatus.INVALID_VALUE,
                    "the HELLO nonce has " + h.nonce().length + " bytes instead of " + Proofs.NONCE_BYTES);
        }
        hello = h;
        Decision decision = admission.decide(h);
        if (decision instanceof Decision.Admit admit) {
            return open(admit.principal(), new byte[0]);
        }
        if (decision instanceof Decision.ProveKey prove) {
            proving = prove;
            serverNonce = Proofs.nonce();
            state = State.AWAITING_PROOF;
            return new Step(new Challenge(serverNonce), state, null);
        }
        Decision.Refuse refuse = (Decision.Refuse) decision;
        return refuse(refuse.status(), refuse.message());
    }

    private Step onProof(Message message) {
        if (!(message instanceof Proof proof)) {
            return refuse(
                    UromStatus.UNEXPECTED, "after CHALLENGE the peer must send PROOF, not " + message.messageType());
        }
        Proofs.Transcript transcript =
                new Proofs.Transcript(channel, hello.role().code(), hello.principal(), hello.nonce(), serverNonce);
        try {
            if (!Proofs.same(Proofs.clientProof(proving.macKey(), transcript), proof.mac())) {
                String clientMessage = "authentication failed: the proof does not match the key of principal '"
                        + hello.principal() + "'";
                Step step = refuse(UromStatus.AUTHENTICATION, clientMessage);
                String why =
                        proving.unknownReason() != null ? proving.unknownReason() : "its proof does not match the key";
                return new Step(step.reply(), step.state(), "principal '" + hello.principal() + "' refused: " + why);
            }
            return open(proving.principal(), Proofs.serverProof(proving.macKey(), transcript));
        } finally {
            Arrays.fill(proving.macKey(), (byte) 0);
        }
    }

    private Step open(Principal admitted, byte[] serverProof) {
        principal = admitted;
        state = State.OPEN;
        return new Step(
                new HelloOk(Protocol.VERSION, maxMessageSize, connectionId, maxInflight, admitted.text(), serverProof),
                state,
                null);
    }

    private Step refuse(UromStatus status, String message) {
        state = State.REFUSED;
        return new Step(new ErrorReply(status, message), state, message);
    }
}
