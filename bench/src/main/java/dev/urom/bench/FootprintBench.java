// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.host.WorkerInfo;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.spi.UromException;
import dev.urom.wire.Protocol;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * What a worker costs to have: {@code java -cp bench/target/benchmarks.jar
 * dev.urom.bench.FootprintBench [options]} (see {@link FootprintOptions}). It runs the
 * distribution's own {@code bin/urom daemon} (so workers get the class path and JVM options a user's
 * daemon gives them) on a Unix socket in a run folder, with the two graph plugins, and measures:
 *
 * <ol>
 *   <li>the floor: a JVM that does nothing ({@link FootprintFloor}) started with the workers' JVM
 *       options, its start p50 (wall and CPU) and its memory;
 *   <li>one worker alone for each of C plugin only, Java plugin only and both, after 100 LOOPBACKs
 *       to each of its plugins: resident and proportional set, and the CPU it used to get there;
 *   <li>{@code --starts} single starts of a worker with both plugins, one after the other: p50 of
 *       request to RUNNING, and the worker's CPU at RUNNING;
 *   <li>{@code --workers} workers requested at once, each by a host connection of its own (as the ranks
 *       of a node would), C and Java plugin alternately: the time until
 *       the last is RUNNING, each one's CPU at that moment, then one LOOPBACK through each (every
 *       answer checked) and each one's memory with all of them up.
 * </ol>
 *
 * The first worker of a fresh daemon dumps the class-data archive of the worker class path; one such
 * worker runs and ends before anything is measured, as on any daemon after its first worker.
 *
 * <p>Not thread-safe (one run at a time). The daemon, every worker and the run folder are gone when
 * {@link #run} returns or throws. Exit status of {@link #main}: 0, 1 with one line when a step fails,
 * 2 on a usage error.
 */
public final class FootprintBench {
    private static final long ANSWER_TIMEOUT_S = 120;
    private static final long DAEMON_START_S = 60;
    private static final int WARM_LOOPBACKS = 100;
    private static final String LISTENING = "urom daemon: listening on ";

    private FootprintBench() {}

    /** The workers' kinds by the graph plugins they load. */
    enum Kind {
        C("C plugin"),
        JAVA("Java plugin"),
        BOTH("both plugins");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** One process's figures: its memory, and the CPU it had used when measured (ms). */
    record Measured(ProcFacts.Memory memory, double cpuMs) {}

    /** Starts: each one's wall time (ns), their p50 (ms) and the CPU of the process at that moment (p50, ms). */
    record Starts(int count, double wallP50Ms, double cpuP50Ms, long[] wallNs) {}

    /**
     * Many workers requested at once.
     *
     * @param toRunningMs from the first request to the last RUNNING
     * @param toRunningNs from the first request to each one's RUNNING
     * @param byKind the workers' mean figures by kind
     * @param totalPssKb every worker's proportional set summed
     * @param daemonRssKb the daemon's resident set with all of them up
     */
    record AtOnce(
            int workers,
            double toRunningMs,
            long[] toRunningNs,
            Map<Kind, Measured> byKind,
            long totalPssKb,
            long daemonRssKb) {}

    record Result(
            FootprintOptions options,
            Starts floorStarts,
            Measured floor,
            Map<Kind, Measured> alone,
            Starts workerStarts,
            AtOnce atOnce) {}

    public static void main(String[] args) {
        FootprintOptions options;
        try {
            options = FootprintOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("FootprintBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            Result result = run(options, line -> System.err.println("footprint: " + line));
            System.out.print(table(result));
            if (options.json() != null) {
                Files.writeString(options.json(), json(result), StandardCharsets.UTF_8);
                System.out.println("JSON written to " + options.json());
                writeChart(options.json(), result);
            }
            System.exit(0);
        } catch (IOException | RuntimeException e) {
            System.err.println("FootprintBench: " + e.getMessage());
            System.exit(1);
        } catch (InterruptedException e) {
            System.exit(1);
        }
    }

    static Result run(FootprintOptions options, Consumer<String> progress) throws IOException, InterruptedException {
        try (RunFolder run = new RunFolder("urom-footprint");
                ChildProcesses children = new ChildProcesses()) {
            progress.accept("floor: " + options.starts() + " starts of a JVM that does nothing");
            Path floorClasses = floorClassPath(run.path().resolve("floor"));
            List<Long> floorWall = new ArrayList<>();
            List<Double> floorCpu = new ArrayList<>();
            Measured floor = null;
            for (int i = -1; i < options.starts(); i++) {
                List<String> command = new ArrayList<>(List.of(
                        options.javaHome().resolve("bin").resolve("java").toString()));
                command.addAll(floorJvmOptions(options));
                command.addAll(List.of("-cp", floorClasses.toString(), FootprintFloor.class.getName()));
                long began = System.nanoTime();
                Path stderr = run.path().resolve("floor.stderr");
                Process process = children.start(new ProcessBuilder(command).redirectError(stderr.toFile()));
                new ChildOutput(process, "the floor JVM", stderr).expect("READY", Duration.ofSeconds(DAEMON_START_S));
                long took = System.nanoTime() - began;
                Measured now = measure(process.pid());
                if (i >= 0) {
                    floorWall.add(took);
                    floorCpu.add(now.cpuMs());
                }
                floor = now;
                process.getOutputStream().close();
                process.waitFor(DAEMON_START_S, TimeUnit.SECONDS);
            }
            Starts floorStarts = starts(floorWall, floorCpu);

            Path pluginDir = Files.createDirectories(run.path().resolve("plugins"));
            for (String file : List.of(GraphPluginFiles.NATIVE_FILE, GraphPluginFiles.JAVA_FILE)) {
                Files.copy(GraphPluginFiles.locate(file), pluginDir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
            Process daemon = children.start(daemonCommand(options, run.path(), pluginDir));
            String address = listeningAddress(daemon, run.path().resolve("daemon.stderr"));
            progress.accept("daemon pid " + daemon.pid() + " on " + address + ", worker JVM options "
                    + options.workerJvmOptions());
            try (UromService service = UromService.connect(address)) {
                long nativeId = ServiceBench.pluginId(service.plugins(), ServiceBench.NATIVE_PLUGIN_NAME);
                long javaId = ServiceBench.pluginId(service.plugins(), ServiceBench.JAVA_PLUGIN_NAME);
                Map<Kind, Long> masks = Map.of(Kind.C, nativeId, Kind.JAVA, javaId, Kind.BOTH, nativeId | javaId);

                progress.accept("one worker to make the class-data archive");
                awaitExit(service, ServiceBench.started(service, masks.get(Kind.BOTH)), daemon.pid());

                Map<Kind, Measured> alone = new LinkedHashMap<>();
                for (Kind kind : Kind.values()) {
                    progress.accept("one worker alone, " + kind.label);
                    Worker worker = ServiceBench.started(service, masks.get(kind));
                    for (long id : List.of(nativeId, javaId)) {
                        if ((masks.get(kind) & id) != 0) {
                            for (int v = 0; v < WARM_LOOPBACKS; v++) {
                                check(GraphClient.loopback(worker, id, v), v);
                            }
                        }
                    }
                    alone.put(kind, measure(pid(service, worker)));
                    awaitExit(service, worker, daemon.pid());
                }

                progress.accept(options.starts() + " single starts, both plugins");
                List<Long> wall = new ArrayList<>();
                List<Double> cpu = new ArrayList<>();
                for (int i = 0; i < options.starts(); i++) {
                    long began = System.nanoTime();
                    Worker worker = ServiceBench.started(service, masks.get(Kind.BOTH));
                    wall.add(System.nanoTime() - began);
                    cpu.add(measure(pid(service, worker)).cpuMs());
                    awaitExit(service, worker, daemon.pid());
                }
                Starts workerStarts = starts(wall, cpu);

                progress.accept(options.workers() + " workers requested at once, each by a host connection of its own");
                AtOnce atOnce = atOnce(
                        service,
                        address,
                        options.workers(),
                        nativeId,
                        javaId,
                        daemon.pid(),
                        options.holdSeconds(),
                        progress);
                return new Result(options, floorStarts, floor, alone, workerStarts, atOnce);
            } catch (UromException e) {
                throw new IllegalStateException("footprint: " + e.status() + ": " + e.getMessage());
            } finally {
                daemon.destroy();
                daemon.waitFor(DAEMON_START_S, TimeUnit.SECONDS);
            }
        }
    }

    /** {@code count} workers requested at once, each by a host connection of its own, as the ranks of a node would. */
    private static AtOnce atOnce(
            UromService service,
            String address,
            int count,
            long nativeId,
            long javaId,
            long daemonPid,
            int holdSeconds,
            Consumer<String> progress)
            throws UromException, InterruptedException {
        List<Worker> workers = new ArrayList<>();
        List<UromService> hosts = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                hosts.add(UromService.connect(address));
            }
            List<CompletableFuture<Worker>> starts = new ArrayList<>();
            long began = System.nanoTime();
            for (int i = 0; i < count; i++) {
                Worker worker = hosts.get(i)
                        .newWorker()
                        .plugins(i % 2 == 0 ? nativeId : javaId)
                        .build();
                workers.add(worker);
                starts.add(worker.start());
            }
            Map<Long, Double> cpuAtRunning = new LinkedHashMap<>();
            AtomicLongArray running = new AtomicLongArray(count);
            for (int i = 0; i < count; i++) {
                int index = i;
                starts.get(i).thenRun(() -> running.set(index, System.nanoTime()));
            }
            for (int i = 0; i < count; i++) {
                await(starts.get(i), "worker " + i + " of " + count + " to start");
            }
            long lastRunning = System.nanoTime();
            long[] toRunning = new long[count];
            for (int i = 0; i < count; i++) {
                toRunning[i] = (running.get(i) == 0 ? lastRunning : running.get(i)) - began;
            }
            Map<Long, Long> pids = service.workersInfo(Protocol.ALL_GROUPS).stream()
                    .collect(Collectors.toMap(WorkerInfo::id, WorkerInfo::pid));
            for (Worker worker : workers) {
                cpuAtRunning.put(worker.id(), cpuMs(pidOf(pids, worker)));
            }
            for (int i = 0; i < count; i++) {
                check(GraphClient.loopback(workers.get(i), i % 2 == 0 ? nativeId : javaId, i), i);
            }
            Map<Kind, List<Measured>> byKind = new LinkedHashMap<>();
            long totalPss = 0;
            for (int i = 0; i < count; i++) {
                Worker worker = workers.get(i);
                ProcFacts.Memory memory = memoryOf(pidOf(pids, worker));
                totalPss += memory.pssKb();
                byKind.computeIfAbsent(i % 2 == 0 ? Kind.C : Kind.JAVA, k -> new ArrayList<>())
                        .add(new Measured(memory, cpuAtRunning.get(worker.id())));
            }
            long daemonRss =
                    ProcFacts.usage(daemonPid).map(ProcFacts.Usage::rssKb).orElse(0L);
            Map<Kind, Measured> means = new LinkedHashMap<>();
            byKind.forEach((kind, list) -> means.put(kind, mean(list)));
            if (holdSeconds > 0) {
                progress.accept("holding the workers up for " + holdSeconds + " s: pids " + pids.values());
                Thread.sleep(TimeUnit.SECONDS.toMillis(holdSeconds));
            }
            return new AtOnce(count, (lastRunning - began) / 1e6, toRunning, means, totalPss, daemonRss);
        } finally {
            workers.forEach(Worker::close);
            awaitNoWorkers(service, daemonPid);
            hosts.forEach(UromService::close);
        }
    }

    private static Measured mean(List<Measured> processes) {
        int n = processes.size();
        return new Measured(
                new ProcFacts.Memory(
                        processes.stream().mapToLong(p -> p.memory().rssKb()).sum() / n,
                        processes.stream().mapToLong(p -> p.memory().pssKb()).sum() / n,
                        processes.stream()
                                        .mapToLong(p -> p.memory().pssAnonKb())
                                        .sum()
                                / n,
                        processes.stream()
                                        .mapToLong(p -> p.memory().pssFileKb())
                                        .sum()
                                / n),
                processes.stream().mapToDouble(Measured::cpuMs).average().orElse(0));
    }

    /** The floor's JVM options: the workers' defaults (as the daemon gives them) and then the run's own. */
    private static List<String> floorJvmOptions(FootprintOptions options) {
        List<String> jvm = new ArrayList<>(dev.urom.service.daemon.DaemonConfig.DEFAULT_WORKER_JVM_OPTIONS);
        jvm.addAll(options.workerJvmOptions());
        return jvm;
    }

    /** A folder holding {@link FootprintFloor}'s class file alone, copied out of this class path. */
    private static Path floorClassPath(Path dir) throws IOException {
        String resource = FootprintFloor.class.getName().replace('.', '/') + ".class";
        Path target = dir.resolve(resource);
        Files.createDirectories(target.getParent());
        try (InputStream in = FootprintBench.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no " + resource + " on the class path");
            }
            Files.copy(in, target);
        }
        return dir;
    }

    private static ProcessBuilder daemonCommand(FootprintOptions options, Path runDir, Path pluginDir)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(
                options.dist().resolve("bin").resolve("urom").toString(),
                "daemon",
                "--listen",
                "unix:" + Files.createDirectories(runDir.resolve("daemon")).resolve("daemon.sock"),
                "--log-dir",
                runDir.resolve("log").toString(),
                "--max-workers",
                Integer.toString(Integer.highestOneBit(options.workers() * 2 - 1)),
                "--max-connections-per-principal",
                Integer.toString(options.workers() + 1),
                "--max-connections",
                Integer.toString(options.workers() + 8),
                // smaps_rollup of an undumpable worker is closed to everyone but root
                "--dumpable-workers"));
        for (String option : options.workerJvmOptions()) {
            command.add("--worker-jvm-option=" + option);
        }
        if (options.workerUser() != null) {
            command.addAll(List.of("--worker-user", options.workerUser()));
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(runDir.resolve("daemon.stderr").toFile());
        builder.environment().put("UROM_PLUGIN_PATH", pluginDir.toString());
        builder.environment()
                .put(
                        "PATH",
                        options.javaHome().resolve("bin")
                                + java.io.File.pathSeparator
                                + System.getenv().getOrDefault("PATH", ""));
        builder.environment()
                .put(
                        "UROM_DAEMON_JAVA_OPTS",
                        "-Xmx64m -XX:MaxMetaspaceSize=128m -Djava.io.tmpdir="
                                + Files.createDirectories(runDir.resolve("daemon-tmp")));
        return builder;
    }

    /** The address of the daemon's {@code urom daemon: listening on ADDRESS (log: ...)} line. */
    private static String listeningAddress(Process daemon, Path stderr) throws InterruptedException {
        String rest =
                new ChildOutput(daemon, "the daemon", stderr).expect(LISTENING, Duration.ofSeconds(DAEMON_START_S));
        int end = rest.indexOf(' ');
        return end < 0 ? rest.strip() : rest.substring(0, end);
    }

    private static long pid(UromService service, Worker worker) throws UromException {
        return pidOf(
                service.workersInfo(Protocol.ALL_GROUPS).stream()
                        .collect(Collectors.toMap(WorkerInfo::id, WorkerInfo::pid)),
                worker);
    }

    private static long pidOf(Map<Long, Long> pids, Worker worker) {
        Long pid = pids.get(worker.id());
        if (pid == null || pid <= 0) {
            throw new IllegalStateException("the daemon reports no process for " + worker);
        }
        return pid;
    }

    private static Measured measure(long pid) {
        return new Measured(memoryOf(pid), cpuMs(pid));
    }

    private static ProcFacts.Memory memoryOf(long pid) {
        return ProcFacts.memory(pid)
                .orElseThrow(() -> new IllegalStateException("cannot read /proc/" + pid + "/smaps_rollup"));
    }

    private static double cpuMs(long pid) {
        return ProcessCpu.lifetimeNanos(pid) / 1e6;
    }

    /**
     * Waits until the daemon {@code daemonPid} has no live children and reports no workers to
     * {@code service}: its workers have all ended and left its table.
     */
    private static void awaitNoWorkers(UromService service, long daemonPid) throws InterruptedException, UromException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_TIMEOUT_S);
        while (ProcFacts.children(daemonPid).stream().anyMatch(c -> !c.zombie())
                || !service.workersInfo(Protocol.ALL_GROUPS).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "workers of the daemon still run " + ANSWER_TIMEOUT_S + " s after they were stopped");
            }
            Thread.sleep(5);
        }
    }

    private static void awaitExit(UromService service, Worker worker, long daemonPid)
            throws InterruptedException, UromException {
        worker.close();
        awaitNoWorkers(service, daemonPid);
    }

    private static void check(CompletableFuture<Long> answer, long expected) throws InterruptedException {
        long echoed = await(answer, "the LOOPBACK of " + expected);
        if (echoed != expected) {
            throw new IllegalStateException("LOOPBACK of " + expected + " came back as " + echoed);
        }
    }

    private static <T> T await(CompletableFuture<T> future, String what) throws InterruptedException {
        try {
            return future.get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + " failed: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + ": nothing after " + ANSWER_TIMEOUT_S + " s");
        }
    }

    private static Starts starts(List<Long> wallNs, List<Double> cpuMs) {
        long[] wall = wallNs.stream().mapToLong(Long::longValue).toArray();
        return new Starts(wall.length, LatencySummary.of(wall).p50Ns() / 1e6, p50d(cpuMs), wall);
    }

    /**
     * {@code FILE-latency.png} next to {@code json}: the floor's starts, the single starts and the
     * workers requested at once, each to RUNNING, as a percentile chart.
     */
    static boolean writeChart(Path json, Result r) {
        Map<String, LatencyCurve> curves = new LinkedHashMap<>();
        curves.put(
                "floor: a JVM that does nothing, to READY",
                sortedCurve(r.floorStarts().wallNs()));
        curves.put("single worker starts", sortedCurve(r.workerStarts().wallNs()));
        curves.put(
                r.atOnce().workers() + " workers requested at once",
                sortedCurve(r.atOnce().toRunningNs()));
        Path png = LatencyChart.pathFor(json);
        return Plots.render(
                "FootprintBench",
                png,
                () -> Plots.latency(
                        png,
                        "FootprintBench: time to RUNNING",
                        "worker JVM options: defaults"
                                + (r.options().workerJvmOptions().isEmpty()
                                        ? ""
                                        : " + " + r.options().workerJvmOptions()),
                        "start to RUNNING",
                        curves));
    }

    private static LatencyCurve sortedCurve(long[] ns) {
        long[] sorted = ns.clone();
        Arrays.sort(sorted);
        return LatencyCurve.ofSorted(sorted, LatencyCurve.MAX_POINTS);
    }

    private static double p50d(List<Double> values) {
        double[] sorted =
                values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return sorted[(sorted.length - 1) / 2];
    }

    static String table(Result r) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT, "%-44s %10s %10s %10s %10s%n", "footprint (KiB, ms)", "PSS", "RSS", "PSS anon", "CPU ms"));
        row(out, "floor: a JVM that does nothing", r.floor());
        r.alone().forEach((kind, p) -> row(out, "one worker alone, " + kind.label, p));
        r.atOnce().byKind().forEach((kind, p) -> row(out, r.atOnce().workers() + " at once, mean of " + kind.label, p));
        out.append(String.format(
                Locale.ROOT,
                "%-44s %10.1f ms wall, %.1f ms CPU (p50 of %d)%n",
                "floor start",
                r.floorStarts().wallP50Ms(),
                r.floorStarts().cpuP50Ms(),
                r.floorStarts().count()));
        out.append(String.format(
                Locale.ROOT,
                "%-44s %10.1f ms wall, %.1f ms CPU (p50 of %d); %.1fx and %.1fx the floor's%n",
                "single worker start to RUNNING",
                r.workerStarts().wallP50Ms(),
                r.workerStarts().cpuP50Ms(),
                r.workerStarts().count(),
                r.workerStarts().wallP50Ms() / r.floorStarts().wallP50Ms(),
                r.workerStarts().cpuP50Ms() / r.floorStarts().cpuP50Ms()));
        out.append(String.format(
                Locale.ROOT,
                "%-44s %10.2f s; all PSS %.1f MiB; daemon RSS %.1f MiB%n",
                r.atOnce().workers() + " workers at once to RUNNING",
                r.atOnce().toRunningMs() / 1000,
                r.atOnce().totalPssKb() / 1024.0,
                r.atOnce().daemonRssKb() / 1024.0));
        return out.toString();
    }

    private static void row(StringBuilder out, String name, Measured p) {
        out.append(String.format(
                Locale.ROOT,
                "%-44s %10d %10d %10d %10.1f%n",
                name,
                p.memory().pssKb(),
                p.memory().rssKb(),
                p.memory().pssAnonKb(),
                p.cpuMs()));
    }

    static String json(Result r) {
        StringBuilder out = new StringBuilder("{\n");
        out.append("  \"worker_jvm_options\": [")
                .append(r.options().workerJvmOptions().stream()
                        .map(o -> "\"" + o.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                        .collect(Collectors.joining(", ")))
                .append("],\n");
        out.append("  \"java_home\": \"")
                .append(r.options().javaHome().toString().replace("\\", "\\\\").replace("\"", "\\\""))
                .append("\",\n");
        out.append("  \"floor\": ").append(process(r.floor())).append(",\n");
        out.append("  \"alone\": {");
        out.append(r.alone().entrySet().stream()
                        .map(e -> "\"" + e.getKey().name().toLowerCase(Locale.ROOT) + "\": " + process(e.getValue()))
                        .collect(Collectors.joining(", ")))
                .append("},\n");
        out.append(String.format(
                Locale.ROOT,
                "  \"floor_start\": {\"count\": %d, \"wall_p50_ms\": %.2f, \"cpu_p50_ms\": %.2f},%n",
                r.floorStarts().count(),
                r.floorStarts().wallP50Ms(),
                r.floorStarts().cpuP50Ms()));
        out.append(String.format(
                Locale.ROOT,
                "  \"worker_start\": {\"count\": %d, \"wall_p50_ms\": %.2f, \"cpu_p50_ms\": %.2f},%n",
                r.workerStarts().count(),
                r.workerStarts().wallP50Ms(),
                r.workerStarts().cpuP50Ms()));
        out.append(String.format(
                Locale.ROOT,
                "  \"at_once\": {\"workers\": %d, \"to_running_ms\": %.1f, \"total_pss_kb\": %d, \"daemon_rss_kb\": %d, \"by_kind\": {",
                r.atOnce().workers(),
                r.atOnce().toRunningMs(),
                r.atOnce().totalPssKb(),
                r.atOnce().daemonRssKb()));
        out.append(r.atOnce().byKind().entrySet().stream()
                        .map(e -> "\"" + e.getKey().name().toLowerCase(Locale.ROOT) + "\": " + process(e.getValue()))
                        .collect(Collectors.joining(", ")))
                .append("}}\n}\n");
        return out.toString();
    }

    private static String process(Measured p) {
        return String.format(
                Locale.ROOT,
                "{\"rss_kb\": %d, \"pss_kb\": %d, \"pss_anon_kb\": %d, \"pss_file_kb\": %d, \"cpu_ms\": %.1f}",
                p.memory().rssKb(),
                p.memory().pssKb(),
                p.memory().pssAnonKb(),
                p.memory().pssFileKb(),
                p.cpuMs());
    }
}
