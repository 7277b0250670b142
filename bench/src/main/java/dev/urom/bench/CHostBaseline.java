// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.wire.ServiceAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The C host: {@code c_host_loopback} (bench/src/main/c), a program written against DOCA's host API
 * and linked with host-c's libraries, run as a child process against a daemon given by its address.
 * It finds that daemon as every DOCA UROM program does: through a {@value #SERVICE_FILE_ENV} file,
 * written here with one line for this host whose device ({@value #PCI_ADDRESS}, {@value #DEVICE_NAME})
 * names the daemon's address; the program opens the device by its PCI address.
 *
 * <p>The program is found at system property {@value #PROGRAM_PROPERTY} when set, otherwise next to
 * the jar (or classes folder) this class was loaded from, where the build puts it.
 *
 * <p>Not thread-safe. Failures throw {@link IllegalStateException} with one line naming the program,
 * the plugin and what went wrong (the program's own one-line error when it printed one).
 */
final class CHostBaseline {
    static final String PROGRAM_PROPERTY = "urom.bench.chost";
    static final String PROGRAM_NAME = "c_host_loopback";
    static final String SERVICE_FILE_ENV = "DOCA_UROM_SERVICE_FILE";
    /** The device of the service file's line; any PCI address does, no hardware is involved. */
    static final String PCI_ADDRESS = "0000:0b:00.0";

    static final String DEVICE_NAME = "urom0";
    private static final String RESULT_WORD = "c_host";

    /** How the program waits for its progress engine (its last argument). */
    enum Wait {
        /** Sleeps in epoll_wait on the engine's notification handle when it has nothing: as the Java host's reader thread blocks. */
        EVENT,
        /** Calls doca_pe_progress until it has something, as DOCA's samples do: a core kept busy. */
        SPIN;

        String argument() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** {@code spin} or {@code event}. */
        static Wait parse(String text) {
            for (Wait wait : values()) {
                if (wait.argument().equals(text)) {
                    return wait;
                }
            }
            throw new IllegalArgumentException("'" + text + "' is neither spin nor event");
        }
    }

    /**
     * What the C host measured with one plugin.
     *
     * @param roundTripCpu the CPU time of the program ({@code host}) and of its worker process over the
     *     measured round trips, read at the program's pauses
     * @param throughputCpu the same over the measured commands with several in flight
     */
    record Result(long p50Ns, long p99Ns, double opsPerSecond, CpuCost roundTripCpu, CpuCost throughputCpu) {}

    /** The figures of the program's result line. */
    record Line(long p50Ns, long p99Ns, double opsPerSecond) {}

    /**
     * The daemon's workers as the runs need them. A worker whose program has ended may stay in the
     * daemon's table for a while (its JVM still exiting: writing a class-data archive takes seconds),
     * so a run first waits for the table to empty; only then is the worker its program starts the
     * only one.
     */
    interface DaemonWorkers {
        /** Returns once the daemon has no worker. */
        void awaitNone() throws InterruptedException;

        /** The process id of the daemon's only worker. */
        long onlyPid();
    }

    /** The lines the program pauses at, in order: before the measured round trips, after them, after the throughput. */
    private static final List<String> PAUSES = List.of("warm", "rounds_done", "throughput_done");

    private final Path program;
    private final ChildProcesses children;

    CHostBaseline(Path program, ChildProcesses children) {
        this.program = program;
        this.children = children;
    }

    /** The program the build made, located as the class comment says. */
    static Path locateProgram() {
        return NativePrograms.locate(PROGRAM_NAME, PROGRAM_PROPERTY);
    }

    /**
     * Runs the program once per plugin of {@code pluginsByKind} ({@code native} → {@code
     * worker_graph}, ...) against {@code daemon}, one after the other: each starts one worker, warms
     * it up with the traffic it then measures, {@code rounds} round trips and {@code throughputRounds}
     * commands with {@code inFlight} in flight, and stops it. The service file is written into
     * {@code workDir}. Each program starts once {@code workers} has none, and its worker's process
     * id is asked once it is warm. Answers the results by kind, in the order given.
     */
    Map<String, Result> run(
            ServiceAddress daemon,
            DaemonWorkers workers,
            Path workDir,
            Map<String, String> pluginsByKind,
            int rounds,
            int throughputRounds,
            int inFlight,
            Wait wait)
            throws IOException, InterruptedException {
        Path serviceFile = workDir.resolve("doca_urom_services");
        Files.writeString(
                serviceFile,
                "# written by EndToEndBench for " + PROGRAM_NAME + "\n" + serviceLine(hostname(), daemon) + "\n",
                StandardCharsets.US_ASCII);
        Map<String, Result> results = new LinkedHashMap<>();
        for (Map.Entry<String, String> plugin : pluginsByKind.entrySet()) {
            workers.awaitNone();
            results.put(
                    plugin.getKey(),
                    run(serviceFile, workers, workDir, plugin.getValue(), rounds, throughputRounds, inFlight, wait));
        }
        return results;
    }

    private Result run(
            Path serviceFile,
            DaemonWorkers workers,
            Path workDir,
            String plugin,
            int rounds,
            int throughputRounds,
            int inFlight,
            Wait wait)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                program.toString(),
                PCI_ADDRESS,
                plugin,
                Integer.toString(rounds),
                Integer.toString(throughputRounds),
                Integer.toString(inFlight),
                wait.argument()));
        Path errors = workDir.resolve(PROGRAM_NAME + "." + plugin + ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(errors.toFile());
        builder.environment().put(SERVICE_FILE_ENV, serviceFile.toString());
        Process process = children.start(builder);
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        Writer in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        Map<String, Long> path = new LinkedHashMap<>();
        List<CpuCost.Snapshot> atPauses = new ArrayList<>();
        for (String pause : PAUSES) {
            String line = out.readLine();
            if (!pause.equals(line)) {
                in.close();
                throw failure(
                        process,
                        plugin,
                        errors,
                        "printed " + (line == null ? "nothing" : "'" + line + "'") + " where it pauses with '" + pause
                                + "'");
            }
            if (path.isEmpty()) {
                path.put("host", process.pid());
                path.put("worker", workers.onlyPid());
            }
            atPauses.add(CpuCost.snapshot(path));
            in.write('\n');
            in.flush();
        }
        in.close();
        StringWriter output = new StringWriter();
        out.transferTo(output);
        if (process.waitFor() != 0) {
            throw failure(process, plugin, errors, "");
        }
        Line line = parse(output.toString().trim());
        return new Result(
                line.p50Ns(),
                line.p99Ns(),
                line.opsPerSecond(),
                CpuCost.between(atPauses.get(0), atPauses.get(1), rounds),
                CpuCost.between(atPauses.get(1), atPauses.get(2), throughputRounds));
    }

    /**
     * The one-line failure of a run of the program for {@code plugin}: its exit status and its last
     * error line when it ended with one, otherwise {@code otherwise}.
     */
    private static IllegalStateException failure(Process process, String plugin, Path errors, String otherwise)
            throws IOException, InterruptedException {
        int status = process.waitFor();
        if (status == 0) {
            return new IllegalStateException(PROGRAM_NAME + " " + plugin + " " + otherwise);
        }
        return new IllegalStateException(PROGRAM_NAME + " " + plugin + " ended with status " + status
                + lastLine(Files.readString(errors, StandardCharsets.UTF_8))
                        .map(line -> ": " + withoutName(line))
                        .orElse(""));
    }

    /** The line of the service file for {@code hostname} whose device names {@code daemon}. */
    static String serviceLine(String hostname, ServiceAddress daemon) {
        String where;
        if (daemon.isUnix()) {
            where = daemon.toString();
        } else {
            where = (daemon.host().contains(":") ? "[" + daemon.host() + "]" : daemon.host()) + ":" + daemon.port();
        }
        for (String field : List.of(hostname, where)) {
            if (field.isEmpty() || field.chars().anyMatch(c -> c <= ' ' || c == '#')) {
                throw new IllegalStateException("cannot write a " + SERVICE_FILE_ENV + " line for '" + field
                        + "': its fields are separated by blanks and may not start a comment");
            }
        }
        return hostname + " dpu " + where + " " + PCI_ADDRESS + " " + DEVICE_NAME + ":1";
    }

    /** What gethostname() answers, which the library matches the service file's lines against. */
    static String hostname() throws IOException {
        Path kernel = Path.of("/proc/sys/kernel/hostname");
        if (Files.isReadable(kernel)) {
            return Files.readString(kernel, StandardCharsets.US_ASCII).trim();
        }
        return java.net.InetAddress.getLocalHost().getHostName();
    }

    /** Parses the program's result line {@code "c_host key=value ..."}. */
    static Line parse(String line) {
        Map<String, String> fields = NativePrograms.parseLine(PROGRAM_NAME, RESULT_WORD, line);
        return new Line(
                (long) NativePrograms.number(PROGRAM_NAME, fields, "p50_ns"),
                (long) NativePrograms.number(PROGRAM_NAME, fields, "p99_ns"),
                NativePrograms.number(PROGRAM_NAME, fields, "ops_per_s"));
    }

    private static Optional<String> lastLine(String text) {
        String[] lines = text.strip().split("\n");
        String last = lines[lines.length - 1].strip();
        return last.isEmpty() ? Optional.empty() : Optional.of(last);
    }

    /** An error line of the program without the program's name in front. */
    private static String withoutName(String line) {
        String prefix = PROGRAM_NAME + ": ";
        return line.startsWith(prefix) ? line.substring(prefix.length()) : line;
    }
}
