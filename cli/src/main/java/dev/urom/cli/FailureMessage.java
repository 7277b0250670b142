// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.framework.worker.FailureText;
import dev.urom.spi.UromStatus;

/**
 * The line {@code urom exec} and {@code urom cmd} print for a failed command: its status and the
 * refusal's reason (docs/wire-protocol.md, NOTIFY), which comes from a worker and so is printed only
 * as {@link FailureText#oneLine} makes it: every control character (an escape sequence included) a
 * space. Stateless.
 */
final class FailureMessage {
    private FailureMessage() {}

    /** {@code <STATUS>: <reason>}, or {@code <STATUS>} alone when the reason is blank. */
    static String describe(UromStatus status, String reason) {
        String text = FailureText.oneLine(reason).strip();
        return text.isEmpty() ? status.toString() : status + ": " + text;
    }
}
