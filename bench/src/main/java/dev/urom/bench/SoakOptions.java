// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The command line of {@link SoakBench}: {@code [--minutes N | --seconds N] [--sample-seconds N]
 * [--worker-log-count N] [--daemon-java-opts "OPTIONS"] [--json FILE] [--csv FILE] [--worker-user USER]}.
 *
 * @param duration how long the cycles run ({@code --minutes}, a decimal number, or {@code --seconds})
 * @param sampleInterval how often the processes are sampled ({@code --sample-seconds}, default 10)
 * @param workerLogCount the daemon's {@code --worker-log-count} (default 64, its own default)
 * @param daemonJavaOptions the daemon JVM's options, as {@code urom daemon} runs it unless told otherwise
 * @param json where the samples and verdicts go as JSON, or null
 * @param csv where the samples go as CSV, or null
 * @param workerUser who the daemon's workers run as when the soak runs as root (null: the daemon's default)
 */
record SoakOptions(
        Duration duration,
        Duration sampleInterval,
        int workerLogCount,
        List<String> daemonJavaOptions,
        Path json,
        Path csv,
        String workerUser) {
    static final Duration DEFAULT_DURATION = Duration.ofMinutes(5);
    static final int DEFAULT_SAMPLE_SECONDS = 10;
    static final int DEFAULT_WORKER_LOG_COUNT = 64;
    /** What the distribution's launcher gives {@code urom daemon} (cli/src/main/dist/bin/urom). */
    static final List<String> DEFAULT_DAEMON_JAVA_OPTIONS =
            List.of("-XX:+UseSerialGC", "-Xmx64m", "-XX:MaxMetaspaceSize=128m");

    static final int MAX_MINUTES = 24 * 60;
    static final String USAGE =
            "usage: SoakBench [--minutes N (default 5) | --seconds N] [--sample-seconds N (default 10)] [--worker-log-count N"
                    + " (default 64)] [--daemon-java-opts \"OPTIONS\"] [--json FILE] [--csv FILE] [--worker-user USER]";

    /**
     * Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and
     * the reason, {@code --minutes} and {@code --seconds} together included.
     */
    static SoakOptions parse(List<String> args) {
        BenchCommand.Parsed line = command().parse(args);
        if (line.has("--minutes") && line.has("--seconds")) {
            throw new IllegalArgumentException("--minutes and --seconds exclude each other; " + USAGE);
        }
        Duration duration = line.has("--seconds")
                ? Duration.ofSeconds(line.<Integer>get("--seconds", 0))
                : line.get("--minutes", DEFAULT_DURATION);
        return new SoakOptions(
                duration,
                Duration.ofSeconds(line.get("--sample-seconds", DEFAULT_SAMPLE_SECONDS)),
                line.get("--worker-log-count", DEFAULT_WORKER_LOG_COUNT),
                line.get("--daemon-java-opts", DEFAULT_DAEMON_JAVA_OPTIONS),
                line.get("--json", null),
                line.get("--csv", null),
                line.get("--worker-user", null));
    }

    static BenchCommand command() {
        return new BenchCommand("SoakBench", USAGE)
                .option("--minutes", "N", value -> Duration.ofMillis(Math.round(minutes(value) * 60_000)))
                .count("--seconds", 1, MAX_MINUTES * 60)
                .count("--sample-seconds", 1, 600)
                .count("--worker-log-count", 0, 100_000)
                .option("--daemon-java-opts", "\"OPTIONS\"", SoakOptions::words)
                .path("--json", "FILE")
                .path("--csv", "FILE")
                .text("--worker-user", "USER");
    }

    /** The whitespace-separated words of {@code value}; none for a blank one. */
    private static List<String> words(String value) {
        return value.isBlank() ? List.of() : List.of(value.strip().split("\\s+"));
    }

    private static double minutes(String value) {
        try {
            double minutes = Double.parseDouble(value);
            if (minutes > 0 && minutes <= MAX_MINUTES) {
                return minutes;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(
                "--minutes '" + value + "' is not a number of minutes above 0 and at most " + MAX_MINUTES);
    }
}
