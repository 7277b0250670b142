// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static java.util.Objects.requireNonNull;

import java.lang.invoke.MethodHandles;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.Logger;

/**
 * A Log4j2 logger that logs at most {@code burst} lines of each category per {@code window}, for
 * lines that others can cause at will (a host's refused requests). A category's window opens with
 * its first line and lasts {@code window}; further lines of that category in the same window are
 * counted and dropped. The first line logged after some were dropped is preceded by one line, at
 * its level, saying how many were not logged. Lines of a stretch that nothing follows are never
 * reported.
 *
 * <p>Categories are a small fixed set chosen by the code (e.g. {@code "refused WORKER_START"}),
 * never text from a host: each one keeps a small record for the life of this object. A line whose
 * level the logger does not log is neither logged nor counted.
 *
 * <p>Everything a call needs is loaded with the class, so that it logs even when the process has
 * run out of file descriptors (when loading a class from a directory fails).
 *
 * <p>Thread-safe: a category's count is kept under its own lock, taken for a few arithmetic steps;
 * the logging itself happens outside it.
 */
public final class RateLimitedLog {
    static {
        // see the class comment: out of file descriptors, a class path directory yields no class
        try {
            MethodHandles.lookup().ensureInitialized(Budget.class);
        } catch (IllegalAccessException e) {
            throw new AssertionError("a class cannot initialise its own nested class", e);
        }
    }

    private final Logger logger;
    private final int burst;
    private final long windowNanos;
    private final String limitText;
    private final LongSupplier nanoTime;
    private final ConcurrentMap<String, Budget> budgets = new ConcurrentHashMap<>();

    /**
     * Limits {@code logger} with the monotonic clock {@link System#nanoTime()}.
     *
     * @throws IllegalArgumentException one line when {@code burst} is below 1 or {@code window} is
     *     not positive
     */
    public RateLimitedLog(Logger logger, int burst, Duration window) {
        this(logger, burst, window, System::nanoTime);
    }

    /**
     * As {@link #RateLimitedLog(Logger, int, Duration)}, with the clock {@code nanoTime} (a
     * monotonic count of nanoseconds; tests pass one they move by hand).
     */
    public RateLimitedLog(Logger logger, int burst, Duration window, LongSupplier nanoTime) {
        this.logger = requireNonNull(logger, "logger is null");
        this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
        requireNonNull(window, "window is null");
        if (burst < 1) {
            throw new IllegalArgumentException("rate limit burst " + burst + " is not positive");
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("rate limit window " + window.toMillis() + " ms is not positive");
        }
        this.burst = burst;
        this.windowNanos = window.toNanos();
        long millis = window.toMillis();
        this.limitText = "at most " + burst + " per " + (millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms");
    }

    /** {@link #log} at WARN. */
    public void warn(String category, String format, Object... args) {
        log(category, Level.WARN, format, args);
    }

    /**
     * Logs {@code format} with {@code args} as {@link Logger#log(Level, String, Object...)} does
     * (a last {@link Throwable} argument is the line's exception), unless {@code category} has had
     * its {@code burst} lines in its current window.
     */
    public void log(String category, Level level, String format, Object... args) {
        requireNonNull(category, "category is null");
        if (!logger.isEnabled(level)) {
            return;
        }
        long dropped =
                budgets.computeIfAbsent(category, name -> new Budget()).take(nanoTime.getAsLong(), burst, windowNanos);
        if (dropped < 0) {
            return;
        }
        if (dropped > 0) {
            logger.log(
                    level,
                    "{}: {} more {} not logged ({})",
                    category,
                    dropped,
                    dropped == 1 ? "line was" : "lines were",
                    limitText);
        }
        logger.log(level, format, args);
    }

    /** One category's window. Guarded by itself. */
    private static final class Budget {
        private boolean open;
        private long windowStart;
        private int used;
        private long dropped;

        /**
         * Takes one line at time {@code now}: -1 when it must be dropped, else how many were
         * dropped since the last line logged (and that count starts again at 0).
         */
        synchronized long take(long now, int burst, long windowNanos) {
            if (!open || now - windowStart >= windowNanos) {
                open = true;
                windowStart = now;
                used = 0;
            }
            if (used >= burst) {
                dropped++;
                return -1;
            }
            used++;
            long reported = dropped;
            dropped = 0;
            return reported;
        }
    }
}
