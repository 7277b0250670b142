// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.auth.AuthKey;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code urom ping-pong --ranks N --message TEXT [--plugin worker_sandbox|worker_sandbox_java|mixed]}:
 * starts N rank processes (think MPI ranks), each with its own sandbox worker, in one domain formed
 * through a TCP rendezvous on loopback, and passes the message around the ring. Without {@code
 * --service} a private daemon serves them. {@code mixed} serves even ranks with the C plugin and odd
 * ranks with the Java one.
 *
 * <p>Each rank's stdout (its result lines) is printed once all have finished; its stderr (log
 * warnings, errors) is shown, on stderr, only for a rank that failed.
 */
@Command(name = "ping-pong", description = "Ping-pong between rank processes through their sandbox workers.")
final class PingPongCommand implements Callable<Integer> {
    static final String NATIVE_SANDBOX = "worker_sandbox";
    static final String JAVA_SANDBOX = "worker_sandbox_java";
    private static final long RANK_LIMIT_SECONDS = 120;

    @Spec
    CommandSpec spec;

    @Option(
            names = "--ranks",
            defaultValue = "2",
            paramLabel = "N",
            description = "Number of rank processes, at least 2 (default: ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--message", required = true, paramLabel = "TEXT", description = "What the ranks pass around.")
    String message;

    @Option(
            names = "--plugin",
            defaultValue = NATIVE_SANDBOX,
            paramLabel = "NAME",
            description = "worker_sandbox (C), worker_sandbox_java, or mixed (default: ${DEFAULT-VALUE}).")
    String plugin;

    @Option(names = "--service", paramLabel = "ADDR", description = "Use this daemon instead of a private one.")
    String service;

    @Option(
            names = "--rounds",
            defaultValue = "100",
            paramLabel = "N",
            description = "Round trips rank 0 times (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--auth-key-file",
            paramLabel = "FILE",
            description = "With --service: the key the ranks prove (default: the file UROM_AUTH_KEY_FILE names).")
    Path authKeyFile;

    @Option(
            names = "--worker-user",
            paramLabel = "USER",
            description =
                    "Without --service, run as root: the user of the private daemon's workers (default: a uid of their own, from the daemon's --worker-uid-range).")
    String workerUser;

    @Option(
            names = "--worker-env",
            paramLabel = "NAME=VALUE",
            description = "Put NAME=VALUE in every rank's worker environment, e.g. UCX_TLS=tcp (repeatable).")
    List<String> workerEnv = new ArrayList<>();

    /** Whether the ranks talk to a private daemon of this process (then without a key, whatever the environment says). */
    private boolean privateDaemon;

    private final Environment environment;

    PingPongCommand(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Integer call() throws Exception {
        if (ranks < 2) {
            throw CliFailure.usage("--ranks " + ranks + ": the ping-pong needs at least 2 ranks");
        }
        if (!List.of(NATIVE_SANDBOX, JAVA_SANDBOX, "mixed").contains(plugin)) {
            throw CliFailure.usage("--plugin " + plugin + ": use worker_sandbox, worker_sandbox_java or mixed");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (service != null) {
            return run(service, out);
        }
        if (authKeyFile != null) {
            throw CliFailure.usage("--auth-key-file goes with --service: the private daemon takes hosts without keys");
        }
        try (PrivateDaemon daemon = PrivateDaemon.start(environment.requirePluginPath(), workerUser)) {
            privateDaemon = true;
            return run(daemon.address(), out);
        }
    }

    /** A ping-pong of {@code ranks} processes against the private daemon at {@code address}, for {@code urom demo}. */
    static int runPrivate(String address, int ranks, String message, String plugin, int rounds, PrintWriter out)
            throws IOException, InterruptedException {
        PingPongCommand command = new PingPongCommand(null);
        command.ranks = ranks;
        command.message = message;
        command.plugin = plugin;
        command.rounds = rounds;
        command.privateDaemon = true;
        return command.run(address, out);
    }

    private int run(String address, PrintWriter out) throws IOException, InterruptedException {
        out.printf("ping-pong: %d ranks, message '%s', plugin %s, service %s%n", ranks, message, plugin, address);
        List<Process> processes = new ArrayList<>();
        List<CompletableFuture<List<String>>> errors = new ArrayList<>();
        List<List<String>> outputs = new ArrayList<>();
        try {
            Process first = start(address, 0, "127.0.0.1:0");
            processes.add(first);
            errors.add(drainInBackground(first));
            BufferedReader firstOut = reader(first);
            String rendezvousLine = firstOut.readLine();
            if (rendezvousLine == null || !rendezvousLine.startsWith("RENDEZVOUS ")) {
                if (rendezvousLine != null) {
                    first.destroy();
                }
                List<String> said = new ArrayList<>(drain(firstOut));
                said.addAll(errorsOf(first, errors.get(0)));
                throw new CliFailure("rank 0 did not start: " + (rendezvousLine == null ? "" : rendezvousLine + " ")
                        + (said.isEmpty() ? "it printed nothing" : String.join(" ", said)));
            }
            String rendezvous = rendezvousLine.substring("RENDEZVOUS ".length());
            List<BufferedReader> readers = new ArrayList<>(List.of(firstOut));
            for (int rank = 1; rank < ranks; rank++) {
                Process process = start(address, rank, rendezvous);
                processes.add(process);
                errors.add(drainInBackground(process));
                readers.add(reader(process));
            }
            boolean ok = true;
            for (int rank = 0; rank < ranks; rank++) {
                outputs.add(drain(readers.get(rank)));
                Process process = processes.get(rank);
                if (!process.waitFor(RANK_LIMIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new CliFailure("rank " + rank + " did not finish within " + RANK_LIMIT_SECONDS + " s");
                }
                if (process.exitValue() != 0) {
                    ok = false;
                    PrintWriter err = spec == null ? out : spec.commandLine().getErr();
                    for (String line : errorsOf(process, errors.get(rank))) {
                        err.println("rank " + rank + ": " + line);
                    }
                    err.flush();
                }
            }
            for (List<String> lines : outputs) {
                lines.forEach(out::println);
            }
            out.println(ok ? "ping-pong passed." : "ping-pong FAILED.");
            return ok ? 0 : Main.FAILED;
        } finally {
            for (Process process : processes) {
                process.destroyForcibly();
            }
        }
    }

    private String pluginOf(int rank) {
        if (!plugin.equals("mixed")) {
            return plugin;
        }
        return rank % 2 == 0 ? NATIVE_SANDBOX : JAVA_SANDBOX;
    }

    private Process start(String address, int rank, String rendezvous) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "ping-pong-rank",
                "--service",
                address,
                "--rank",
                Integer.toString(rank),
                "--size",
                Integer.toString(ranks),
                "--rendezvous",
                rendezvous,
                "--message",
                message,
                "--plugin",
                pluginOf(rank),
                "--rounds",
                Integer.toString(rounds)));
        if (authKeyFile != null) {
            command.addAll(List.of("--auth-key-file", authKeyFile.toString()));
        }
        for (String entry : workerEnv) {
            command.addAll(List.of("--worker-env", entry));
        }
        ProcessBuilder builder = new ProcessBuilder(command);
        if (privateDaemon) {
            builder.environment().remove(AuthKey.ENVIRONMENT_VARIABLE);
        }
        return builder.start();
    }

    private static BufferedReader reader(Process process) {
        return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    private static List<String> drain(BufferedReader reader) throws IOException {
        List<String> lines = new ArrayList<>();
        String line;
        while ((line = reader.readLine()) != null) {
            lines.add(line);
        }
        return lines;
    }

    /** Reads a rank's stderr to its end on another thread, so the rank never blocks on a full pipe. */
    private static CompletableFuture<List<String>> drainInBackground(Process process) {
        BufferedReader stderr =
                new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
        return CompletableFuture.supplyAsync(() -> {
            try {
                return drain(stderr);
            } catch (IOException e) {
                return List.of("(its stderr could not be read: " + e.getMessage() + ")");
            }
        });
    }

    /** What a finished (or dying) rank wrote on stderr. */
    private static List<String> errorsOf(Process process, CompletableFuture<List<String>> errors) {
        try {
            process.waitFor(RANK_LIMIT_SECONDS, TimeUnit.SECONDS);
            return errors.get(RANK_LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return List.of("(its stderr could not be read)");
        }
    }
}
