// SPDX-License-Identifier: Apache-2.0
package dev.urom.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.KeyFileRules;
import dev.urom.service.testkit.DaemonOutput;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation's host example (docs/host-api.md), run as a user would: {@code bin/urom daemon} from the distribution on a
 * socket in a temporary directory, and {@link GraphLoopback} in a JVM of its own whose class path is
 * the example's classes and the three jars of the distribution's {@code lib/} that {@code urom-host}
 * brings (urom-host, urom-wire and urom-spi), nothing else.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GraphLoopbackIT {
    private static final Path REPO = Path.of(System.getProperty("urom.repo", ".."));
    private static final Path LIB = REPO.resolve("cli/target/urom/lib");

    @TempDir
    Path dir;

    private Process daemon;

    @BeforeEach
    void startDaemon() throws Exception {
        daemon = daemon(List.of("--listen", address()), Map.of());
    }

    /** {@code bin/urom daemon ARGS} with the environment's variables changed as {@code env} says (a null value removes one). */
    private Process daemon(List<String> args, Map<String, String> env) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                REPO.resolve("bin/urom").toString(),
                "daemon",
                "--log-dir",
                dir.resolve("log").toString()));
        command.addAll(args);
        if (KeyFileRules.effectiveUid() == 0) {
            // The build's tree may lie where the default worker user cannot read it (CI clones under /root).
            command.addAll(List.of("--worker-user", "root"));
        }
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeAll(List.of("UROM_PLUGIN_PATH", "UROM_HOME", "SERVICE_ARGS"));
        apply(env, builder);
        Process started = builder.start();
        DaemonOutput output = DaemonOutput.follow(started);
        assertThat(output.awaitListening(Duration.ofSeconds(120)) != null)
                .as("daemon output: %s", output)
                .isTrue();
        return started;
    }

    private static void apply(Map<String, String> env, ProcessBuilder builder) {
        env.forEach((name, value) -> {
            if (value == null) {
                builder.environment().remove(name);
            } else {
                builder.environment().put(name, value);
            }
        });
    }

    @AfterEach
    void stopDaemon() throws Exception {
        stop(daemon);
    }

    private static void stop(Process daemon) throws Exception {
        if (daemon != null) {
            List<ProcessHandle> children = daemon.descendants().toList();
            daemon.destroy();
            assertThat(daemon.waitFor(60, TimeUnit.SECONDS)).as("daemon ended").isTrue();
            for (ProcessHandle child : children) {
                child.onExit().get(60, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void theExampleLoopsItsValueBackThroughAWorkerProcessWithOnlyUromHostOnItsClassPath() throws Exception {
        Result result = example(address(), "42");
        assertThat(result.exit).as(result.toString()).isZero();
        assertThat(result.out).matches("loopback 42 -> 42 via worker \\d+\\n");

        Result unsigned = example(address(), "18446744073709551615");
        assertThat(unsigned.out)
                .as(unsigned.toString())
                .startsWith("loopback 18446744073709551615 -> 18446744073709551615 via worker ");
    }

    @Test
    void withoutADaemonTheExampleSaysInOneLineWhereItCouldNotConnect() throws Exception {
        String nowhere = "unix:" + dir.resolve("nobody-listens.sock");
        Result result = example(nowhere);
        assertThat(result.exit).isEqualTo(1);
        assertThat(result.out).isEmpty();
        assertThat(result.err)
                .startsWith("graph-loopback: cannot connect to " + nowhere)
                .doesNotContain("\tat ");
        assertThat(result.err.lines()).hasSize(1);
    }

    @Test
    void withoutAnAddressTheExampleFindsADaemonStartedWithoutListenInAPlainShell() throws Exception {
        // A plain login shell: no XDG_RUNTIME_DIR; the daemon's launcher and the example's JVM share a temp dir.
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Map<String, String> env = new HashMap<>();
        env.put("XDG_RUNTIME_DIR", null);
        env.put("KUBERNETES_SERVICE_HOST", null);
        env.put("UROM_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp);
        Process plain = daemon(List.of("--log-dir", dir.resolve("log-plain").toString()), env);
        try {
            Result result = example(env, List.of("-Djava.io.tmpdir=" + tmp));
            assertThat(result.exit).as(result.toString()).isZero();
            assertThat(result.out).matches("loopback 42 -> 42 via worker \\d+\\n");
        } finally {
            stop(plain);
        }
    }

    @Test
    void withoutAnAddressTheExampleFindsADaemonStartedWithoutListenUnderXdgRuntimeDir() throws Exception {
        Path runtime = Files.createDirectories(dir.resolve("xdg"));
        Map<String, String> env = new HashMap<>();
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        env.put("KUBERNETES_SERVICE_HOST", null);
        Process desktop = daemon(List.of("--log-dir", dir.resolve("log-xdg").toString()), env);
        try {
            Result result = example(env, List.of());
            assertThat(result.exit).as(result.toString()).isZero();
            assertThat(result.out).matches("loopback 42 -> 42 via worker \\d+\\n");
        } finally {
            stop(desktop);
        }
    }

    private String address() {
        return "unix:" + dir.resolve("urom.sock");
    }

    private Result example(String... args) throws Exception {
        return example(Map.of(), List.of(), args);
    }

    private Result example(Map<String, String> env, List<String> jvmOptions, String... args) throws Exception {
        List<String> command =
                new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-cp",
                String.join(
                        File.pathSeparator,
                        System.getProperty("urom.examples.classes"),
                        onlyJar("urom-host-"),
                        onlyJar("urom-wire-"),
                        onlyJar("urom-spi-")),
                GraphLoopback.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(dir.resolve("out").toFile())
                .redirectError(dir.resolve("err").toFile());
        apply(env, builder);
        Process p = builder.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("example ended").isTrue();
        return new Result(p.exitValue(), Files.readString(dir.resolve("out")), Files.readString(dir.resolve("err")));
    }

    private static String onlyJar(String prefix) throws IOException {
        try (Stream<Path> jars = Files.list(LIB)) {
            List<Path> found = jars.filter(p -> p.getFileName().toString().startsWith(prefix)
                            && p.toString().endsWith(".jar"))
                    .toList();
            assertThat(found).as("%s*.jar in %s", prefix, LIB).hasSize(1);
            return found.get(0).toString();
        }
    }

    private record Result(int exit, String out, String err) {}
}
