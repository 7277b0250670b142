// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The private daemon of the benchmarks whose hosts are MPI ranks ({@link CollBench}, {@link
 * OsuBench}): the distribution's {@code bin/urom daemon} under {@code taskset} on the worker CPUs
 * (its workers inherit the affinity), on a Unix socket in the run folder, and the service file
 * that names it for the ranks ({@code DOCA_UROM_SERVICE_FILE}). Stateless; the daemon belongs to
 * the {@link ChildProcesses} it is started in.
 */
final class MpiJobDaemon {
    private static final String LISTENING = "urom daemon: listening on ";
    private static final long START_S = 120;

    private MpiJobDaemon() {}

    /**
     * Starts the daemon of {@code dist} on {@code cpus} with the plugins of {@code pluginDir},
     * waits until it listens, and writes the service file naming it into {@code folder}; returns
     * the file.
     *
     * @param workerUser the daemon's {@code --worker-user}, or null ({@link #workerUser})
     * @param transport what the daemon passes its workers for UCX (unless its own environment says otherwise)
     * @throws IllegalStateException when the distribution has no {@code bin/urom} or the daemon
     *     does not come up
     */
    static Path start(
            Path dist,
            CpuList cpus,
            String workerUser,
            MpiTransport transport,
            Path folder,
            Path pluginDir,
            ChildProcesses children,
            Consumer<String> progress)
            throws IOException, InterruptedException {
        Path urom = dist.toAbsolutePath().resolve("bin").resolve("urom");
        if (!Files.isExecutable(urom)) {
            throw new IllegalStateException(urom + " is missing; build the distribution first or give --dist");
        }
        Path socket = folder.resolve("daemon.sock");
        List<String> command = new ArrayList<>(List.of(
                "taskset",
                "-c",
                cpus.toString(),
                urom.toString(),
                "daemon",
                "--listen",
                "unix:" + socket,
                "--log-dir",
                folder.resolve("log").toString()));
        String user = workerUser(workerUser);
        if (user != null) {
            command.addAll(List.of("--worker-user", user));
        }
        Path stderr = folder.resolve("daemon.stderr");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(stderr.toFile());
        builder.environment().put("UROM_PLUGIN_PATH", pluginDir.toString());
        builder.environment()
                .put(
                        "PATH",
                        Path.of(System.getProperty("java.home"), "bin")
                                + java.io.File.pathSeparator
                                + System.getenv().getOrDefault("PATH", ""));
        builder.environment()
                .put(
                        "UROM_DAEMON_JAVA_OPTS",
                        "-Djava.io.tmpdir=" + Files.createDirectories(folder.resolve("daemon-tmp")));
        transport.workerEnvironment().forEach(builder.environment()::putIfAbsent);
        Process daemon = children.start(builder);
        String rest = new ChildOutput(daemon, "the daemon", stderr).expect(LISTENING, Duration.ofSeconds(START_S));
        progress.accept("daemon pid " + daemon.pid() + " on CPUs " + cpus + ": " + rest.strip());
        Path serviceFile = folder.resolve("services");
        Files.writeString(
                serviceFile,
                "# written by the benchmark\n"
                        + CHostBaseline.serviceLine(CHostBaseline.hostname(), ServiceAddress.unix(socket)) + "\n",
                StandardCharsets.UTF_8);
        return serviceFile;
    }

    /**
     * The daemon's {@code --worker-user}: {@code given}, else {@code root} when the benchmark runs
     * as root: the workers read and write the ranks' buffers with cross-memory attach, which the
     * kernel allows on a root rank only to root (docs/security.md).
     */
    static String workerUser(String given) {
        return given != null ? given : isRoot() ? "root" : null;
    }

    static boolean isRoot() {
        return dev.urom.framework.security.UnixAccounts.effectiveUid() == 0;
    }
}
