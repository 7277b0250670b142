// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import java.util.List;
import org.apache.logging.log4j.Level;

/**
 * The service's numeric log levels (the DOCA scale) and their Log4j2 levels: 10 DISABLE (OFF),
 * 20 CRITICAL (FATAL), 30 ERROR, 40 WARNING (WARN), 50 INFO, 60 DEBUG, 70 TRACE; and which
 * loggers take the SDK level rather than the program level.
 *
 * <p>Stateless.
 */
public final class LogLevels {
    /** The levels a user may give, in order. */
    public static final String ACCEPTED =
            "10 (disable), 20 (critical), 30 (error), 40 (warning), 50 (info), 60 (debug), 70 (trace)";

    /** Logger name prefixes that follow the SDK level; every other logger follows the program level. */
    public static final List<String> SDK_LOGGERS = List.of(
            "dev.urom.framework",
            "dev.urom.nativebridge",
            "dev.urom.host",
            "dev.urom.wire",
            "dev.urom.auth",
            "dev.urom.oob",
            "org.pf4j");

    private LogLevels() {}

    /**
     * The Log4j2 level of a numeric level.
     *
     * @throws IllegalArgumentException one line naming the value and the accepted levels
     */
    public static Level fromNumeric(int level) {
        switch (level) {
            case 10:
                return Level.OFF;
            case 20:
                return Level.FATAL;
            case 30:
                return Level.ERROR;
            case 40:
                return Level.WARN;
            case 50:
                return Level.INFO;
            case 60:
                return Level.DEBUG;
            case 70:
                return Level.TRACE;
            default:
                throw new IllegalArgumentException("log level " + level + " is not one of " + ACCEPTED);
        }
    }

    /**
     * Checks a numeric level and gives it back.
     *
     * @throws IllegalArgumentException as {@link #fromNumeric}
     */
    public static int requireValid(int level) {
        fromNumeric(level);
        return level;
    }

    /**
     * Reads a numeric level from text (an option's value).
     *
     * @throws IllegalArgumentException one line naming the text when it is not a number or not a
     *     level
     */
    public static int parse(String text) {
        int level;
        try {
            level = Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("log level '" + text + "' is not a number; use one of " + ACCEPTED);
        }
        return requireValid(level);
    }
}
