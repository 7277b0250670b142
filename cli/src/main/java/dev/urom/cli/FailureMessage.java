package dev.urom.cli;

import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The failure message that a worker's failure answer may carry (docs/wire-protocol.md, NOTIFY): the
 * payload of a notification whose status is not SUCCESS, when it is text, valid UTF-8 without
 * control characters. A native plugin's failure payload, binary, is not a message.
 */
final class FailureMessage {
    private FailureMessage() {}

    /** The message in a failed notification's payload; empty when the payload is empty or not text. */
    static Optional<String> of(byte[] payload) {
        if (payload.length == 0) {
            return Optional.empty();
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(payload))
                    .toString();
        } catch (CharacterCodingException notText) {
            return Optional.empty();
        }
        return text.codePoints().anyMatch(Character::isISOControl) || text.isBlank() ? Optional.empty() : Optional.of(text);
    }

    /** {@code <STATUS>: <message>}, or {@code <STATUS>} alone when the payload holds no message. */
    static String describe(UromStatus status, byte[] payload) {
        return of(payload).map(message -> status + ": " + message).orElse(status.toString());
    }
}
