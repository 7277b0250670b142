// SPDX-License-Identifier: Apache-2.0
package dev.urom.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.KeyFileRules;
import dev.urom.examples.DocExamples.Example;
import dev.urom.examples.DocExamples.Mode;
import dev.urom.examples.DocExamples.Step;
import dev.urom.service.testkit.DaemonOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every shell example of README.md and docs/*.md works as written, in the shell a new user has: each
 * runs in {@code env -i HOME=$HOME PATH=/usr/local/bin:/usr/bin:/bin} (no LANG, no XDG_RUNTIME_DIR,
 * no TMPDIR), from a folder that shows the repository's files (links to them, so what an example
 * writes stays out of the checkout), with a time limit; a block marked "run with a daemon" gets
 * {@code bin/urom daemon} started the same way, at its default address. A script must exit 0; a
 * transcript's commands must exit 0 and print what the page shows. A block marked "not run" must
 * give its reason; an unmarked block is run, so none is left unchecked.
 */
class DocExamplesIT {
    private static final Path REPO =
            Path.of(System.getProperty("urom.repo", "..")).toAbsolutePath().normalize();
    private static final String PLAIN_PATH = "/usr/local/bin:/usr/bin:/bin";
    private static final long LIMIT_SECONDS = 180;

    @TempDir
    Path work;

    @TestFactory
    Stream<DynamicTest> everyShellExampleRunsInAPlainShell() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Example example : examples()) {
            if (example.mode() != Mode.NOT_RUN) {
                tests.add(DynamicTest.dynamicTest(example.where(), () -> run(example)));
            }
        }
        return tests.stream();
    }

    @Test
    void exemptExamplesAreFewAndSayWhy() throws IOException {
        List<Example> all = examples();
        List<Example> exempt =
                all.stream().filter(e -> e.mode() == Mode.NOT_RUN).toList();
        assertThat(exempt).allSatisfy(e -> assertThat(e.reason()).as(e.where()).isNotBlank());
        assertThat(all.stream().filter(e -> e.mode() != Mode.NOT_RUN))
                .as("the examples run")
                .hasSizeGreaterThanOrEqualTo(8);
        assertThat(all.stream().filter(e -> e.page().equals("README.md") && e.mode() != Mode.NOT_RUN))
                .as("README's examples run")
                .hasSizeGreaterThanOrEqualTo(4);
    }

    private static List<Example> examples() throws IOException {
        List<Example> examples = new ArrayList<>();
        for (Path page : DocExamples.pages(REPO)) {
            examples.addAll(DocExamples.of(REPO.relativize(page).toString(), Files.readString(page)));
        }
        return examples;
    }

    private void run(Example example) throws Exception {
        Path cwd = Files.createTempDirectory(work, "example-");
        try (Stream<Path> entries = Files.list(REPO)) {
            for (Path entry : entries.toList()) {
                if (!entry.getFileName().toString().equals(".git")) {
                    Files.createSymbolicLink(cwd.resolve(entry.getFileName()), entry);
                }
            }
        }
        Process daemon = example.mode() == Mode.WITH_DAEMON ? startDaemon(cwd) : null;
        try {
            if (example.isTranscript()) {
                for (Step step : example.steps()) {
                    Ran ran = shell(cwd, step.command());
                    assertThat(ran.exit)
                            .as(
                                    "%s: `%s` exit status; stdout:%n%s%nstderr:%n%s",
                                    example.where(), step.command(), ran.out, ran.err)
                            .isZero();
                    assertThat(step.matches(ran.out.lines().toList()))
                            .as(
                                    "%s: `%s` printed%n%s%nwhere the page shows%n%s",
                                    example.where(), step.command(), ran.out, String.join("\n", step.expectedOutput()))
                            .isTrue();
                }
            } else {
                Ran ran = shell(cwd, example.text());
                assertThat(ran.exit)
                        .as("%s: exit status; stdout:%n%s%nstderr:%n%s", example.where(), ran.out, ran.err)
                        .isZero();
            }
        } finally {
            if (daemon != null) {
                stop(daemon);
            }
        }
    }

    private static ProcessBuilder plain(Path cwd, List<String> command) {
        ProcessBuilder builder = new ProcessBuilder(command).directory(cwd.toFile());
        Map<String, String> environment = builder.environment();
        environment.clear();
        environment.put("HOME", System.getProperty("user.home"));
        environment.put("PATH", PLAIN_PATH);
        return builder;
    }

    private static Ran shell(Path cwd, String script) throws Exception {
        Process process = plain(cwd, List.of("bash", "-e", "-c", script)).start();
        process.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(process, true));
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(process, false));
        if (!process.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError("`" + script + "` ran past " + LIMIT_SECONDS + " s");
        }
        return new Ran(process.exitValue(), out.get(30, TimeUnit.SECONDS), err.get(30, TimeUnit.SECONDS));
    }

    private static String readAll(Process process, boolean errors) {
        try {
            return new String(
                    (errors ? process.getErrorStream() : process.getInputStream()).readAllBytes(),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private Process startDaemon(Path cwd) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                "bin/urom", "daemon", "--log-dir", cwd.resolve("daemon-log").toString()));
        if (KeyFileRules.effectiveUid() == 0) {
            // Workers of their own uids may not read a checkout under /root, as in CI.
            command.addAll(List.of("--worker-user", "root"));
        }
        Process daemon = plain(cwd, command).redirectErrorStream(true).start();
        DaemonOutput said = DaemonOutput.follow(daemon);
        boolean up = said.awaitListening(Duration.ofSeconds(120)) != null;
        if (!up) {
            stop(daemon);
        }
        assertThat(up)
                .as("bin/urom daemon at its default address (is another daemon of this user running there?): %s", said)
                .isTrue();
        return daemon;
    }

    private static void stop(Process daemon) throws Exception {
        List<ProcessHandle> children = daemon.descendants().toList();
        daemon.destroy();
        if (!daemon.waitFor(60, TimeUnit.SECONDS)) {
            daemon.destroyForcibly();
        }
        for (ProcessHandle child : children) {
            child.onExit().get(60, TimeUnit.SECONDS);
        }
    }

    private record Ran(int exit, String out, String err) {}
}
