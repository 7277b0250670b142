// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.KeyFileRules;
import dev.urom.service.testkit.DaemonOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code bin/urom} in a plain login shell (only HOME, PATH and the temp dir the
 * launcher's JVM gets; no XDG_RUNTIME_DIR, no LANG) and in a desktop session (XDG_RUNTIME_DIR set):
 * {@code urom daemon} without {@code --listen} listens where {@code urom address} says, the client
 * commands find it there without {@code --service}, the daemon exits 0 when SIGTERM or SIGINT stops
 * it, and a client that then finds nobody names the address it tried.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DefaultAddressIT {
    private static final Path REPO =
            Path.of(System.getProperty("urom.repo", "..")).toAbsolutePath().normalize();
    private static final boolean ROOT = KeyFileRules.effectiveUid() == 0;

    @TempDir
    Path dir;

    @Test
    void inAPlainShellTheClientsFindTheDaemonsDefaultAddressAndSigtermExitsZero() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Map<String, String> env = plainShell();
        env.put("UROM_JAVA_OPTS", "-Djava.io.tmpdir=" + tmp);
        String expected = ROOT
                ? "unix:/run/urom/urom.sock"
                : "unix:"
                        + tmp.resolve("urom-" + System.getProperty("user.name")).resolve("urom/urom.sock");

        roundTrip(env, expected, "TERM");
    }

    @Test
    void underXdgRuntimeDirTheClientsFindTheDaemonsDefaultAddressAndSigintExitsZero() throws Exception {
        Path runtime = Files.createDirectories(dir.resolve("xdg"));
        Map<String, String> env = plainShell();
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        String expected = ROOT ? "unix:/run/urom/urom.sock" : "unix:" + runtime.resolve("urom/urom.sock");

        roundTrip(env, expected, "INT");
    }

    private void roundTrip(Map<String, String> env, String expected, String signal) throws Exception {
        Result address = urom(env, "address");
        assertThat(address.status).as(address.toString()).isZero();
        assertThat(address.out).isEqualTo(expected + "\n");

        List<String> daemonArgs = new ArrayList<>(
                List.of("daemon", "--log-dir", dir.resolve("log").toString()));
        if (ROOT) {
            daemonArgs.addAll(List.of("--worker-user", "root"));
        }
        ProcessBuilder builder = command(env, daemonArgs).redirectErrorStream(true);
        // A signal ignored by whoever started this test (a shell's background job ignores SIGINT) stays
        // ignored in its children: the daemon gets SIG's default disposition back, as in a terminal.
        builder.command().addAll(0, List.of("env", "--default-signal=" + signal));
        Process daemon = builder.start();
        DaemonOutput output = DaemonOutput.follow(daemon);
        try {
            String listening = output.awaitListening(Duration.ofSeconds(120));
            assertThat(listening).as("the daemon's output: %s", output).isNotNull();
            assertThat(listening).as("%s", output).startsWith("urom daemon: listening on " + expected + " (log: ");

            Result plugins = urom(env, "plugins");
            assertThat(plugins.status).as(plugins.toString()).isZero();
            assertThat(plugins.out).contains("worker_graph");
            Result loopback = urom(env, "loopback", "--value", "42");
            assertThat(loopback.status).as(loopback.toString()).isZero();
            Result workers = urom(env, "workers");
            assertThat(workers.status).as(workers.toString()).isZero();

            new ProcessBuilder("kill", "-" + signal, Long.toString(daemon.pid()))
                    .inheritIO()
                    .start()
                    .waitFor();
            assertThat(daemon.waitFor(60, TimeUnit.SECONDS))
                    .as("the daemon ended")
                    .isTrue();
            assertThat(daemon.exitValue())
                    .as("exit status after SIG%s: %s", signal, output)
                    .isZero();
        } finally {
            daemon.destroyForcibly();
        }

        Result nobody = urom(env, "workers");
        assertThat(nobody.status).isEqualTo(1);
        assertThat(nobody.err).startsWith("urom workers: cannot connect to " + expected + ": ");
        assertThat(nobody.err.lines()).hasSize(1);
    }

    /** HOME and Debian's default PATH (with this JVM's java first), nothing else: as su, cron or a bare ssh login give. */
    private static Map<String, String> plainShell() {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", System.getProperty("user.home"));
        Path java =
                Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent();
        env.put("PATH", java + ":/usr/local/bin:/usr/bin:/bin");
        return env;
    }

    private static ProcessBuilder command(Map<String, String> env, List<String> args) {
        List<String> command = new ArrayList<>(List.of(REPO.resolve("bin/urom").toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().clear();
        builder.environment().putAll(env);
        return builder;
    }

    private Result urom(Map<String, String> env, String... args) throws Exception {
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        Process process = command(env, List.of(args))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS))
                .as("urom %s ended", List.of(args))
                .isTrue();
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private record Result(int status, String out, String err) {}
}
