// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

/** A failure the user caused or can fix; its message is the one line the user sees. */
final class CliFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CliFailure(String message) {
        super(message, null, false, false);
    }
}
