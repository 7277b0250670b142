// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many ended workers' logs the daemon keeps, and for how long: of the workers that have ended,
 * the logs ({@code urom_worker_<pid>_dev.log}, its rolled files, {@code urom_worker_<pid>_crash.log})
 * of at most {@code maxEndedWorkers} are kept, the most recently written first, and none whose newest
 * file is older than {@code maxAge}. A running worker's log is always kept.
 *
 * <p>Validated in the constructor: a refusal is an {@link IllegalArgumentException} with one line
 * naming the {@code urom daemon} option and the limit. Immutable.
 *
 * @param maxEndedWorkers how many ended workers' logs are kept ({@code --worker-log-count}); 0 keeps none
 * @param maxAge how long an ended worker's log is kept after its last write ({@code --worker-log-max-age})
 */
public record WorkerLogRetention(int maxEndedWorkers, Duration maxAge) {
    public static final int DEFAULT_MAX_ENDED_WORKERS = 64;
    public static final int MAX_MAX_ENDED_WORKERS = 100_000;
    public static final Duration DEFAULT_MAX_AGE = Duration.ofDays(7);
    /** 64 ended workers' logs, for 7 days. */
    public static final WorkerLogRetention DEFAULT = new WorkerLogRetention(DEFAULT_MAX_ENDED_WORKERS, DEFAULT_MAX_AGE);

    private static final Pattern AGE = Pattern.compile("([0-9]{1,9})([smhd]?)");

    public WorkerLogRetention {
        if (maxEndedWorkers < 0 || maxEndedWorkers > MAX_MAX_ENDED_WORKERS) {
            throw new IllegalArgumentException(
                    "--worker-log-count " + maxEndedWorkers + " is not between 0 and " + MAX_MAX_ENDED_WORKERS);
        }
        if (maxAge == null) {
            throw new IllegalArgumentException("--worker-log-max-age is missing");
        }
        if (maxAge.isNegative() || maxAge.isZero()) {
            throw new IllegalArgumentException("--worker-log-max-age " + maxAge.toSeconds() + "s is not positive");
        }
    }

    /**
     * Reads a {@code --worker-log-max-age} value: a whole number of seconds, or one followed by
     * {@code s}, {@code m}, {@code h} or {@code d} ({@code 90}, {@code 30m}, {@code 12h}, {@code 7d}).
     *
     * @throws IllegalArgumentException with one line naming the option and the value
     */
    public static Duration parseAge(String text) {
        Matcher matcher = AGE.matcher(text == null ? "" : text.strip().toLowerCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new IllegalArgumentException(
                    "--worker-log-max-age '" + text + "' is not a duration (N seconds, or Ns, Nm, Nh, Nd)");
        }
        long amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            case "d" -> Duration.ofDays(amount);
            default -> Duration.ofSeconds(amount);
        };
    }
}
