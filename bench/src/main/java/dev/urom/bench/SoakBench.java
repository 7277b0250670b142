// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.service.logging.LogRolling;
import dev.urom.service.logging.ServiceLogging;
import dev.urom.spi.UromException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The soak: {@code java -cp bench/target/benchmarks.jar dev.urom.bench.SoakBench [--minutes N]
 * ...} (see {@link SoakOptions}). A private daemon in a process of its own ({@link
 * SoakDaemonMain}) serves, for the whole run, one long-lived worker with both graph plugins under a
 * steady LOOPBACK load, and back-to-back cycles in which a new host connection starts
 * {@value #WORKERS_PER_CYCLE} workers (C and Java graph plugins alternately), loops {@value
 * #VALUES_PER_WORKER} values through each and stops them.
 *
 * <p>Every {@code --sample-seconds}, at the end of a cycle, once that cycle's workers have gone
 * (so each sample sees the daemon in the same state: the long-lived worker only), it samples the
 * daemon's and the long-lived worker's resident set, descriptors and threads, the daemon's zombie
 * and live children, the files in the daemon's temp and socket folders, and the log folder's
 * files and bytes. At the end each series gets a {@link GrowthVerdict}; the run fails when any
 * grows, when any command was answered wrongly or not at all, or when a cycle failed.
 *
 * <p>Not thread-safe (one run at a time). Every process and file it made is gone when {@link #run}
 * returns or throws. Exit status of {@link #main}: 0 all bounded and no error, 1 otherwise (the
 * series that grow are named), 2 a usage error.
 */
public final class SoakBench {
    static final int WORKERS_PER_CYCLE = 4;
    static final int VALUES_PER_WORKER = 16;
    /** LOOPBACKs in flight at a time on the long-lived worker, then a pause of {@value #LOAD_PAUSE_MS} ms. */
    static final int LOAD_BATCH = 4;

    static final long LOAD_PAUSE_MS = 5;
    private static final long ANSWER_TIMEOUT_S = 60;
    private static final Duration QUIET_WAIT = Duration.ofSeconds(30);
    private static final Duration DAEMON_START_WAIT = Duration.ofSeconds(60);

    private SoakBench() {}

    /**
     * One sample. Sizes in KiB or bytes as named; the worker's figures are the long-lived worker's.
     *
     * @param seconds since the long-lived worker started
     * @param liveWorkers the daemon's children that are not zombies
     * @param tempFiles files and folders under the daemon's temp folder and its socket folder
     * @param workerLogFiles the log folder's {@code urom_worker_*} files
     * @param workerLogCap the most worker log files the daemon may keep at that moment: the kept
     *     ended workers', the live workers' and those of one cycle that may not be pruned yet
     */
    record Sample(
            double seconds,
            long cycles,
            long commands,
            long errors,
            long daemonRssKb,
            int daemonFds,
            int daemonThreads,
            int zombies,
            int liveWorkers,
            long workerRssKb,
            int workerFds,
            int workerThreads,
            int tempFiles,
            int logFiles,
            long logBytes,
            int workerLogFiles,
            long workerLogBytes,
            long daemonLogBytes,
            int workerLogCap) {}

    /** A series of the samples and how it is judged. */
    record Series(
            String name,
            ToDoubleFunction<Sample> value,
            GrowthVerdict.Tolerance tolerance,
            ToDoubleFunction<Sample> cap) {
        static Series trend(String name, ToDoubleFunction<Sample> value, double relative, double absolute) {
            return new Series(name, value, new GrowthVerdict.Tolerance(relative, absolute), null);
        }

        static Series capped(String name, ToDoubleFunction<Sample> value, ToDoubleFunction<Sample> cap) {
            return new Series(name, value, null, cap);
        }

        GrowthVerdict.Verdict judge(List<Sample> samples) {
            double[] values = samples.stream().mapToDouble(value).toArray();
            return tolerance != null
                    ? GrowthVerdict.trend(name, values, tolerance)
                    : GrowthVerdict.capped(
                            name, values, samples.stream().mapToDouble(cap).toArray());
        }
    }

    /** The daemon log's cap: its rolling's files at their size. */
    static final long DAEMON_LOG_CAP = LogRolling.DEFAULT.maxFileBytes() * LogRolling.DEFAULT.maxFiles() + 64 * 1024;

    /** The series judged at the end, in the order they are reported. */
    static final List<Series> SERIES = List.of(
            Series.trend("daemon_rss_kb", Sample::daemonRssKb, 0.05, 4096),
            Series.trend("daemon_fds", Sample::daemonFds, 0, 2),
            Series.trend("daemon_threads", Sample::daemonThreads, 0, 2),
            Series.trend("zombies", Sample::zombies, 0, 0.5),
            Series.trend("live_workers", Sample::liveWorkers, 0, 0.5),
            Series.trend("worker_rss_kb", Sample::workerRssKb, 0.05, 4096),
            Series.trend("worker_fds", Sample::workerFds, 0, 2),
            Series.trend("worker_threads", Sample::workerThreads, 0, 2),
            Series.trend("temp_files", Sample::tempFiles, 0, 2),
            Series.capped("worker_log_files", Sample::workerLogFiles, Sample::workerLogCap),
            Series.trend("worker_log_bytes", Sample::workerLogBytes, 0.10, 64 * 1024),
            Series.capped("daemon_log_bytes", Sample::daemonLogBytes, s -> DAEMON_LOG_CAP));

    /**
     * What a run saw.
     *
     * @param workersStarted workers started by the cycles (the long-lived one not counted)
     * @param failures one line per failed cycle or wrong answer, the first {@value #MAX_FAILURE_LINES}
     */
    record Result(
            SoakOptions options,
            List<Sample> samples,
            List<GrowthVerdict.Verdict> verdicts,
            long cycles,
            long workersStarted,
            long commands,
            long errors,
            List<String> failures) {
        static final int MAX_FAILURE_LINES = 20;

        List<String> growing() {
            return verdicts.stream()
                    .filter(v -> !v.bounded())
                    .map(GrowthVerdict.Verdict::series)
                    .toList();
        }

        boolean passed() {
            return errors == 0 && growing().isEmpty();
        }
    }

    public static void main(String[] args) {
        SoakOptions options;
        try {
            options = SoakOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("SoakBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            Result result = run(options, line -> System.err.println("soak: " + line));
            System.out.print(table(result));
            if (options.json() != null) {
                Files.writeString(options.json(), json(result), StandardCharsets.UTF_8);
                System.out.println("JSON written to " + options.json());
                SoakChart.write("SoakBench", options.json(), result);
            }
            if (options.csv() != null) {
                Files.writeString(options.csv(), csv(result.samples()), StandardCharsets.UTF_8);
                System.out.println("CSV written to " + options.csv());
            }
            System.out.println(
                    result.passed()
                            ? "soak: bounded"
                            : "soak: FAILED: " + (result.errors() > 0 ? result.errors() + " errors; " : "")
                                    + "growing: " + result.growing());
            System.exit(result.passed() ? 0 : 1);
        } catch (IOException | RuntimeException e) {
            System.err.println("SoakBench: " + e.getMessage());
            System.exit(1);
        } catch (InterruptedException e) {
            System.exit(1);
        }
    }

    /** Runs the soak as {@code options} say; {@code progress} gets a line per sample. */
    static Result run(SoakOptions options, Consumer<String> progress) throws IOException, InterruptedException {
        try (RunFolder run = new RunFolder("urom-soak");
                ChildProcesses children = new ChildProcesses()) {
            Path pluginDir = Files.createDirectories(run.path().resolve("plugins"));
            for (String file : List.of(GraphPluginFiles.NATIVE_FILE, GraphPluginFiles.JAVA_FILE)) {
                Files.copy(GraphPluginFiles.locate(file), pluginDir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
            Path tmp = Files.createDirectories(run.path().resolve("daemon-tmp"));
            List<String> command = new ArrayList<>(List.of(JavaCommand.java()));
            command.addAll(options.daemonJavaOptions());
            command.addAll(List.of(
                    "-Djava.io.tmpdir=" + tmp,
                    "-cp",
                    System.getProperty("java.class.path"),
                    SoakDaemonMain.class.getName(),
                    run.path().toString(),
                    pluginDir.toString(),
                    options.workerUser() == null ? "-" : options.workerUser(),
                    Integer.toString(options.workerLogCount())));
            Process daemon = children.start(new ProcessBuilder(command)
                    .redirectError(run.path().resolve("daemon.stderr").toFile()));
            String address = readyAddress(daemon, run.path().resolve("daemon.stderr"));
            progress.accept("daemon pid " + daemon.pid() + " on " + address + " with " + options.daemonJavaOptions());
            Soak soak = new Soak(options, daemon.pid(), address, run.path(), tmp, progress);
            Result result = soak.run();
            daemon.getOutputStream().close();
            if (!daemon.waitFor(QUIET_WAIT.toSeconds(), TimeUnit.SECONDS)) {
                progress.accept("the daemon did not end within " + QUIET_WAIT.toSeconds() + " s of EOF; it is killed");
            }
            return result;
        }
    }

    private static String readyAddress(Process daemon, Path stderr) throws InterruptedException {
        return new ChildOutput(daemon, "the soak's daemon", stderr).expect("READY ", DAEMON_START_WAIT);
    }

    /** One run against a started daemon. */
    private static final class Soak {
        private final SoakOptions options;
        private final long daemonPid;
        private final String address;
        private final Path runDir;
        private final Path tmp;
        private final Consumer<String> progress;
        private final AtomicLong commands = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();
        private final List<String> failures = new ArrayList<>();
        private final AtomicBoolean stopLoad = new AtomicBoolean();
        private long cycles;
        private long workersStarted;
        private long longLivedPid;

        Soak(SoakOptions options, long daemonPid, String address, Path runDir, Path tmp, Consumer<String> progress) {
            this.options = options;
            this.daemonPid = daemonPid;
            this.address = address;
            this.runDir = runDir;
            this.tmp = tmp;
            this.progress = progress;
        }

        Result run() throws InterruptedException {
            List<Sample> samples = new ArrayList<>();
            try (UromService service = UromService.connect(address)) {
                long nativeId = ServiceBench.pluginId(service.plugins(), ServiceBench.NATIVE_PLUGIN_NAME);
                long javaId = ServiceBench.pluginId(service.plugins(), ServiceBench.JAVA_PLUGIN_NAME);
                try (Worker longLived = ServiceBench.started(service, nativeId | javaId)) {
                    List<ProcFacts.Child> live = liveChildren();
                    if (live.size() != 1) {
                        throw new IllegalStateException(
                                "the daemon has " + live.size() + " workers, not the long-lived one alone");
                    }
                    longLivedPid = live.get(0).pid();
                    Thread load = new Thread(() -> load(longLived, nativeId, javaId), "urom-soak-load");
                    load.setDaemon(true);
                    load.start();
                    long began = System.nanoTime();
                    long end = began + options.duration().toNanos();
                    long nextSample = began;
                    while (true) {
                        long now = System.nanoTime();
                        if (now >= nextSample) {
                            awaitQuiet();
                            samples.add(sample((System.nanoTime() - began) / 1e9));
                            progress.accept(row(samples.get(samples.size() - 1)));
                            nextSample = Math.max(
                                    nextSample + options.sampleInterval().toNanos(), System.nanoTime());
                        }
                        if (System.nanoTime() >= end) {
                            break;
                        }
                        cycle(nativeId, javaId);
                    }
                    stopLoad.set(true);
                    load.join(TimeUnit.SECONDS.toMillis(ANSWER_TIMEOUT_S));
                }
            } catch (UromException e) {
                throw new IllegalStateException("soak: " + e.status() + ": " + e.getMessage());
            }
            List<GrowthVerdict.Verdict> verdicts =
                    SERIES.stream().map(s -> s.judge(samples)).toList();
            synchronized (failures) {
                return new Result(
                        options,
                        List.copyOf(samples),
                        verdicts,
                        cycles,
                        workersStarted,
                        commands.get(),
                        errors.get(),
                        List.copyOf(failures));
            }
        }

        /** One host connection: {@value #WORKERS_PER_CYCLE} workers started at once, values looped through each, then stopped. */
        private void cycle(long nativeId, long javaId) {
            cycles++;
            try (UromService host = UromService.connect(address)) {
                List<Worker> workers = new ArrayList<>();
                List<CompletableFuture<Worker>> starts = new ArrayList<>();
                for (int i = 0; i < WORKERS_PER_CYCLE; i++) {
                    Worker worker = host.newWorker()
                            .plugins(i % 2 == 0 ? nativeId : javaId)
                            .build();
                    workers.add(worker);
                    starts.add(worker.start());
                }
                try {
                    for (int i = 0; i < WORKERS_PER_CYCLE; i++) {
                        starts.get(i).get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
                        workersStarted++;
                        long pluginId = i % 2 == 0 ? nativeId : javaId;
                        for (int v = 0; v < VALUES_PER_WORKER; v++) {
                            check(GraphClient.loopback(workers.get(i), pluginId, cycles * 1000 + v), cycles * 1000 + v);
                        }
                    }
                } catch (ExecutionException | TimeoutException e) {
                    fail("cycle " + cycles + ": a worker did not start: "
                            + (e.getCause() == null ? e : e.getCause()).toString());
                } finally {
                    workers.forEach(Worker::close);
                }
            } catch (UromException e) {
                fail("cycle " + cycles + ": " + e.status() + ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("cycle " + cycles + " interrupted");
            }
        }

        private void load(Worker worker, long nativeId, long javaId) {
            long value = 0;
            while (!stopLoad.get()) {
                long pluginId = value % 2 == 0 ? nativeId : javaId;
                List<CompletableFuture<Long>> batch = new ArrayList<>();
                for (int i = 0; i < LOAD_BATCH; i++) {
                    batch.add(GraphClient.loopback(worker, pluginId, value + i));
                }
                try {
                    for (int i = 0; i < LOAD_BATCH; i++) {
                        check(batch.get(i), value + i);
                    }
                    Thread.sleep(LOAD_PAUSE_MS);
                } catch (InterruptedException e) {
                    return;
                }
                value += LOAD_BATCH;
            }
        }

        private void check(CompletableFuture<Long> answer, long expected) throws InterruptedException {
            commands.incrementAndGet();
            try {
                long echoed = answer.get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
                if (echoed != expected) {
                    fail("LOOPBACK of " + expected + " came back as " + echoed);
                }
            } catch (ExecutionException e) {
                fail("LOOPBACK of " + expected + " failed: " + e.getCause().getMessage());
            } catch (TimeoutException e) {
                fail("LOOPBACK of " + expected + " unanswered after " + ANSWER_TIMEOUT_S + " s");
            }
        }

        private void fail(String line) {
            errors.incrementAndGet();
            synchronized (failures) {
                if (failures.size() < Result.MAX_FAILURE_LINES) {
                    failures.add(line);
                }
            }
        }

        private List<ProcFacts.Child> liveChildren() {
            return ProcFacts.children(daemonPid).stream()
                    .filter(c -> !c.zombie())
                    .toList();
        }

        /** Waits, at most {@link #QUIET_WAIT}, until the long-lived worker is the daemon's only child (no zombie left to reap). */
        private void awaitQuiet() throws InterruptedException {
            long deadline = System.nanoTime() + QUIET_WAIT.toNanos();
            while (ProcFacts.children(daemonPid).size() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }

        private Sample sample(double seconds) {
            List<ProcFacts.Child> children = ProcFacts.children(daemonPid);
            ProcFacts.Usage daemon = ProcFacts.usage(daemonPid)
                    .orElseThrow(() -> new IllegalStateException("the soak's daemon has gone"));
            ProcFacts.Usage worker = ProcFacts.usage(longLivedPid)
                    .orElseThrow(() -> new IllegalStateException("the long-lived worker has gone"));
            int zombies =
                    (int) children.stream().filter(ProcFacts.Child::zombie).count();
            int live = children.size() - zombies;
            Path logDir = runDir.resolve("log");
            List<Path> logs = files(logDir);
            List<Path> workerLogs = logs.stream()
                    .filter(p -> p.getFileName().toString().startsWith("urom_worker_"))
                    .toList();
            long daemonLogBytes = bytes(logs.stream()
                    .filter(p -> p.getFileName().toString().startsWith(ServiceLogging.DAEMON_LOG_FILE))
                    .toList());
            int tempFiles = count(tmp) + count(runDir.resolve("daemon"));
            return new Sample(
                    seconds,
                    cycles,
                    commands.get(),
                    errors.get(),
                    daemon.rssKb(),
                    daemon.fds(),
                    daemon.threads(),
                    zombies,
                    live,
                    worker.rssKb(),
                    worker.fds(),
                    worker.threads(),
                    tempFiles,
                    logs.size(),
                    bytes(logs),
                    workerLogs.size(),
                    bytes(workerLogs),
                    daemonLogBytes,
                    options.workerLogCount() + live + WORKERS_PER_CYCLE);
        }

        private static List<Path> files(Path dir) {
            try (Stream<Path> entries = Files.list(dir)) {
                return entries.filter(Files::isRegularFile).toList();
            } catch (IOException e) {
                return List.of();
            }
        }

        private static int count(Path dir) {
            try (Stream<Path> entries = Files.walk(dir)) {
                return (int) entries.count() - 1;
            } catch (IOException | UncheckedIOException e) {
                return 0;
            }
        }

        private static long bytes(List<Path> files) {
            long total = 0;
            for (Path file : files) {
                try {
                    total += Files.size(file);
                } catch (IOException e) {
                    // pruned or rolled away between the listing and now
                }
            }
            return total;
        }
    }

    /** The CSV columns, in {@link #values} order. */
    static final List<String> COLUMNS = List.of(
            "seconds",
            "cycles",
            "commands",
            "errors",
            "daemon_rss_kb",
            "daemon_fds",
            "daemon_threads",
            "zombies",
            "live_workers",
            "worker_rss_kb",
            "worker_fds",
            "worker_threads",
            "temp_files",
            "log_files",
            "log_bytes",
            "worker_log_files",
            "worker_log_bytes",
            "daemon_log_bytes",
            "worker_log_cap");

    static List<Number> values(Sample s) {
        return List.of(
                Math.round(s.seconds() * 10) / 10.0,
                s.cycles(),
                s.commands(),
                s.errors(),
                s.daemonRssKb(),
                s.daemonFds(),
                s.daemonThreads(),
                s.zombies(),
                s.liveWorkers(),
                s.workerRssKb(),
                s.workerFds(),
                s.workerThreads(),
                s.tempFiles(),
                s.logFiles(),
                s.logBytes(),
                s.workerLogFiles(),
                s.workerLogBytes(),
                s.daemonLogBytes(),
                s.workerLogCap());
    }

    static String row(Sample sample) {
        return values(sample).stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    static String csv(List<Sample> samples) {
        StringBuilder text = new StringBuilder(String.join(",", COLUMNS)).append('\n');
        samples.forEach(s -> text.append(row(s)).append('\n'));
        return text.toString();
    }

    static String json(Result result) {
        StringBuilder text = new StringBuilder("{\n  \"benchmark\": \"SoakBench\",\n");
        text.append("  \"settings\": {\"seconds\": ")
                .append(result.options().duration().toMillis() / 1000.0)
                .append(", \"sample_seconds\": ")
                .append(result.options().sampleInterval().toSeconds())
                .append(", \"worker_log_count\": ")
                .append(result.options().workerLogCount())
                .append(", \"workers_per_cycle\": ")
                .append(WORKERS_PER_CYCLE)
                .append(", \"daemon_java_options\": [")
                .append(result.options().daemonJavaOptions().stream()
                        .map(SoakBench::quoted)
                        .collect(Collectors.joining(", ")))
                .append("]},\n");
        text.append("  \"cycles\": ")
                .append(result.cycles())
                .append(", \"workers_started\": ")
                .append(result.workersStarted())
                .append(", \"commands\": ")
                .append(result.commands())
                .append(", \"errors\": ")
                .append(result.errors())
                .append(",\n");
        text.append("  \"failures\": [")
                .append(result.failures().stream().map(SoakBench::quoted).collect(Collectors.joining(", ")))
                .append("],\n");
        text.append("  \"passed\": ").append(result.passed()).append(",\n  \"verdicts\": [\n");
        text.append(result.verdicts().stream()
                .map(v -> "    {\"series\": " + quoted(v.series()) + ", \"bounded\": " + v.bounded() + ", \"reason\": "
                        + quoted(v.reason()) + "}")
                .collect(Collectors.joining(",\n")));
        text.append("\n  ],\n  \"columns\": [")
                .append(COLUMNS.stream().map(SoakBench::quoted).collect(Collectors.joining(", ")))
                .append("],\n");
        text.append("  \"samples\": [\n")
                .append(result.samples().stream()
                        .map(s -> "    [" + row(s) + "]")
                        .collect(Collectors.joining(",\n")))
                .append("\n  ]\n}\n");
        return text.toString();
    }

    static String table(Result result) {
        StringBuilder text = new StringBuilder(String.format(
                Locale.ROOT,
                "soak: %d cycles, %d workers started, %d commands, %d errors, %d samples%n",
                result.cycles(),
                result.workersStarted(),
                result.commands(),
                result.errors(),
                result.samples().size()));
        result.failures().forEach(f -> text.append("  error: ").append(f).append('\n'));
        for (GrowthVerdict.Verdict verdict : result.verdicts()) {
            text.append(String.format(
                    Locale.ROOT,
                    "  %-18s %-8s %s%n",
                    verdict.series(),
                    verdict.bounded() ? "bounded" : "GROWS",
                    verdict.reason()));
        }
        return text.toString();
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
