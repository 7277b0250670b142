// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Files;
import java.nio.file.Path;
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
record FootprintOptions(
        int workers,
        int starts,
        Path dist,
        Path javaHome,
        List<String> workerJvmOptions,
        int holdSeconds,
        String workerUser,
        Path json) {
    static final int DEFAULT_WORKERS = 64;
    static final int DEFAULT_STARTS = 10;
    static final String DIST_PROPERTY = "urom.bench.dist";
    private static final Path DIST = Path.of("cli", "target", "urom");
    static final String USAGE =
            "usage: FootprintBench [--workers N (default 64)] [--starts N (default 10)] [--dist DIR (default cli/target/urom)]"
                    + " [--java-home DIR] [--worker-jvm-option OPTION]... [--hold-seconds N] [--worker-user USER] [--json FILE]";

    /** Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and the reason. */
    static FootprintOptions parse(List<String> args) {
        BenchCommand.Parsed line = command().parse(args);
        Path dist = line.get("--dist", defaultDist());
        Path javaHome = line.get("--java-home", Path.of(System.getProperty("java.home")));
        if (!Files.isExecutable(dist.resolve("bin").resolve("urom"))) {
            throw new IllegalArgumentException(
                    "--dist " + dist + " has no bin/urom; build it first: mvn -B -q package -DskipTests");
        }
        if (!Files.isExecutable(javaHome.resolve("bin").resolve("java"))) {
            throw new IllegalArgumentException("--java-home " + javaHome + " has no bin/java");
        }
        return new FootprintOptions(
                line.get("--workers", DEFAULT_WORKERS),
                line.get("--starts", DEFAULT_STARTS),
                dist,
                javaHome,
                line.all("--worker-jvm-option"),
                line.get("--hold-seconds", 0),
                line.get("--worker-user", null),
                line.get("--json", null));
    }

    static BenchCommand command() {
        return new BenchCommand("FootprintBench", USAGE)
                .count("--workers", 1, 1024)
                .count("--starts", 1, 1000)
                .path("--dist", "DIR")
                .path("--java-home", "DIR")
                .repeatable("--worker-jvm-option", "OPTION")
                .count("--hold-seconds", 0, 3600)
                .text("--worker-user", "USER")
                .path("--json", "FILE");
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
