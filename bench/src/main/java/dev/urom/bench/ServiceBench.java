// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.host.Plugin;
import dev.urom.host.PluginVersions;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.daemon.DaemonSecurity;
import dev.urom.service.daemon.WorkerInfo;
import dev.urom.spi.UromException;
import dev.urom.wire.Message;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The service side of the end-to-end benchmark: a private daemon started in this process on a
 * Unix socket in the run's folder, with copies of both graph plugins as its plugin path; the host
 * API ({@link UromService}, {@link Worker}, {@link GraphClient}) drives one worker process loaded
 * with both plugins, lets whatever else is to be measured against the same daemon run ({@link
 * SameDaemon}), then starts and stops workers to time their start.
 *
 * <p>Not thread-safe. Failures throw
 * {@link IllegalStateException} with one line; the daemon and every worker are gone when
 * {@link #run} returns or throws.
 */
final class ServiceBench {
    static final String NATIVE_PLUGIN_NAME = "worker_graph";
    static final String JAVA_PLUGIN_NAME = "worker_graph_java";
    /** A plugin id, only to size a LOOPBACK frame; ids are all 8 bytes on the wire. */
    static final long FRAME_SIZE_PLUGIN_ID = 1;

    private static final long ANSWER_TIMEOUT_S = 60;
    private static final Duration WORKER_EXIT_WAIT = Duration.ofSeconds(20);

    /**
     * What one graph plugin measured through the service.
     *
     * @param roundTripCpu the CPU time of the host (this JVM, every thread: the host API, and the
     *     daemon, idle meanwhile) and of the worker process over the measured round trips
     * @param throughputCpu the same over the measured commands with several in flight
     */
    record PluginResult(LatencySummary roundTrip, double opsPerSecond, CpuCost roundTripCpu, CpuCost throughputCpu) {}

    /** Everything the service measured; {@code plugins} by kind ({@code native}, {@code java}). */
    record Result(Map<String, PluginResult> plugins, double workerStartP50Ms) {
        PluginResult plugin(String kind) {
            PluginResult result = plugins.get(kind);
            if (result == null) {
                throw new IllegalStateException("no figures for the " + kind + " graph plugin");
            }
            return result;
        }
    }

    /**
     * Something else measured against the daemon of the run while it is up (after the Java host's
     * figures, before the worker starts), given the daemon (its address, its workers' processes);
     * every worker it started must be stopping when it returns.
     */
    interface SameDaemon<T> {
        T measure(Daemon daemon) throws IOException, InterruptedException;
    }

    /** What {@link #run} measured: the Java host's figures, then the others'. */
    record WithSameDaemon<T>(Result service, T alongside) {}

    private final Path workDir;
    private final String workerUser;
    private final Consumer<String> progress;

    ServiceBench(Path workDir, String workerUser, Consumer<String> progress) {
        this.workDir = workDir;
        this.workerUser = workerUser;
        this.progress = progress;
    }

    /** A LOOPBACK of {@code value}, as the wire carries it. */
    static Message.Command loopbackCommand(long value) {
        return new Message.Command(FRAME_SIZE_PLUGIN_ID, value, GraphClient.loopbackCommand(value));
    }

    /**
     * The configuration of a private daemon: its socket and log folder in {@code workDir}, plugins
     * from {@code pluginDir}, workers as {@code workerUser} (null: the daemon's default) and
     * dumpable; configures the daemon's logging. The benches read their workers' {@code /proc}
     * (memory, descriptors), which an undumpable worker closes to everyone but root; being dumpable
     * changes neither a worker's time nor its memory.
     */
    static DaemonConfig privateDaemon(Path workDir, Path pluginDir, String workerUser) {
        return Daemon.configureLogging(DaemonConfig.builder()
                .listen(ServiceAddress.parse("unix:" + workDir.resolve("daemon").resolve("daemon.sock")))
                .logDir(workDir.resolve("log"))
                .pluginPath(pluginDir.toString())
                .security(DaemonSecurity.builder()
                        .workerUser(workerUser)
                        .dumpableWorkers(true)
                        .build())
                .build());
    }

    /** The Java host's figures, with {@code alongside} measured against the same daemon. */
    <T> WithSameDaemon<T> run(int rounds, int throughputRounds, int inFlight, int starts, SameDaemon<T> alongside)
            throws IOException, InterruptedException {
        Path pluginDir = Files.createDirectories(workDir.resolve("plugins"));
        for (String file : List.of(GraphPluginFiles.NATIVE_FILE, GraphPluginFiles.JAVA_FILE)) {
            Files.copy(GraphPluginFiles.locate(file), pluginDir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        DaemonConfig config = privateDaemon(workDir, pluginDir, workerUser);
        progress.accept("service: daemon on " + config.listen() + ", plugins " + pluginDir);
        try (Daemon daemon = Daemon.start(config);
                UromService service = UromService.connect(daemon.address().toString())) {
            List<Plugin> plugins = service.plugins();
            long nativeId = pluginId(plugins, NATIVE_PLUGIN_NAME);
            long javaId = pluginId(plugins, JAVA_PLUGIN_NAME);
            long mask = nativeId | javaId;
            PluginResult nativeResult;
            PluginResult javaResult;
            try (Worker worker = started(service, mask)) {
                Map<String, Long> path = new LinkedHashMap<>();
                path.put("host", ProcessHandle.current().pid());
                path.put("worker", onlyWorkerPid(daemon));
                progress.accept("service: warming up both plugins");
                warmUp(worker, nativeId, rounds, throughputRounds, inFlight);
                warmUp(worker, javaId, rounds, throughputRounds, inFlight);
                progress.accept("service: C plugin, " + rounds + " round trips, then " + throughputRounds + " with "
                        + inFlight + " in flight");
                nativeResult = measure(worker, nativeId, rounds, throughputRounds, inFlight, path);
                progress.accept("service: Java plugin, " + rounds + " round trips, then " + throughputRounds + " with "
                        + inFlight + " in flight");
                javaResult = measure(worker, javaId, rounds, throughputRounds, inFlight, path);
            }
            awaitNoWorkers(daemon);
            T other = alongside.measure(daemon);
            awaitNoWorkers(daemon);
            progress.accept("service: " + starts + " worker starts (after one to warm up)");
            long[] startNs = new long[starts];
            for (int i = -1; i < starts; i++) {
                long began = System.nanoTime();
                Worker worker = started(service, mask);
                long took = System.nanoTime() - began;
                worker.close();
                awaitNoWorkers(daemon);
                if (i >= 0) {
                    startNs[i] = took;
                }
            }
            return new WithSameDaemon<>(
                    new Result(
                            Map.of("native", nativeResult, "java", javaResult),
                            LatencySummary.of(startNs).p50Ns() / 1e6),
                    other);
        } catch (UromException e) {
            throw new IllegalStateException("service: " + e.status() + ": " + e.getMessage());
        }
    }

    /** The id of the sample plugin {@code name} (version 1) in the daemon's list. */
    static long pluginId(List<Plugin> plugins, String name) throws UromException {
        return PluginVersions.require(plugins, name, 1).id();
    }

    static Worker started(UromService service, long mask) throws UromException, InterruptedException {
        return started(service, mask, List.of());
    }

    /** A started worker of the plugins {@code mask} with the environment entries {@code env} ({@code NAME=value}). */
    static Worker started(UromService service, long mask, List<String> env) throws UromException, InterruptedException {
        Worker worker = service.newWorker()
                .plugins(mask)
                .env(env.toArray(String[]::new))
                .build();
        try {
            return worker.start().get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UromException u) {
                throw u;
            }
            throw new IllegalStateException("worker start failed: " + e.getCause());
        } catch (TimeoutException e) {
            worker.close();
            throw new IllegalStateException("worker did not start within " + ANSWER_TIMEOUT_S + " s");
        }
    }

    static void awaitNoWorkers(Daemon daemon) throws InterruptedException {
        long deadline = System.nanoTime() + WORKER_EXIT_WAIT.toNanos();
        while (!daemon.workers().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("workers " + daemon.workers() + " still running "
                        + WORKER_EXIT_WAIT.toSeconds() + " s after their host stopped them");
            }
            Thread.sleep(5);
        }
    }

    /** The same traffic as {@link #measure}, unmeasured: both plugins are warmed up before either is measured. */
    private static void warmUp(Worker worker, long pluginId, int rounds, int throughputRounds, int inFlight)
            throws InterruptedException {
        roundTrips(worker, pluginId, rounds);
        pipelined(worker, pluginId, throughputRounds, inFlight);
    }

    /** The figures of one plugin, with the CPU time of the processes of {@code path} (role → pid) over each phase. */
    private static PluginResult measure(
            Worker worker, long pluginId, int rounds, int throughputRounds, int inFlight, Map<String, Long> path)
            throws InterruptedException {
        CpuCost.Snapshot roundTripsBegin = CpuCost.snapshot(path);
        LatencySummary latency = LatencySummary.of(roundTrips(worker, pluginId, rounds));
        CpuCost.Snapshot pipelinedBegin = CpuCost.snapshot(path);
        double opsPerSecond = pipelined(worker, pluginId, throughputRounds, inFlight);
        CpuCost.Snapshot end = CpuCost.snapshot(path);
        return new PluginResult(
                latency,
                opsPerSecond,
                CpuCost.between(roundTripsBegin, pipelinedBegin, rounds),
                CpuCost.between(pipelinedBegin, end, throughputRounds));
    }

    /** The process id of the daemon's one running worker. */
    /** {@code daemon}'s workers as the C host's runs need them. */
    static CHostBaseline.DaemonWorkers workersOf(Daemon daemon) {
        return new CHostBaseline.DaemonWorkers() {
            @Override
            public void awaitNone() throws InterruptedException {
                awaitNoWorkers(daemon);
            }

            @Override
            public long onlyPid() {
                return onlyWorkerPid(daemon);
            }
        };
    }

    static long onlyWorkerPid(Daemon daemon) {
        List<WorkerInfo> workers =
                daemon.workers().stream().filter(w -> w.pid() > 0).toList();
        if (workers.size() != 1) {
            throw new IllegalStateException(
                    "expected one worker process, the daemon has " + workers.size() + ": " + workers);
        }
        return workers.get(0).pid();
    }

    private static long[] roundTrips(Worker worker, long pluginId, int rounds) throws InterruptedException {
        long[] samples = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            long echoed = answer(GraphClient.loopback(worker, pluginId, i));
            samples[i] = System.nanoTime() - start;
            if (echoed != i) {
                throw new IllegalStateException("LOOPBACK of " + i + " came back as " + echoed);
            }
        }
        return samples;
    }

    private static long answer(CompletableFuture<Long> loopback) throws InterruptedException {
        try {
            return loopback.get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("LOOPBACK failed: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new IllegalStateException("LOOPBACK unanswered after " + ANSWER_TIMEOUT_S + " s");
        }
    }

    /** Commands per second over {@code total} LOOPBACKs, each answer sending the next. */
    private static double pipelined(Worker worker, long pluginId, int total, int inFlight) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(total);
        AtomicInteger issued = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable[] next = new Runnable[1];
        next[0] = () -> {
            int value = issued.getAndIncrement();
            if (value >= total) {
                return;
            }
            GraphClient.loopback(worker, pluginId, value).whenComplete((echoed, error) -> {
                if (error != null || echoed != value) {
                    failure.compareAndSet(
                            null,
                            error != null
                                    ? error
                                    : new IllegalStateException("LOOPBACK of " + value + " came back as " + echoed));
                    while (done.getCount() > 0) {
                        done.countDown();
                    }
                    return;
                }
                done.countDown();
                next[0].run();
            });
        };
        long start = System.nanoTime();
        for (int i = 0; i < Math.min(inFlight, total); i++) {
            next[0].run();
        }
        if (!done.await(ANSWER_TIMEOUT_S, TimeUnit.SECONDS)) {
            throw new IllegalStateException(
                    done.getCount() + " of " + total + " LOOPBACKs unanswered after " + ANSWER_TIMEOUT_S + " s");
        }
        long elapsed = System.nanoTime() - start;
        if (failure.get() != null) {
            Throwable cause = failure.get().getCause() != null ? failure.get().getCause() : failure.get();
            throw new IllegalStateException("LOOPBACK failed: " + cause.getMessage());
        }
        return total / (elapsed / 1e9);
    }
}
