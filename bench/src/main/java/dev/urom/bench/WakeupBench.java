// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.daemon.WorkerInfo;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The wake-up benchmark: a worker that sleeps on its plugin's wake-up descriptor against the same
 * plugin polled, in one run:
 * {@code java -cp bench/target/benchmarks.jar dev.urom.bench.WakeupBench [--seconds N] [--wakes N] [--json FILE]}
 * (run from the project tree: it compiles {@code wakeup_plugin.c}, the native-bridge test fixture,
 * with {@code cc} against {@code spi/src/main/c/include}).
 *
 * <p>Two builds of the fixture, each in its own worker of a private daemon: {@code wakeup.so} (with
 * {@code urom_plugin_get_wakeup_fd} and {@code urom_plugin_arm_wakeup}; its descriptor is a timerfd)
 * and {@code polled.so} (built {@code -DNO_WAKEUP}: a DOCA-style plugin without them). For each:
 *
 * <ol>
 *   <li>wake-up latency: {@code --wakes} WAIT commands of 2 ms one after the other, each measured
 *       from the moment the timer was due (the plugin reports it, CLOCK_MONOTONIC, the clock of
 *       {@link System#nanoTime()}) to the notification at this host (p50, p99);
 *   <li>idle CPU: a WAIT that never ends is posted and the worker's utime + stime ({@code
 *       /proc/<pid>/stat}) are read over {@code --seconds} seconds, in percent of one core (goal
 *       below 1%).
 * </ol>
 *
 * <p>Prints the table; exit status 0, 1 on failure (one line on stderr), 2 on a usage error. The
 * run folder is deleted.
 */
public final class WakeupBench {
    private static final long WAIT = 1;
    private static final long WAIT_MICROS = 2_000;
    private static final long ANSWER_TIMEOUT_S = 60;
    private static final String FIXTURE =
            "native-bridge/src/test/resources/dev/urom/nativebridge/testkit/wakeup_plugin.c";
    private static final String INCLUDE = "spi/src/main/c/include";

    /** What one worker measured. */
    record Result(LatencySummary wakeLatency, double idleCpuPercent) {}

    private WakeupBench() {}

    /**
     * The command line: {@code [--seconds N] [--wakes N] [--json FILE]}. Immutable.
     *
     * @param seconds how long the idle CPU is measured, per worker (default 5)
     * @param wakes wake-ups timed, per worker (default 200)
     * @param json where the report goes as JSON, or null
     */
    record Options(int seconds, int wakes, Path json) {
        static final int DEFAULT_SECONDS = 5;
        static final int DEFAULT_WAKES = 200;
        static final String USAGE =
                "usage: WakeupBench [--seconds N (1..3600, default 5)] [--wakes N (1..1000000, default 200)] [--json FILE]";

        /** Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and the reason. */
        static Options parse(List<String> args) {
            BenchCommand.Parsed line = command().parse(args);
            return new Options(
                    line.get("--seconds", DEFAULT_SECONDS),
                    line.get("--wakes", DEFAULT_WAKES),
                    line.get("--json", null));
        }

        static BenchCommand command() {
            return new BenchCommand("WakeupBench", USAGE)
                    .count("--seconds", 1, 3600)
                    .count("--wakes", 1, 1_000_000)
                    .path("--json", "FILE");
        }
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("WakeupBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(Report.printRun("WakeupBench", options.json(), () -> run(options.seconds(), options.wakes())));
    }

    static Report run(int seconds, int wakes) throws IOException, InterruptedException {
        Path root = projectRoot();
        try (RunFolder folder = new RunFolder("urom-wakeup-bench")) {
            Path pluginDir = Files.createDirectories(folder.path().resolve("plugins"));
            String source = Files.readString(root.resolve(FIXTURE), StandardCharsets.UTF_8);
            compile(root, source, pluginDir.resolve("wakeup.so"), folder.path());
            compile(root, source, pluginDir.resolve("polled.so"), folder.path(), "-DNO_WAKEUP");
            DaemonConfig config = ServiceBench.privateDaemon(folder.path(), pluginDir, null);
            Result wake;
            Result polled;
            try (Daemon daemon = Daemon.start(config);
                    UromService service = UromService.connect(daemon.address().toString())) {
                List<Plugin> plugins = service.plugins();
                wake = measure(daemon, service, id(plugins, "wakeup"), 1, seconds, wakes);
                polled = measure(daemon, service, id(plugins, "polled"), 2, seconds, wakes);
            } catch (UromException e) {
                throw new IllegalStateException("the service failed: " + e.status() + ": " + e.getMessage(), e);
            }
            Map<String, Object> settings = new LinkedHashMap<>();
            settings.put("seconds", seconds);
            settings.put("wakes", wakes);
            settings.put("waitMicros", WAIT_MICROS);
            settings.put("cores", Runtime.getRuntime().availableProcessors());
            List<Figure> figures = new ArrayList<>();
            figures.add(Figure.atMost(
                    "idle_cpu_wakeup", "idle worker CPU, receive posted, wake-up fd", wake.idleCpuPercent(), "%", 1.0));
            figures.add(Figure.compared(
                    "idle_cpu_vs_polled",
                    "idle worker CPU, wake-up fd vs polled",
                    wake.idleCpuPercent(),
                    "%",
                    "polled",
                    polled.idleCpuPercent()));
            figures.add(Figure.compared(
                    "wake_latency_p50",
                    "fd fire -> notification p50, wake-up fd vs polled",
                    wake.wakeLatency().p50Ns() / 1e3,
                    "us",
                    "polled",
                    polled.wakeLatency().p50Ns() / 1e3));
            figures.add(Figure.compared(
                    "wake_latency_p99",
                    "fd fire -> notification p99, wake-up fd vs polled",
                    wake.wakeLatency().p99Ns() / 1e3,
                    "us",
                    "polled",
                    polled.wakeLatency().p99Ns() / 1e3));
            return new Report(settings, figures);
        }
    }

    private static Result measure(
            Daemon daemon, UromService service, long pluginId, long workerId, int seconds, int wakes)
            throws IOException, InterruptedException {
        try (Worker worker =
                await(service.newWorker().id(workerId).plugins(pluginId).build().start())) {
            long pid = daemon.workers().stream()
                    .filter(w -> w.id() == workerId)
                    .mapToLong(WorkerInfo::pid)
                    .findFirst()
                    .orElseThrow(
                            () -> new IllegalStateException("worker " + workerId + " is not in the daemon's list"));
            progress("worker " + workerId + " (pid " + pid + "): " + wakes + " wakes");
            for (int i = 0; i < Math.max(20, wakes / 10); i++) {
                waitOnce(worker, pluginId, WAIT_MICROS);
            }
            long[] latencies = new long[wakes];
            for (int i = 0; i < wakes; i++) {
                latencies[i] = waitOnce(worker, pluginId, WAIT_MICROS);
            }
            progress("worker " + workerId + ": idle CPU over " + seconds + " s with a receive posted");
            worker.submit(pluginId, command(WAIT, 0));
            // settle: the worker reaches its sleep (or its polling) before the window opens
            TimeUnit.MILLISECONDS.sleep(500);
            ProcessCpu.Snapshot before = ProcessCpu.snapshot(pid);
            long start = System.nanoTime();
            TimeUnit.SECONDS.sleep(seconds);
            long usedNanos = ProcessCpu.used(before, ProcessCpu.snapshot(pid));
            return new Result(LatencySummary.of(latencies), 100.0 * usedNanos / (System.nanoTime() - start));
        }
    }

    /** One WAIT of {@code micros}: the nanoseconds from when its timer was due to its notification here. */
    private static long waitOnce(Worker worker, long pluginId, long micros) throws InterruptedException {
        Notification answer = await(worker.submit(pluginId, command(WAIT, micros)));
        long arrived = System.nanoTime();
        if (answer.status() != UromStatus.SUCCESS || answer.payload().length != 8) {
            throw new IllegalStateException(
                    "a WAIT was answered " + answer.status() + " with " + answer.payload().length + " bytes");
        }
        return arrived
                - ByteBuffer.wrap(answer.payload())
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .getLong();
    }

    private static byte[] command(long op, long arg) {
        return ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(op)
                .putLong(arg)
                .array();
    }

    private static <T> T await(CompletableFuture<T> future) throws InterruptedException {
        try {
            return future.get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer within " + ANSWER_TIMEOUT_S + " s");
        }
    }

    private static long id(List<Plugin> plugins, String name) {
        return plugins.stream()
                .filter(p -> p.name().equals(name))
                .mapToLong(Plugin::id)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the daemon did not list plugin " + name));
    }

    private static void compile(Path root, String source, Path out, Path workDir, String... flags)
            throws IOException, InterruptedException {
        Path c = Files.writeString(workDir.resolve(out.getFileName() + ".c"), source, StandardCharsets.UTF_8);
        List<String> command = new ArrayList<>(
                List.of("cc", "-shared", "-fPIC", "-fvisibility=hidden", "-O2", "-I" + root.resolve(INCLUDE)));
        command.addAll(List.of(flags));
        command.addAll(List.of("-o", out.toString(), c.toString()));
        Process cc = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (cc.waitFor() != 0) {
            throw new IllegalStateException(
                    "cc failed for " + out.getFileName() + ": " + output.strip().replace('\n', ' '));
        }
    }

    /** The first directory at or above the working directory that holds the fixture and the include directory. */
    private static Path projectRoot() {
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(FIXTURE))
                    && Files.isRegularFile(dir.resolve(INCLUDE).resolve("urom_plugin.h"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                FIXTURE + " not found at or above " + start + "; run WakeupBench from the project tree");
    }

    private static void progress(String line) {
        System.err.println("WakeupBench: " + line);
    }
}
