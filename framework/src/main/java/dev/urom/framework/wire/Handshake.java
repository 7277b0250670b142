package dev.urom.framework.wire;

import dev.urom.framework.wire.Message.ErrorReply;
import dev.urom.framework.wire.Message.Hello;
import dev.urom.framework.wire.Message.HelloOk;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.util.Optional;

/**
 * The HELLO / HELLO_OK exchange that opens every connection. Stateless and thread-safe; each
 * method uses the channel it is given as its single reader for the duration of the call.
 */
public final class Handshake {
    private Handshake() {
    }

    /**
     * The connecting side: sends HELLO, expects HELLO_OK. Does not change the channel's frame
     * limit; a data connection should then set {@link Protocol#dataFrameLimit} of the answer's
     * {@code maxMessageSize}.
     *
     * @throws UromException the peer's status and message when it answers ERROR;
     *     UNSUPPORTED_VERSION when it answers with another protocol version; UNEXPECTED when it
     *     answers anything else or something unreadable
     * @throws IOException when the connection fails or closes first
     */
    public static HelloOk client(FrameChannel channel, Role role) throws IOException, UromException {
        channel.send(0, Hello.of(role));
        Frame reply;
        try {
            reply = channel.receive();
        } catch (WireException e) {
            throw new UromException(UromStatus.UNEXPECTED, "handshake answer unreadable: " + e.getMessage());
        }
        Message m = reply.message();
        if (m instanceof HelloOk ok) {
            if (ok.version() != Protocol.VERSION) {
                throw new UromException(UromStatus.UNSUPPORTED_VERSION,
                        "the service speaks protocol version " + ok.version() + "; this host speaks " + Protocol.VERSION);
            }
            return ok;
        }
        if (m instanceof ErrorReply e) {
            UromStatus status = e.status().isSuccess() ? UromStatus.UNEXPECTED : e.status();
            throw new UromException(status, e.message());
        }
        throw new UromException(UromStatus.UNEXPECTED, "handshake answered with " + m.messageType() + " instead of HELLO_OK");
    }

    /**
     * The accepting side: reads HELLO and answers HELLO_OK, or ERROR when {@link #check} refuses
     * it (and then throws).
     *
     * @return the peer's HELLO
     * @throws UromException with the status and message sent to the peer when it is refused, or
     *     UNEXPECTED when its first frame is not HELLO
     * @throws WireException when its first frame cannot be read (nothing is sent)
     * @throws IOException when the connection fails or closes first
     */
    public static Hello server(FrameChannel channel, int maxMessageSize, long connectionId)
            throws IOException, WireException, UromException {
        Frame first = channel.receive();
        if (!(first.message() instanceof Hello hello)) {
            ErrorReply refusal = new ErrorReply(UromStatus.UNEXPECTED,
                    "the first message must be HELLO, not " + first.message().messageType());
            channel.send(0, refusal);
            throw new UromException(refusal.status(), refusal.message());
        }
        Optional<ErrorReply> refusal = check(hello);
        if (refusal.isPresent()) {
            channel.send(first.requestId(), refusal.get());
            throw new UromException(refusal.get().status(), refusal.get().message());
        }
        channel.send(first.requestId(), new HelloOk(Protocol.VERSION, maxMessageSize, connectionId));
        return hello;
    }

    /** The ERROR to answer {@code hello} with, or empty when it is acceptable. */
    public static Optional<ErrorReply> check(Hello hello) {
        if (hello.magic() != Protocol.MAGIC) {
            return Optional.of(new ErrorReply(UromStatus.UNSUPPORTED_VERSION,
                    "HELLO magic 0x" + Integer.toHexString(hello.magic()) + " is not UROM (0x" + Integer.toHexString(Protocol.MAGIC)
                            + "); the peer does not speak this protocol"));
        }
        if (hello.version() != Protocol.VERSION) {
            return Optional.of(new ErrorReply(UromStatus.UNSUPPORTED_VERSION,
                    "protocol version " + hello.version() + " is not supported; this service speaks " + Protocol.VERSION));
        }
        return Optional.empty();
    }
}
