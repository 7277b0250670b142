// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon.testing;

import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.service.os.DescriptorInput;
import dev.urom.service.process.WorkerLine;
import dev.urom.service.process.WorkerLines;
import dev.urom.wire.ServiceAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Stands in for the worker process in the daemon's tests. It takes the worker's command line but
 * loads nothing; what it does is chosen by the environment the host asked for:
 *
 * <ul>
 *   <li>{@code FAKE_MODE} unset or {@code ready}: prints {@code READY <the address of the listening
 *       socket it inherited>}, then answers each {@code STATS <n>} on the daemon's pipe with empty
 *       counts, as a running worker does (the daemon asks before it joins a worker), until EOF
 *       there, and exits 0;
 *   <li>{@code ready_exit_N}: prints READY, then exits with status N;
 *   <li>{@code failed_STATUS}: prints {@code FAILED STATUS fake worker told to fail} and exits 1;
 *   <li>{@code exit_N}: exits with status N without a line;
 *   <li>{@code silent}: prints nothing and waits for EOF on stdin;
 *   <li>{@code ignore_eof}: prints READY, then never ends by itself;
 *   <li>{@code garbage}: prints a line that is neither READY nor FAILED, then waits for EOF.
 * </ul>
 *
 * <p>{@code FAKE_RECORD}, when set, receives its arguments (one a line) and then its {@code
 * FAKE_*} and {@code GREETING} variables as {@code NAME=value} lines. Its whole environment goes to
 * {@value #ENVIRONMENT_FILE} in its working directory (its private directory), one {@code
 * NAME=value} a line, by name: a test cannot read it from {@code /proc}, a worker being undumpable.
 */
public final class FakeWorkerMain {
    /** The file in its working directory that holds its environment. */
    public static final String ENVIRONMENT_FILE = "fake-worker-environment";

    private FakeWorkerMain() {}

    public static void main(String[] args) throws IOException {
        Files.write(
                Path.of(ENVIRONMENT_FILE),
                new TreeMap<>(System.getenv())
                        .entrySet().stream()
                                .map(entry -> entry.getKey() + "=" + entry.getValue())
                                .toList(),
                StandardCharsets.UTF_8);
        String mode = System.getenv().getOrDefault("FAKE_MODE", "ready");
        String argsFile = System.getenv("FAKE_RECORD");
        if (argsFile != null) {
            List<String> lines = new ArrayList<>(List.of(args));
            Map<String, String> env = new TreeMap<>(System.getenv());
            env.forEach((name, value) -> {
                if (name.startsWith("FAKE_") || name.equals("GREETING")) {
                    lines.add(name + "=" + value);
                }
            });
            Files.write(Path.of(argsFile), lines, StandardCharsets.UTF_8);
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        InputStream daemon = DescriptorInput.of(Integer.parseInt(option(args, "--daemon-fd")));
        String listening = ServiceAddress.of(((ServerSocketChannel) System.inheritedChannel()).getLocalAddress())
                .toString();
        if (mode.equals("ignore_eof")) {
            out.println("READY " + listening);
            out.close();
            while (true) {
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    // keep sleeping
                }
            }
        }
        if (mode.equals("ready")) {
            out.println("READY " + listening);
            answerUntilEof(daemon, out);
            System.exit(0);
        } else if (mode.startsWith("ready_exit_")) {
            out.println("READY " + listening);
            out.close();
            System.exit(Integer.parseInt(mode.substring("ready_exit_".length())));
        } else if (mode.startsWith("failed_")) {
            out.println("FAILED " + mode.substring("failed_".length()) + " fake worker told to fail");
            out.close();
            System.exit(1);
        } else if (mode.startsWith("exit_")) {
            System.exit(Integer.parseInt(mode.substring("exit_".length())));
        } else if (mode.equals("garbage")) {
            out.println("HELLO there");
            out.close();
        } else if (!mode.equals("silent")) {
            throw new IllegalArgumentException("FAKE_MODE " + mode + " is unknown");
        }
        while (daemon.read() >= 0) {
            // wait for the daemon to close its pipe (its first line, the access, is read and ignored)
        }
        System.exit(0);
    }

    /** Answers the daemon's requests for counts (after its first line, the access, read and ignored) until its pipe ends. */
    private static void answerUntilEof(InputStream daemon, PrintStream out) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(daemon, StandardCharsets.US_ASCII));
        String line;
        while ((line = lines.readLine()) != null) {
            WorkerLine said;
            try {
                said = WorkerLines.decode(line);
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (said instanceof WorkerLine.StatsRequest request) {
                out.println(WorkerLines.encode(new WorkerLine.Stats(request.number(), WorkerStatsSnapshot.EMPTY)));
            }
        }
    }

    private static String option(String[] args, String name) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        throw new IllegalArgumentException("option " + name + " is missing");
    }
}
