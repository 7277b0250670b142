// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.security.UnixAccount;
import dev.urom.wire.ServiceAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A daemon ({@link OsChildDaemonMain}) in a child JVM run from an {@link OsTestbed}'s staged class
 * path, optionally under another umask ({@code sh -c 'umask U; exec ...'}) and as another user
 * ({@code setpriv}), with exactly the environment the test gives. Its first line on stdout says
 * whether it started ({@link #ready()}, {@link #failure()}); its stderr goes to a file.
 *
 * <p>{@link #close()} ends its stdin (the daemon then stops its workers and exits) and waits for it
 * within a deadline, killing it and its descendants when it does not go. Not thread-safe.
 */
final class OsChildDaemon implements AutoCloseable {
    static final Duration PATIENCE = Duration.ofSeconds(60);

    private final Process process;
    private final Path home;
    private final String firstLine;

    private OsChildDaemon(Process process, Path home, String firstLine) {
        this.process = process;
        this.home = home;
        this.firstLine = firstLine;
    }

    /** What to start. {@link #start} makes the daemon's own directories in {@code home}. */
    static final class Spec {
        private final OsTestbed testbed;
        private final Path home;
        private final List<String> options = new ArrayList<>();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private String umask;
        private UnixAccount user;

        Spec(OsTestbed testbed, Path home) {
            this.testbed = testbed;
            this.home = home;
            environment.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        }

        /** Daemon options ({@link OsChildDaemonMain}'s); {@code --log-dir} is added. */
        Spec options(String... words) {
            options.addAll(List.of(words));
            return this;
        }

        /** Adds {@code name=value} to the daemon's environment (which otherwise holds only PATH). */
        Spec env(String name, String value) {
            environment.put(name, value);
            return this;
        }

        /** Starts the daemon under {@code umask} (octal text, as the shell takes it). */
        Spec umask(String value) {
            this.umask = value;
            return this;
        }

        /** Starts the daemon as {@code account} (setpriv, no supplementary groups); the test must be root. */
        Spec user(UnixAccount account) {
            this.user = account;
            return this;
        }

        /** The daemon's {@code java.io.tmpdir}, to prepare things in before it starts. */
        Path tmpdir() {
            return home.resolve("tmp");
        }

        OsChildDaemon start() {
            return OsChildDaemon.start(this);
        }
    }

    private static OsChildDaemon start(Spec spec) {
        try {
            Path tmp = Files.createDirectories(spec.tmpdir());
            Path log = Files.createDirectories(spec.home.resolve("log"));
            for (Path dir : List.of(spec.home, tmp, log)) {
                OsTestbed.setMode(dir, "rwxr-xr-x");
            }
            if (spec.user != null) {
                OsTestbed.chown(tmp, spec.user.uid(), spec.user.gid());
                OsTestbed.chown(log, spec.user.uid(), spec.user.gid());
            }
            List<String> java = new ArrayList<>(spec.testbed.javaCommand(
                    OsChildDaemonMain.class, List.of("-Djava.io.tmpdir=" + tmp), "--log-dir", log.toString()));
            java.addAll(spec.options);
            List<String> command = spec.user == null ? java : OsTestbed.as(spec.user, List.of(), java);
            if (spec.umask != null) {
                List<String> shell =
                        new ArrayList<>(List.of("sh", "-c", "umask " + spec.umask + " && exec \"$@\"", "sh"));
                shell.addAll(command);
                command = shell;
            }
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(spec.home.toFile())
                    .redirectError(spec.home.resolve("daemon.stderr").toFile());
            builder.environment().clear();
            builder.environment().putAll(spec.environment);
            Process process = builder.start();
            String line = firstLine(process, "the child daemon");
            return new OsChildDaemon(process, spec.home, line);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the child daemon in " + spec.home + ": " + e.getMessage(), e);
        }
    }

    /**
     * The first line {@code process} (called {@code what} in a failure) writes on stdout, or null
     * when it closes stdout first; a process that says nothing within {@link #PATIENCE} is killed
     * and fails the test.
     */
    static String firstLine(Process process, String what) {
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return null;
            }
        });
        try {
            return line.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            process.destroyForcibly();
            throw new AssertionError(what + " said nothing within " + PATIENCE.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            process.destroyForcibly();
            throw new AssertionError(e.getCause());
        }
    }

    /** Whether the daemon serves (its first line was READY). */
    boolean ready() {
        return firstLine != null && firstLine.startsWith("READY ");
    }

    /** The address it serves on; fails the test when it did not start. */
    ServiceAddress address() {
        assertThat(firstLine)
                .as("the child daemon's first line; its stderr: %s", stderr())
                .startsWith("READY ");
        return ServiceAddress.parse(firstLine.substring("READY ".length()));
    }

    /**
     * Waits for a daemon that did not start to exit, and returns its whole stdout: {@code FAILED
     * <reason>} and its end of line when it refused as it should, in one line.
     */
    String failure() throws InterruptedException {
        assertThat(process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .as("the refused daemon exits")
                .isTrue();
        String rest;
        try {
            rest = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(process.exitValue())
                .as("exit status of the refused daemon; its stdout: %s %s", firstLine, rest)
                .isEqualTo(2);
        return firstLine + "\n" + rest;
    }

    /** The daemon's log file. */
    Path logFile() {
        return home.resolve("log").resolve("urom_daemon_dev.log");
    }

    /** The daemon's temporary directory (its {@code java.io.tmpdir}, where its workers' directories are). */
    Path tmpdir() {
        return home.resolve("tmp");
    }

    String stderr() {
        try {
            return Files.readString(home.resolve("daemon.stderr"));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    /** The daemon's JVM. */
    ProcessHandle handle() {
        return process.toHandle();
    }

    /** The worker process with id {@code workerId}: the daemon's child that runs WorkerMain with that id. */
    ProcessHandle worker(long workerId) {
        List<ProcessHandle> found =
                process.children().filter(p -> isWorker(p, workerId)).toList();
        assertThat(found)
                .as("worker processes with id %s", Long.toUnsignedString(workerId))
                .hasSize(1);
        return found.get(0);
    }

    /** The daemon's worker processes now. */
    List<ProcessHandle> workers() {
        return process.children()
                .filter(p -> OsProcessFacts.of(p).commandLine().contains(DaemonConfig.DEFAULT_WORKER_MAIN_CLASS))
                .toList();
    }

    private static boolean isWorker(ProcessHandle process, long workerId) {
        List<String> words = OsProcessFacts.of(process).commandLine();
        int id = words.indexOf("--worker-id");
        return words.contains(DaemonConfig.DEFAULT_WORKER_MAIN_CLASS)
                && id >= 0
                && id + 1 < words.size()
                && words.get(id + 1).equals(Long.toUnsignedString(workerId));
    }

    @Override
    public void close() throws InterruptedException {
        List<ProcessHandle> descendants = process.descendants().toList();
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // the daemon is gone already
        }
        if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
        for (ProcessHandle left : descendants) {
            left.destroyForcibly();
            left.onExit()
                    .completeOnTimeout(left, PATIENCE.toSeconds(), TimeUnit.SECONDS)
                    .join();
        }
    }
}
