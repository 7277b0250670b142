// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
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
record SoakOptions(Duration duration, Duration sampleInterval, int workerLogCount, List<String> daemonJavaOptions, Path json, Path csv,
        String workerUser) {
    static final Duration DEFAULT_DURATION = Duration.ofMinutes(5);
    static final int DEFAULT_SAMPLE_SECONDS = 10;
    static final int DEFAULT_WORKER_LOG_COUNT = 64;
    /** What the distribution's launcher gives {@code urom daemon} (cli/src/main/dist/bin/urom). */
    static final List<String> DEFAULT_DAEMON_JAVA_OPTIONS = List.of("-XX:+UseSerialGC", "-Xmx64m", "-XX:MaxMetaspaceSize=128m");
    static final int MAX_MINUTES = 24 * 60;
    static final String USAGE = "usage: SoakBench [--minutes N (default 5) | --seconds N] [--sample-seconds N (default 10)] [--worker-log-count N"
            + " (default 64)] [--daemon-java-opts \"OPTIONS\"] [--json FILE] [--csv FILE] [--worker-user USER]";

    /** Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and the reason. */
    static SoakOptions parse(List<String> args) {
        Duration[] duration = {DEFAULT_DURATION};
        int[] sampleSeconds = {DEFAULT_SAMPLE_SECONDS};
        int[] workerLogCount = {DEFAULT_WORKER_LOG_COUNT};
        List<List<String>> javaOptions = List.of(new java.util.ArrayList<>(DEFAULT_DAEMON_JAVA_OPTIONS));
        Path[] files = {null, null};
        String[] workerUser = {null};
        OptionPairs.parse(args, List.of("--minutes", "--seconds", "--sample-seconds", "--worker-log-count", "--daemon-java-opts", "--json", "--csv",
                "--worker-user"), USAGE, (option, value) -> {
                    switch (option) {
                        case "--minutes" -> duration[0] = Duration.ofMillis(Math.round(minutes(value) * 60_000));
                        case "--seconds" -> duration[0] = Duration.ofSeconds(OptionPairs.count(option, value, 1, MAX_MINUTES * 60));
                        case "--sample-seconds" -> sampleSeconds[0] = OptionPairs.count(option, value, 1, 600);
                        case "--worker-log-count" -> workerLogCount[0] = OptionPairs.count(option, value, 0, 100_000);
                        case "--daemon-java-opts" -> {
                            javaOptions.get(0).clear();
                            if (!value.isBlank()) {
                                javaOptions.get(0).addAll(Arrays.asList(value.strip().split("\\s+")));
                            }
                        }
                        case "--json" -> files[0] = Path.of(value);
                        case "--csv" -> files[1] = Path.of(value);
                        default -> workerUser[0] = value;
                    }
                });
        return new SoakOptions(duration[0], Duration.ofSeconds(sampleSeconds[0]), workerLogCount[0], List.copyOf(javaOptions.get(0)), files[0],
                files[1], workerUser[0]);
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
        throw new IllegalArgumentException("--minutes '" + value + "' is not a number of minutes above 0 and at most " + MAX_MINUTES);
    }
}
