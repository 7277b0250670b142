// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.service.metrics.WorkerStats;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
    @Param({"native", "java"})
    public String plugin;

    private InProcessDispatch dispatch;
    private final WorkerStats stats = new WorkerStats(Map.of(InProcessDispatch.PLUGIN_ID, "worker_graph"));
    private long context;

    @Setup(Level.Trial)
    public void openHost() {
        dispatch = InProcessDispatch.open(plugin);
    }

    @TearDown(Level.Trial)
    public void closeHost() {
        dispatch.close();
    }

    @Benchmark
    public WorkerNotification loopback() {
        return dispatch.loopback(++context);
    }

    @Benchmark
    public WorkerNotification loopbackCounted() {
        long data = ++context;
        long pluginId = InProcessDispatch.PLUGIN_ID;
        stats.commandArrived(0, pluginId, data, System.nanoTime());
        dispatch.host().submit(new WorkerCommand(0, pluginId, data, GraphClient.loopbackCommand(data)));
        WorkerNotification answer = dispatch.nextAnswer(data);
        stats.notified(0, pluginId, answer.uromContext(), answer.status(), System.nanoTime());
        return answer;
    }
}
