// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.host.UromService;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code urom demo}: first runs the graph plugin's LOOPBACK on the C plugin and on the Java plugin,
 * both loaded into one worker host in this process, and checks that they answer byte for byte
 * alike; then starts a private daemon on a temporary socket and runs the multi-workers bootstrap
 * sample against it, once with each graph plugin, in real worker processes. Prints what it did with
 * timings and leaves no process or socket behind. Exit status 1 when anything differs or fails.
 */
@Command(
        name = "demo",
        description = "Run the graph plugins in-process and through a private daemon's worker processes.")
final class DemoCommand implements Callable<Integer> {
    static final String NATIVE_GRAPH = "worker_graph";
    static final String JAVA_GRAPH = "worker_graph_java";
    private static final long[] VALUES = {0, 1, 42, 0xdead_beefL, -1, Long.MIN_VALUE};
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Spec
    CommandSpec spec;

    /** The most loopbacks per plugin that {@code --rounds} allows. */
    static final int MAX_ROUNDS = 100_000_000;

    @Option(
            names = "--rounds",
            defaultValue = "20000",
            paramLabel = "N",
            description = "Loopbacks per plugin for the timing, 1 to " + MAX_ROUNDS + " (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--worker-user",
            paramLabel = "USER",
            description =
                    "User the private daemon's workers run as when run as root (default: a uid of their own, from the daemon's --worker-uid-range).")
    String workerUser;

    private final Environment environment;

    DemoCommand(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Integer call() {
        if (rounds < 1 || rounds > MAX_ROUNDS) {
            throw new ParameterException(
                    spec.commandLine(), "--rounds " + rounds + " is not between 1 and " + MAX_ROUNDS);
        }
        PrintWriter out = spec.commandLine().getOut();
        long scanStart = System.nanoTime();
        LocalPlugins plugins = LocalPlugins.scan(environment);
        out.println("== In one worker host, in this process ==");
        out.printf(
                "Scanned UROM_PLUGIN_PATH in %.1f ms: %d plugin(s), %d rejected%n",
                millis(System.nanoTime() - scanStart),
                plugins.result().plugins().size(),
                plugins.result().rejected().size());
        List<DiscoveredPlugin> graphs = List.of(plugins.require(NATIVE_GRAPH), plugins.require(JAVA_GRAPH));
        for (DiscoveredPlugin graph : graphs) {
            out.printf(
                    "  %-18s id 0x%016x  version %s  %-6s  %s%n",
                    graph.info().name(),
                    graph.info().id(),
                    Long.toUnsignedString(graph.info().version()),
                    PluginsCommand.kind(graph),
                    graph.path());
        }

        long openStart = System.nanoTime();
        try (LocalWorker worker = LocalWorker.open(graphs)) {
            out.printf("Opened both in one worker host in %.1f ms%n%n", millis(System.nanoTime() - openStart));
            boolean allAlike = true;
            out.printf("%-22s  %-26s  %-26s  %s%n", "LOOPBACK value", NATIVE_GRAPH, JAVA_GRAPH, "alike");
            for (long value : VALUES) {
                WorkerNotification c = worker.call(graphs.get(0), GraphClient.loopbackCommand(value), TIMEOUT)
                        .notification();
                WorkerNotification java = worker.call(graphs.get(1), GraphClient.loopbackCommand(value), TIMEOUT)
                        .notification();
                boolean alike = c.status() == UromStatus.SUCCESS
                        && c.status() == java.status()
                        && Arrays.equals(c.payload(), java.payload())
                        && Arrays.equals(c.payload(), GraphClient.loopbackCommand(value));
                allAlike &= alike;
                out.printf("0x%016x    %-26s  %-26s  %s%n", value, describe(c), describe(java), alike ? "yes" : "NO");
            }
            out.println();
            for (DiscoveredPlugin graph : graphs) {
                double micros = timeLoopbacks(worker, graph) / 1_000.0;
                out.printf(
                        "%-18s  %,d loopbacks, %.2f us each (submit + progress, in process)%n",
                        graph.info().name(), rounds, micros);
            }
            out.println(
                    allAlike ? "\nBoth graph plugins answered byte for byte alike." : "\nThe graph plugins DIFFER.");
            boolean serviceOk = runService(plugins.pluginPath(), out);
            return allAlike && serviceOk ? 0 : Main.FAILED;
        }
    }

    private boolean runService(String pluginPath, PrintWriter out) {
        long start = System.nanoTime();
        boolean ok;
        try (PrivateDaemon daemon = PrivateDaemon.start(pluginPath, workerUser);
                UromService service = UromService.connect(daemon.address(), Optional.empty())) {
            out.printf(
                    "%n== Through the service ==%nPrivate daemon on %s, started in %.1f ms (logs in %s)%n",
                    daemon.address(), millis(System.nanoTime() - start), daemon.logDir());
            BootstrapDemo bootstrap = new BootstrapDemo(service, out);
            int serviceRounds = Math.max(100, rounds / 10);
            ok = bootstrap.run(NATIVE_GRAPH, 0, serviceRounds);
            ok &= bootstrap.run(JAVA_GRAPH, BootstrapDemo.WORKERS, serviceRounds);
            out.printf(
                    "%nPing-pong between two rank processes, rank 0 served by the C sandbox plugin, rank 1 by the Java one:%n");
            ok &= PingPongCommand.runPrivate(daemon.address(), 2, "hello from urom demo", "mixed", 100, out) == 0;
        } catch (UromException e) {
            throw new CliFailure("private daemon: " + e.getMessage());
        } catch (java.io.IOException e) {
            throw new CliFailure("ping-pong: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure("interrupted");
        }
        long left = ProcessHandle.current().children().count();
        out.printf("%nDaemon stopped; worker processes left: %d%n", left);
        out.println(ok && left == 0 ? "The service demo passed." : "The service demo FAILED.");
        return ok && left == 0;
    }

    private double timeLoopbacks(LocalWorker worker, DiscoveredPlugin graph) {
        byte[] command = GraphClient.loopbackCommand(7);
        for (int i = 0; i < rounds / 4; i++) {
            worker.call(graph, command, TIMEOUT);
        }
        long start = System.nanoTime();
        for (int i = 0; i < rounds; i++) {
            WorkerNotification answer = worker.call(graph, command, TIMEOUT).notification();
            if (!answer.status().isSuccess()) {
                throw new CliFailure(graph.info().name() + " answered " + answer.status() + " during the timing run");
            }
        }
        return (double) (System.nanoTime() - start) / Math.max(1, rounds);
    }

    private static String describe(WorkerNotification answer) {
        if (!answer.status().isSuccess()) {
            return answer.status().name();
        }
        byte[] payload = answer.payload();
        return payload.length == 16
                ? String.format(
                        "data 0x%016x",
                        ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).getLong(8))
                : HexFormat.of().formatHex(payload);
    }

    private static double millis(long nanos) {
        return nanos / 1_000_000.0;
    }
}
