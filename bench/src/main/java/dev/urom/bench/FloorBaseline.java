package dev.urom.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
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

    /** What the floor measured. */
    /**
     * @param relayP50Ns round trip p50 through a relay process (two hops): what a data path
     *     through the daemon would cost at the least
     */
    record Result(long p50Ns, long p99Ns, double opsPerSecond, long relayP50Ns) {}

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
            Map<String, String> latency = client("latency", socket, requestBytes, replyBytes,
                    Integer.toString(rounds), Integer.toString(rounds));
            Map<String, String> throughput = client("throughput", socket, requestBytes, replyBytes,
                    Integer.toString(throughputRounds), Integer.toString(throughputRounds), Integer.toString(inFlight));
            Path relaySocket = socket.resolveSibling(socket.getFileName() + ".relay");
            Process relay = startAndAwaitReady(new ProcessBuilder(program.toString(), "relay", relaySocket.toString(),
                    Integer.toString(requestBytes), Integer.toString(replyBytes), socket.toString()));
            try {
                Map<String, String> relayed = client("latency", relaySocket, requestBytes, replyBytes,
                        Integer.toString(rounds), Integer.toString(rounds));
                return new Result(number(latency, "p50_ns"), number(latency, "p99_ns"),
                        Double.parseDouble(field(throughput, "ops_per_s")), number(relayed, "p50_ns"));
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
    Latency latency(Path socket, int requestBytes, int replyBytes, int rounds) throws IOException, InterruptedException {
        Process server = startServer(socket, requestBytes, replyBytes);
        try {
            Map<String, String> latency = client("latency", socket, requestBytes, replyBytes,
                    Integer.toString(rounds), Integer.toString(rounds));
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
            Map<String, String> throughput = client("throughput", socket, requestBytes, replyBytes,
                    Integer.toString(warmUp), Integer.toString(messages), Integer.toString(inFlight));
            return Double.parseDouble(field(throughput, "ops_per_s"));
        } finally {
            stop(server);
        }
    }

    private Process startServer(Path socket, int requestBytes, int replyBytes) throws IOException, InterruptedException {
        return startAndAwaitReady(new ProcessBuilder(program.toString(), "server", socket.toString(),
                Integer.toString(requestBytes), Integer.toString(replyBytes)));
    }

    private Process startAndAwaitReady(ProcessBuilder builder) throws IOException, InterruptedException {
        Process process = children.start(builder.redirectError(ProcessBuilder.Redirect.INHERIT));
        String ready = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII)).readLine();
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

    private Map<String, String> client(String mode, Path socket, int requestBytes, int replyBytes, String... counts)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(program.toString(), mode, socket.toString(),
                Integer.toString(requestBytes), Integer.toString(replyBytes)));
        command.addAll(List.of(counts));
        Process client = children.start(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT));
        String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        int status = client.waitFor();
        if (status != 0) {
            throw new IllegalStateException(program + " " + mode + " ended with status " + status);
        }
        return parseLine(mode, output);
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
