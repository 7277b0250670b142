package dev.urom.bench;

import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.nativebridge.NativePlugin;
import dev.urom.service.metrics.WorkerStats;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Commands per second through a {@link WorkerHost} in this process: each operation submits one
 * graph LOOPBACK and makes progress until its notification comes back. {@code plugin} picks the C
 * plugin ({@code worker_graph.so}, through JNA) or the Java one ({@code worker_graph_java.jar}, in
 * its own class loader); see {@link GraphPluginFiles} for where they are found.
 *
 * <p>{@code loopbackCounted} does the same and also records each command in a {@link WorkerStats}
 * as a worker process does for its metrics; its ratio to {@code loopback} in the same run is the
 * cost of the counting.
 *
 * <p>One thread per host, as the host requires.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class WorkerHostThroughputBench {
    private static final long PLUGIN_ID = 1;

    @Param({"native", "java"})
    public String plugin;

    private WorkerHost host;
    private final WorkerStats stats = new WorkerStats(Map.of(PLUGIN_ID, "worker_graph"));
    private long context;
    private WorkerNotification answer;
    private final Consumer<WorkerNotification> sink = n -> answer = n;

    @Setup(Level.Trial)
    public void openHost() {
        String fileName = switch (plugin) {
            case "native" -> GraphPluginFiles.NATIVE_FILE;
            case "java" -> GraphPluginFiles.JAVA_FILE;
            default -> throw new IllegalArgumentException("plugin '" + plugin + "' is neither native nor java");
        };
        PluginLoader loader = PluginLoader.byExtension(NativePlugin::load, JavaPluginLoader::instantiate);
        host = WorkerHost.open(1, List.of(new PluginSpec(GraphPluginFiles.locate(fileName), PLUGIN_ID)), loader,
                WorkerHostConfig.defaults());
        if (!host.failures().isEmpty()) {
            throw new IllegalStateException("graph plugin did not open: " + host.failures().values());
        }
    }

    @TearDown(Level.Trial)
    public void closeHost() {
        host.close();
    }

    @Benchmark
    public WorkerNotification loopback() {
        long data = ++context;
        WorkerCommand command = new WorkerCommand(0, PLUGIN_ID, data, GraphClient.loopbackCommand(data));
        answer = null;
        host.submit(command);
        while (answer == null) {
            host.progress(sink);
        }
        if (answer.status() != UromStatus.SUCCESS || answer.uromContext() != data) {
            throw new IllegalStateException("LOOPBACK " + data + " answered " + answer.status() + " for context " + answer.uromContext());
        }
        return answer;
    }

    @Benchmark
    public WorkerNotification loopbackCounted() {
        long data = ++context;
        WorkerCommand command = new WorkerCommand(0, PLUGIN_ID, data, GraphClient.loopbackCommand(data));
        answer = null;
        stats.commandArrived(0, PLUGIN_ID, data, System.nanoTime());
        host.submit(command);
        while (answer == null) {
            host.progress(sink);
        }
        stats.notified(0, PLUGIN_ID, answer.uromContext(), answer.status(), System.nanoTime());
        if (answer.status() != UromStatus.SUCCESS || answer.uromContext() != data) {
            throw new IllegalStateException("LOOPBACK " + data + " answered " + answer.status() + " for context " + answer.uromContext());
        }
        return answer;
    }

}
