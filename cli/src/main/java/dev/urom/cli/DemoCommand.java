package dev.urom.cli;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code urom demo}: runs the graph plugin's LOOPBACK on the C plugin and on the Java plugin, both
 * loaded into one worker host in this process, checks that they answer byte for byte alike, and
 * prints what it did with timings. Exit status 1 when anything differs or fails.
 */
@Command(name = "demo", description = "Loop values back through the C and the Java graph plugins and compare.")
final class DemoCommand implements Callable<Integer> {
    static final String NATIVE_GRAPH = "worker_graph";
    static final String JAVA_GRAPH = "worker_graph_java";
    private static final long LOOPBACK = 0;
    private static final long[] VALUES = {0, 1, 42, 0xdead_beefL, -1, Long.MIN_VALUE};
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Spec CommandSpec spec;

    @Option(names = "--rounds", defaultValue = "20000", paramLabel = "N", description = "Loopbacks per plugin for the timing (default: ${DEFAULT-VALUE}).")
    int rounds;

    private final Environment environment;

    DemoCommand(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        long scanStart = System.nanoTime();
        LocalPlugins plugins = LocalPlugins.scan(environment);
        out.printf("Scanned UROM_PLUGIN_PATH in %.1f ms: %d plugin(s), %d rejected%n",
                millis(System.nanoTime() - scanStart), plugins.result().plugins().size(), plugins.result().rejected().size());
        List<DiscoveredPlugin> graphs = List.of(plugins.require(NATIVE_GRAPH), plugins.require(JAVA_GRAPH));
        for (DiscoveredPlugin graph : graphs) {
            out.printf("  %-18s id 0x%016x  version %s  %-6s  %s%n", graph.info().name(), graph.info().id(),
                    Long.toUnsignedString(graph.info().version()), PluginsCommand.kind(graph), graph.path());
        }

        long openStart = System.nanoTime();
        try (LocalWorker worker = LocalWorker.open(graphs)) {
            out.printf("Opened both in one worker host in %.1f ms%n%n", millis(System.nanoTime() - openStart));
            boolean allAlike = true;
            out.printf("%-22s  %-26s  %-26s  %s%n", "LOOPBACK value", NATIVE_GRAPH, JAVA_GRAPH, "alike");
            for (long value : VALUES) {
                WorkerNotification c = worker.call(graphs.get(0), loopback(value), TIMEOUT);
                WorkerNotification java = worker.call(graphs.get(1), loopback(value), TIMEOUT);
                boolean alike = c.status() == UromStatus.SUCCESS && c.status() == java.status()
                        && Arrays.equals(c.payload(), java.payload()) && Arrays.equals(c.payload(), loopback(value));
                allAlike &= alike;
                out.printf("0x%016x    %-26s  %-26s  %s%n", value, describe(c), describe(java), alike ? "yes" : "NO");
            }
            out.println();
            for (DiscoveredPlugin graph : graphs) {
                double micros = timeLoopbacks(worker, graph) / 1_000.0;
                out.printf("%-18s  %,d loopbacks, %.2f us each (submit + progress, in process)%n", graph.info().name(), rounds, micros);
            }
            out.println(allAlike ? "\nBoth graph plugins answered byte for byte alike." : "\nThe graph plugins DIFFER.");
            return allAlike ? 0 : Main.FAILED;
        }
    }

    private double timeLoopbacks(LocalWorker worker, DiscoveredPlugin graph) {
        byte[] command = loopback(7);
        for (int i = 0; i < rounds / 4; i++) {
            worker.call(graph, command, TIMEOUT);
        }
        long start = System.nanoTime();
        for (int i = 0; i < rounds; i++) {
            WorkerNotification answer = worker.call(graph, command, TIMEOUT);
            if (!answer.status().isSuccess()) {
                throw new CliFailure(graph.info().name() + " answered " + answer.status() + " during the timing run");
            }
        }
        return (double) (System.nanoTime() - start) / Math.max(1, rounds);
    }

    static byte[] loopback(long value) {
        return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(LOOPBACK).putLong(value).array();
    }

    private static String describe(WorkerNotification answer) {
        if (!answer.status().isSuccess()) {
            return answer.status().name();
        }
        byte[] payload = answer.payload();
        return payload.length == 16
                ? String.format("data 0x%016x", ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).getLong(8))
                : HexFormat.of().formatHex(payload);
    }

    private static double millis(long nanos) {
        return nanos / 1_000_000.0;
    }
}
