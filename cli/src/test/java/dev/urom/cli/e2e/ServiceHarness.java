// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.NativeArtifacts;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.testkit.DaemonOutput;
import dev.urom.service.testkit.TestWorkers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real daemon for end-to-end tests: {@code urom daemon} started as its own process (the test
 * JVM's java and class path) on a Unix socket in a temporary directory, with a plugin directory
 * holding by default both graph plugins and the service fixture ({@code
 * cli/src/test/c/service_fixture.c}, compiled here), or the one the caller gives. {@link #close()} ends the daemon and checks that no worker outlives it.
 */
final class ServiceHarness implements AutoCloseable {
    static final Duration LIMIT = Duration.ofSeconds(60);

    final Path dir;
    final Path plugins;
    final Path logDir;
    final String address;
    final Process daemon;
    private final DaemonOutput output;

    private ServiceHarness(Path dir, Path plugins, Path logDir, String address, Process daemon) {
        this.dir = dir;
        this.plugins = plugins;
        this.logDir = logDir;
        this.address = address;
        this.daemon = daemon;
        this.output = DaemonOutput.follow(daemon);
    }

    /** Plugin folder with worker_graph.so, worker_graph_java.jar and service_fixture.so. */
    static Path pluginFolder(Path dir) throws IOException {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        Path build = Path.of(System.getProperty("urom.graph.build", "../plugins/graph/target"));
        Files.copy(build.resolve("worker_graph.so"), plugins.resolve("worker_graph.so"));
        Files.copy(build.resolve("worker_graph_java.jar"), plugins.resolve("worker_graph_java.jar"));
        NativeFixtures.compilePlugin(
                plugins,
                "service_fixture.so",
                Files.readString(Path.of("src/test/c/service_fixture.c")),
                "-Wextra",
                "-Werror");
        return plugins;
    }

    /** Starts {@code urom daemon EXTRA_ARGS...} with the given extra environment. */
    static ServiceHarness start(Path dir, Map<String, String> env, String... extraArgs) throws Exception {
        return start(dir, pluginFolder(dir), env, extraArgs);
    }

    /** Plugin folder with only worker_sandbox.so and worker_sandbox_java.jar. */
    static Path sandboxPluginFolder(Path dir) throws IOException {
        Path plugins = Files.createDirectories(dir.resolve("sandbox-plugins"));
        Path build = Path.of(System.getProperty("urom.sandbox.build", "../plugins/sandbox/target"));
        Files.copy(build.resolve("worker_sandbox.so"), plugins.resolve("worker_sandbox.so"));
        Files.copy(build.resolve("worker_sandbox_java.jar"), plugins.resolve("worker_sandbox_java.jar"));
        return plugins;
    }

    /** Starts {@code urom daemon EXTRA_ARGS...} serving the plugins in {@code plugins}. */
    static ServiceHarness start(Path dir, Path plugins, Map<String, String> env, String... extraArgs) throws Exception {
        Path logDir = dir.resolve("log");
        String address = "unix:" + dir.resolve("urom.sock");
        List<String> command = daemonCommand(List.of(), "--listen", address, "--log-dir", logDir.toString());
        command.addAll(List.of(extraArgs));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("UROM_PLUGIN_PATH", plugins.toString());
        builder.environment().remove("SERVICE_ARGS");
        builder.environment().putAll(env);
        Process daemon = builder.start();
        ServiceHarness harness = new ServiceHarness(dir, plugins, logDir, address, daemon);
        harness.awaitListening();
        return harness;
    }

    /**
     * {@code urom daemon ARGS...} in a JVM of its own (this JVM's java and class path, and {@code
     * jvmOptions}), with the workers' user of the tests ({@link TestWorkers}).
     */
    static List<String> daemonCommand(List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        // the test JVM's native files, as bin/urom names the distribution's: the daemon extracts none of its own
        command.add("-D" + NativeArtifacts.NATIVE_DIR_PROPERTY + "="
                + NativeArtifacts.launcherExecutable().getParent());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.urom.cli.Main", "daemon"));
        command.addAll(List.of(args));
        command.addAll(List.of(TestWorkers.options()));
        return command;
    }

    private void awaitListening() throws Exception {
        String line = output.awaitListening(LIMIT);
        assertThat(line).as("daemon output: %s", output()).isNotNull();
    }

    List<String> output() {
        return output.lines();
    }

    /** The daemon's worker processes now. */
    List<ProcessHandle> workers() {
        return daemon.toHandle().children().toList();
    }

    /** Where the daemon has worker {@code id} listen (the daemon's run directory beside its socket). */
    String workerAddress(long id) throws IOException {
        Path runDir = Path.of(address.substring("unix:".length()) + ".workers");
        try (var sockets = Files.newDirectoryStream(runDir, "worker-" + Long.toUnsignedString(id) + "-*.sock")) {
            List<Path> found = new ArrayList<>();
            sockets.forEach(found::add);
            assertThat(found).as("the socket of worker %d in %s", id, runDir).hasSize(1);
            return "unix:" + found.get(0);
        }
    }

    Path daemonLog() {
        return logDir.resolve("urom_daemon_dev.log");
    }

    /**
     * The process's command line from /proc, arguments separated by spaces: {@code
     * ProcessHandle.Info} gives none when it is longer than a page, as a test JVM's class path
     * makes a worker's.
     */
    static String commandLine(ProcessHandle process) throws IOException {
        return Files.readString(Path.of("/proc", Long.toString(process.pid()), "cmdline"))
                .replace('\0', ' ')
                .strip();
    }

    /** Waits for every one of these processes to end; fails naming the ones still alive. */
    static void awaitExit(List<ProcessHandle> processes) throws Exception {
        for (ProcessHandle process : processes) {
            try {
                process.onExit().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                process.destroyForcibly();
                throw new AssertionError("process " + process.pid() + " "
                        + process.info().commandLine().orElse("") + " outlived the limit of " + LIMIT.toSeconds()
                        + " s");
            }
        }
    }

    @Override
    public void close() throws Exception {
        List<ProcessHandle> workers = daemon.isAlive() ? workers() : List.of();
        daemon.destroy();
        if (!daemon.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            daemon.destroyForcibly();
        }
        awaitExit(workers);
    }
}
