// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.util.function.Function;

/**
 * How long one BOUNCE may hold the worker's thread: {@value #VARIABLE} milliseconds, read when the
 * plugin opens; {@value #DEFAULT_MS} when it is unset. Values only; nothing to share.
 */
final class BounceBound {
    static final String VARIABLE = "UROM_SANDBOX_BOUNCE_TIMEOUT_MS";
    static final long DEFAULT_MS = 30_000;
    static final long MAX_MS = 3_600_000;
    private static final int LOGGED_TEXT_MAX = 200;

    private BounceBound() {}

    /**
     * The bound in nanoseconds from {@value #VARIABLE} as {@code environment} gives it (null: unset).
     *
     * @throws UromException {@code BAD_CONFIG} when it is set but is not one or more ASCII digits of
     *     value 1 to {@value #MAX_MS}
     */
    static long nanosFromEnvironment(Function<String, String> environment) throws UromException {
        String text = environment.apply(VARIABLE);
        if (text == null) {
            return DEFAULT_MS * 1_000_000;
        }
        long ms = 0;
        for (int i = 0; i < text.length() && ms <= MAX_MS; i++) {
            char digit = text.charAt(i);
            ms = digit >= '0' && digit <= '9' ? ms * 10 + (digit - '0') : Long.MAX_VALUE;
        }
        if (text.isEmpty() || ms < 1 || ms > MAX_MS) {
            String shown = text.length() > LOGGED_TEXT_MAX ? text.substring(0, LOGGED_TEXT_MAX) : text;
            throw new UromException(
                    UromStatus.BAD_CONFIG,
                    VARIABLE + "='" + shown + "' is not a number of milliseconds (1 to " + MAX_MS
                            + "): the sandbox plugin does not open");
        }
        return ms * 1_000_000;
    }
}
