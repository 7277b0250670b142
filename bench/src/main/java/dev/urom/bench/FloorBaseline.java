// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The floor: {@code uds_pingpong} (bench/src/main/c), two C processes exchanging fixed-size messages
 * (up to {@value #MAX_MESSAGE_BYTES} bytes) over a Unix-domain socket: for {@link EndToEndBench} of
 * the size of a COMMAND frame and its NOTIFY frame, for {@link SandboxBench} of the sizes its
 * workers exchange. Runs its server as a child process and its clients one after the other.
 *
 * <p>The program is found at system property {@value #PROGRAM_PROPERTY} when set, otherwise next to
 * the jar (or classes folder) this class was loaded from, where the build puts it.
 *
 * <p>Not thread-safe. Failures throw {@link IllegalStateException} with one line naming the program
 * and what went wrong.
 */
final class FloorBaseline {
    static final String PROGRAM_PROPERTY = "urom.bench.floor";
    static final String PROGRAM_NAME = "uds_pingpong";
    /** The largest message the program takes (its MAX_MESSAGE). */
    static final int MAX_MESSAGE_BYTES = 1 << 20;

    /**
     * What the floor measured.
     *
     * @param relayP50Ns round trip p50 through a relay process (two hops): what a data path
     *     through the daemon would cost at the least
     * @param roundTripCpu the client's and the server's CPU time over the measured round trips
     * @param throughputCpu the same over the measured messages with several in flight
     * @param relayCpu the client's, the relay's and the server's over the round trips through the relay
     */
    record Result(
            long p50Ns,
            long p99Ns,
            double opsPerSecond,
            long relayP50Ns,
            CpuCost roundTripCpu,
            CpuCost throughputCpu,
            CpuCost relayCpu) {}

    /** A client's result line and the CPU time of the processes on its path over its measured rounds. */
    private record ClientRun(Map<String, String> fields, CpuCost cpu) {}

    private final Path program;
    private final ChildProcesses children;

    FloorBaseline(Path program, ChildProcesses children) {
        this.program = program;
        this.children = children;
    }

    /** The program the build made, located as the class comment says. */
    static Path locateProgram() {
        return NativePrograms.locate(PROGRAM_NAME, PROGRAM_PROPERTY);
    }

    /**
     * Measures {@code rounds} round trips with one message in flight and then {@code throughputRounds}
     * messages with {@code inFlight} in flight, each after as many unmeasured ones to warm up.
     */
    Result run(Path socket, int requestBytes, int replyBytes, int rounds, int throughputRounds, int inFlight)
            throws IOException, InterruptedException {
        Process server = startServer(socket, requestBytes, replyBytes);
        try {
            Map<String, Long> serverOnly = Map.of("server", server.pid());
            ClientRun latency = client(
                    "latency",
                    socket,
                    requestBytes,
                    replyBytes,
                    serverOnly,
                    rounds,
                    Integer.toString(rounds),
                    Integer.toString(rounds));
            ClientRun throughput = client(
                    "throughput",
                    socket,
                    requestBytes,
                    replyBytes,
                    serverOnly,
                    throughputRounds,
                    Integer.toString(throughputRounds),
                    Integer.toString(throughputRounds),
                    Integer.toString(inFlight));
            Path relaySocket = socket.resolveSibling(socket.getFileName() + ".relay");
            Process relay = startAndAwaitReady(new ProcessBuilder(
                    program.toString(),
                    "relay",
                    relaySocket.toString(),
                    Integer.toString(requestBytes),
                    Integer.toString(replyBytes),
                    socket.toString()));
            try {
                Map<String, Long> relayAndServer = new LinkedHashMap<>();
                relayAndServer.put("relay", relay.pid());
                relayAndServer.put("server", server.pid());
                ClientRun relayed = client(
                        "latency",
                        relaySocket,
                        requestBytes,
                        replyBytes,
                        relayAndServer,
                        rounds,
                        Integer.toString(rounds),
                        Integer.toString(rounds));
                return new Result(
                        number(latency.fields(), "p50_ns"),
                        number(latency.fields(), "p99_ns"),
                        Double.parseDouble(field(throughput.fields(), "ops_per_s")),
                        number(relayed.fields(), "p50_ns"),
                        latency.cpu(),
                        throughput.cpu(),
                        relayed.cpu());
            } finally {
                stop(relay);
            }
        } finally {
            stop(server);
        }
    }

    /** A round-trip p50 and p99, in nanoseconds. */
    record Latency(long p50Ns, long p99Ns) {}

    /**
     * Starts a server on {@code socket}, measures {@code rounds} round trips of {@code requestBytes}
     * out and {@code replyBytes} back with one in flight (after as many to warm up), stops it.
     */
    Latency latency(Path socket, int requestBytes, int replyBytes, int rounds)
            throws IOException, InterruptedException {
        Process server = startServer(socket, requestBytes, replyBytes);
        try {
            Map<String, String> latency = client(
                            "latency",
                            socket,
                            requestBytes,
                            replyBytes,
                            Map.of("server", server.pid()),
                            rounds,
                            Integer.toString(rounds),
                            Integer.toString(rounds))
                    .fields();
            return new Latency(number(latency, "p50_ns"), number(latency, "p99_ns"));
        } finally {
            stop(server);
        }
    }

    /**
     * Starts a server on {@code socket}, measures {@code messages} requests with {@code inFlight}
     * in flight (after {@code warmUp} unmeasured ones), stops it; answers requests per second.
     * With a one-byte reply this is the one-way rate of {@code requestBytes} messages.
     */
    double opsPerSecond(Path socket, int requestBytes, int replyBytes, int warmUp, int messages, int inFlight)
            throws IOException, InterruptedException {
        Process server = startServer(socket, requestBytes, replyBytes);
        try {
            Map<String, String> throughput = client(
                            "throughput",
                            socket,
                            requestBytes,
                            replyBytes,
                            Map.of("server", server.pid()),
                            messages,
                            Integer.toString(warmUp),
                            Integer.toString(messages),
                            Integer.toString(inFlight))
                    .fields();
            return Double.parseDouble(field(throughput, "ops_per_s"));
        } finally {
            stop(server);
        }
    }

    private Process startServer(Path socket, int requestBytes, int replyBytes)
            throws IOException, InterruptedException {
        return startAndAwaitReady(new ProcessBuilder(
                program.toString(),
                "server",
                socket.toString(),
                Integer.toString(requestBytes),
                Integer.toString(replyBytes)));
    }

    private Process startAndAwaitReady(ProcessBuilder builder) throws IOException, InterruptedException {
        Process process = children.start(builder.redirectError(ProcessBuilder.Redirect.INHERIT));
        String ready = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))
                .readLine();
        if (!"READY".equals(ready)) {
            stop(process);
            throw new IllegalStateException(program + " " + builder.command().get(1) + " did not start: it said "
                    + (ready == null ? "nothing" : "'" + ready + "'"));
        }
        return process;
    }

    private static void stop(Process process) throws IOException, InterruptedException {
        process.getOutputStream().close();
        process.destroy();
        process.waitFor();
    }

    /**
     * Runs a client of {@code mode} with {@code counts} and reads its result line; the CPU time of
     * the client and of {@code peers} (role → pid) is read at its pauses around its {@code measured}
     * rounds.
     */
    private ClientRun client(
            String mode,
            Path socket,
            int requestBytes,
            int replyBytes,
            Map<String, Long> peers,
            long measured,
            String... counts)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                program.toString(),
                mode,
                socket.toString(),
                Integer.toString(requestBytes),
                Integer.toString(replyBytes)));
        command.addAll(List.of(counts));
        Process client = children.start(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT));
        Map<String, Long> path = new LinkedHashMap<>();
        path.put("client", client.pid());
        path.putAll(peers);
        BufferedReader out =
                new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII));
        Writer in = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.US_ASCII);
        awaitPause(client, out, mode, "warm");
        CpuCost.Snapshot before = CpuCost.snapshot(path);
        resume(in);
        awaitPause(client, out, mode, "done");
        CpuCost.Snapshot after = CpuCost.snapshot(path);
        resume(in);
        in.close();
        String line = out.readLine();
        out.transferTo(Writer.nullWriter());
        int status = client.waitFor();
        if (status != 0) {
            throw new IllegalStateException(program + " " + mode + " ended with status " + status);
        }
        return new ClientRun(
                parseLine(mode, line == null ? "" : line.trim()), CpuCost.between(before, after, measured));
    }

    private void awaitPause(Process client, BufferedReader out, String mode, String marker)
            throws IOException, InterruptedException {
        String line = out.readLine();
        if (line == null && client.waitFor() != 0) {
            throw new IllegalStateException(program + " " + mode + " ended with status " + client.exitValue());
        }
        if (!marker.equals(line)) {
            throw new IllegalStateException(program + " " + mode + " said "
                    + (line == null ? "nothing" : "'" + line + "'") + " where it pauses with '" + marker + "'");
        }
    }

    private static void resume(Writer in) throws IOException {
        in.write('\n');
        in.flush();
    }

    /** Parses a result line {@code "<mode> key=value key=value ..."}. */
    static Map<String, String> parseLine(String mode, String line) {
        return NativePrograms.parseLine(PROGRAM_NAME, mode, line);
    }

    private static String field(Map<String, String> fields, String key) {
        return NativePrograms.field(PROGRAM_NAME, fields, key);
    }

    private static long number(Map<String, String> fields, String key) {
        return Long.parseLong(field(fields, key));
    }
}
