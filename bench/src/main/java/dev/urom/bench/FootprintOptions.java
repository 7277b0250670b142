// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@link FootprintBench}: {@code [--workers N] [--starts N] [--dist DIR]
 * [--java-home DIR] [--worker-jvm-option OPTION]... [--hold-seconds N] [--worker-user USER] [--json FILE]}.
 *
 * @param workers how many workers are requested at once (default 64, the daemon's default most)
 * @param starts how many single starts give the start p50 (default 10)
 * @param dist the distribution whose {@code bin/urom daemon} runs (default: system property {@value
 *     #DIST_PROPERTY}, else {@code cli/target/urom} of the first directory at or above the working
 *     directory that has one)
 * @param javaHome the JDK the daemon, its workers and the bare-JVM floor run on (default this JVM's)
 * @param workerJvmOptions the daemon's {@code --worker-jvm-option}s, in order
 * @param holdSeconds how long the workers requested at once stay up once measured, for a look at them
 *     ({@code /proc/PID/smaps}, {@code jcmd}); default 0
 * @param workerUser the daemon's {@code --worker-user} when the bench runs as root (null: the daemon's
 *     default); the workers must be able to read the distribution
 * @param json where the figures go as JSON, or null
 */
record FootprintOptions(int workers, int starts, Path dist, Path javaHome, List<String> workerJvmOptions, int holdSeconds, String workerUser,
        Path json) {
    static final int DEFAULT_WORKERS = 64;
    static final int DEFAULT_STARTS = 10;
    static final String DIST_PROPERTY = "urom.bench.dist";
    private static final Path DIST = Path.of("cli", "target", "urom");
    static final String USAGE = "usage: FootprintBench [--workers N (default 64)] [--starts N (default 10)] [--dist DIR (default cli/target/urom)]"
            + " [--java-home DIR] [--worker-jvm-option OPTION]... [--hold-seconds N] [--worker-user USER] [--json FILE]";

    /** Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and the reason. */
    static FootprintOptions parse(List<String> args) {
        int[] counts = {DEFAULT_WORKERS, DEFAULT_STARTS, 0};
        Path[] paths = {defaultDist(), Path.of(System.getProperty("java.home")), null};
        String[] workerUser = {null};
        List<String> workerJvmOptions = new ArrayList<>();
        OptionPairs.parse(args, List.of("--workers", "--starts", "--dist", "--java-home", "--worker-jvm-option", "--hold-seconds",
                "--worker-user", "--json"), USAGE, (option, value) -> {
            switch (option) {
                case "--workers" -> counts[0] = OptionPairs.count(option, value, 1, 1024);
                case "--starts" -> counts[1] = OptionPairs.count(option, value, 1, 1000);
                case "--dist" -> paths[0] = Path.of(value);
                case "--java-home" -> paths[1] = Path.of(value);
                case "--worker-jvm-option" -> workerJvmOptions.add(value);
                case "--hold-seconds" -> counts[2] = OptionPairs.count(option, value, 0, 3600);
                case "--worker-user" -> workerUser[0] = value;
                default -> paths[2] = Path.of(value);
            }
        });
        if (!Files.isExecutable(paths[0].resolve("bin").resolve("urom"))) {
            throw new IllegalArgumentException("--dist " + paths[0] + " has no bin/urom; build it first: mvn -B -q package -DskipTests");
        }
        if (!Files.isExecutable(paths[1].resolve("bin").resolve("java"))) {
            throw new IllegalArgumentException("--java-home " + paths[1] + " has no bin/java");
        }
        return new FootprintOptions(counts[0], counts[1], paths[0], paths[1], List.copyOf(workerJvmOptions), counts[2], workerUser[0],
                paths[2]);
    }

    /** The distribution a benchmark runs when not told: system property {@value #DIST_PROPERTY}, else the first cli/target/urom at or above the working directory. */
    static Path defaultDist() {
        String configured = System.getProperty(DIST_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isExecutable(dir.resolve(DIST).resolve("bin").resolve("urom"))) {
                return dir.resolve(DIST);
            }
        }
        return DIST;
    }
}
