// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * UCX's own benchmark, {@code ucx_perftest} (Debian's {@code ucx-utils}), as the baseline of the
 * sandbox's UCP data path: a server and a client process on this machine, over loopback for the
 * connection setup, with the UCX settings ({@code UCX_TLS}, ...) given to both. Runs one test at a
 * time ({@code tag_lat}, {@code tag_bw}) and reads its {@code Final:} line.
 *
 * <p>{@code ucx_perftest} reports latency one way (half the round trip) in microseconds and
 * bandwidth in MB/s of 2^20 bytes; {@link Result} holds round-trip nanoseconds and bytes per second.
 *
 * <p>Not thread-safe. Failures throw {@link IllegalStateException} with one line naming the
 * program, the test and what went wrong.
 */
final class UcxPerftest {
    static final String PROGRAM = "ucx_perftest";
    private static final long LIMIT_S = 300;
    static final int MIN_WARM_UP = 1000;

    /**
     * What one test measured.
     *
     * @param roundTripP50Ns twice the one-way median latency
     * @param roundTripMeanNs twice the one-way overall average latency (all iterations)
     * @param bytesPerSecond the overall bandwidth
     */
    record Result(double roundTripP50Ns, double roundTripMeanNs, double bytesPerSecond) {}

    private final ChildProcesses children;
    private final Map<String, String> ucxSettings;

    UcxPerftest(ChildProcesses children, Map<String, String> ucxSettings) {
        this.children = children;
        this.ucxSettings = Map.copyOf(ucxSettings);
    }

    /**
     * {@code ucx_perftest -t TEST -s BYTES -n ITERATIONS -w WARM_UP} between a server and a client,
     * the warm-up a tenth of the iterations, as the sandbox's own figures do, but at least {@value
     * #MIN_WARM_UP}: UCX connects lazily, and a connection made in the measured iterations weighs on
     * the mean (a few hundred iterations measure a mean of about 1 ms over TCP).
     */
    Result run(String test, int bytes, int iterations) throws IOException, InterruptedException {
        return run(test, bytes, iterations, List.of());
    }

    /**
     * As {@link #run(String, int, int)}, with {@code options} added on both sides ({@code -e}:
     * endpoints with error handling, as the sandbox's).
     */
    Result run(String test, int bytes, int iterations, List<String> options) throws IOException, InterruptedException {
        String port = Integer.toString(freePort());
        List<String> serverCommand = new ArrayList<>(List.of(PROGRAM, "-p", port));
        serverCommand.addAll(options);
        Output server = Output.of(start(serverCommand));
        awaitListening(server, Integer.parseInt(port), test);
        List<String> client = new ArrayList<>(List.of(
                PROGRAM,
                "127.0.0.1",
                "-p",
                port,
                "-t",
                test,
                "-s",
                Integer.toString(bytes),
                "-n",
                Integer.toString(iterations),
                "-w",
                Integer.toString(Math.max(MIN_WARM_UP, SandboxBenchOptions.warmUp(iterations)))));
        client.addAll(options);
        Output clientOutput = Output.of(start(client));
        List<String> output = await(clientOutput.ended, clientOutput.process, test);
        clientOutput.process.waitFor(LIMIT_S, TimeUnit.SECONDS);
        server.process.waitFor(LIMIT_S, TimeUnit.SECONDS);
        if (clientOutput.process.exitValue() != 0) {
            throw new IllegalStateException(PROGRAM + " -t " + test + " exited with status "
                    + clientOutput.process.exitValue() + ": " + tail(output));
        }
        return parseFinal(output, test);
    }

    /**
     * The {@code Final:} line's median and overall average latency and overall bandwidth (its
     * figures: iterations, median, average and overall latency, average and overall bandwidth,
     * average and overall message rate).
     */
    static Result parseFinal(List<String> output, String test) {
        for (String line : output) {
            String trimmed = line.strip();
            if (trimmed.startsWith("Final:")) {
                String[] fields = trimmed.substring("Final:".length()).strip().split("\\s+");
                if (fields.length < 8) {
                    break;
                }
                double oneWayUs = Double.parseDouble(fields[1]);
                double oneWayOverallUs = Double.parseDouble(fields[3]);
                double megabytes = Double.parseDouble(fields[5]);
                return new Result(2 * oneWayUs * 1000, 2 * oneWayOverallUs * 1000, megabytes * (1 << 20));
            }
        }
        throw new IllegalStateException(
                PROGRAM + " -t " + test + " printed no Final: line with 8 figures: " + tail(output));
    }

    private Process start(List<String> command) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(ucxSettings);
        try {
            return children.start(builder);
        } catch (IOException e) {
            throw new IllegalStateException(PROGRAM + " cannot be started (" + e.getMessage() + "); install ucx-utils");
        }
    }

    /** A process's output, read to its end on another thread. */
    private record Output(Process process, CompletableFuture<List<String>> ended) {
        static Output of(Process process) {
            BufferedReader reader =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<List<String>> ended = CompletableFuture.supplyAsync(() -> {
                List<String> lines = new ArrayList<>();
                try {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    lines.add("(output unreadable: " + e.getMessage() + ")");
                }
                return lines;
            });
            return new Output(process, ended);
        }
    }

    /**
     * Waits until the server listens on {@code port}, as the kernel's socket tables say: its
     * "Waiting for connection" line sits in stdio's buffer when stdout is a pipe, and a probe
     * connection would be taken for the client.
     */
    private static void awaitListening(Output server, int port, String test) throws IOException, InterruptedException {
        String local = String.format(":%04X ", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_S);
        while (true) {
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                Path file = Path.of(table);
                if (Files.exists(file)) {
                    for (String line : Files.readAllLines(file)) {
                        String[] fields = line.strip().split("\\s+");
                        if (fields.length > 3 && (fields[1] + " ").endsWith(local) && fields[3].equals("0A")) {
                            return;
                        }
                    }
                }
            }
            if (!server.process.isAlive()) {
                throw new IllegalStateException(PROGRAM + " server for -t " + test + " ended at once: "
                        + tail(await(server.ended, server.process, test)));
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException(PROGRAM + " server for -t " + test + " did not listen on port " + port
                        + " within " + LIMIT_S + " s");
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    private static List<String> await(CompletableFuture<List<String>> lines, Process process, String test)
            throws InterruptedException {
        try {
            return lines.get(LIMIT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    PROGRAM + " -t " + test + ": " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException(PROGRAM + " -t " + test + " did not finish within " + LIMIT_S + " s");
        }
    }

    private static String tail(List<String> lines) {
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
