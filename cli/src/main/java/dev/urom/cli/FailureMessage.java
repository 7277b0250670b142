package dev.urom.cli;

import dev.urom.spi.UromStatus;

/**
 * The line {@code urom exec} and {@code urom cmd} print for a failed command: its status and the
 * refusal's reason (docs/wire-protocol.md, NOTIFY), which comes from a worker and so is printed only
 * after every control character (an escape sequence included) has become a space. Stateless.
 */
final class FailureMessage {
    private FailureMessage() {}

    /** {@code <STATUS>: <reason>}, or {@code <STATUS>} alone when the reason is blank. */
    static String describe(UromStatus status, String reason) {
        StringBuilder shown = new StringBuilder(reason.length());
        reason.codePoints().forEach(c -> shown.appendCodePoint(Character.isISOControl(c) || c == 0x2028 || c == 0x2029 ? ' ' : c));
        String text = shown.toString().strip();
        return text.isEmpty() ? status.toString() : status + ": " + text;
    }
}
