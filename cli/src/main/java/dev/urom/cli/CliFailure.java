// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

/**
 * A failure the user caused or can fix; its message is the one line the user sees. A {@linkplain
 * #usage usage} failure is a bad option value found after parsing (out of range, not an address):
 * {@link Main} reports it as it reports a parse error, exit status 2 and the {@code (see: ...)}
 * line; any other is a failure, exit status 1.
 */
final class CliFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean usage;

    CliFailure(String message) {
        this(message, false);
    }

    private CliFailure(String message, boolean usage) {
        super(message, null, false, false);
        this.usage = usage;
    }

    /** A bad value of an option or argument, {@code message} naming the option, the value and what is wrong. */
    static CliFailure usage(String message) {
        return new CliFailure(message, true);
    }

    /** Whether the command line itself is wrong (exit status 2), not what it asked for (1). */
    boolean isUsage() {
        return usage;
    }
}
