// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.auth.Principal;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.host.Domain;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.oob.InProcessAllgather;
import dev.urom.plugins.sandbox.host.SandboxClient;
import dev.urom.plugins.sandbox.host.SandboxClient.Bounced;
import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.spi.UromException;
import dev.urom.wire.Message;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The sandbox benchmark: two sandbox workers of one domain exchanging messages, against UCX's own
 * {@code ucx_perftest} and the C Unix-socket floor, in one run:
 * {@code java -cp bench/target/benchmarks.jar dev.urom.bench.SandboxBench [--json FILE] [--rounds N] [--messages N]
 * [--regions N] [--bounces N]}.
 *
 * <p>Starts a private daemon in this process with copies of {@code worker_sandbox.so} and {@code
 * worker_sandbox_java.jar}. Each UCX setting of {@link #SETTINGS} is given to the workers'
 * environment and to {@code ucx_perftest} alike: shared memory between two processes of one host
 * (with {@code UCX_SYSV_ERROR_HANDLING=y} and {@code UCX_POSIX_ERROR_HANDLING=y}), and {@code
 * UCX_TLS=tcp} over loopback. For each setting and each plugin, two workers in one domain (ids 0
 * and 1, one rank) measure:
 *
 * <ul>
 *   <li>the worker-to-worker round trip of {@value #PING_BYTES} bytes with no host in the loop (one
 *       BOUNCE, its mean) against twice {@code ucx_perftest -t tag_lat}'s one-way overall mean (its
 *       median is shown too); target at most {@value #BOUNCE_MAX_RATIO}×;
 *   <li>the one-way bandwidth of {@value #REGION_BYTES}-byte messages between two {@code /dev/shm}
 *       files mapped with MEM_MAP (its bytes checked in the receiver's file), {@value #IN_FLIGHT} in
 *       flight, against {@code ucx_perftest -t tag_bw}; target at least {@value #REGION_MIN_RATIO}×;
 *   <li>against the floor ({@link FloorBaseline}, the same sizes between two C processes): the
 *       host-driven ping-pong round trip of {@value #PING_BYTES} inline bytes (p50, p99) and the
 *       bandwidth of the largest inline message that the max message size allows.
 * </ul>
 *
 * <p>A plugin that answers BOUNCE with NOT_SUPPORTED gets "not supported" rows. {@code ucx_perftest
 * -e} (endpoints with error handling, as the sandbox's) is shown beside: with UCX 1.13 and without
 * the two settings it moves the lanes of two local processes off shared memory onto TCP. Prints a
 * table on stdout and writes the JSON document when asked; progress goes to stderr. MB is 10^6
 * bytes.
 *
 * <p>Every process, socket and {@code /dev/shm} file it made is gone when it ends. Exit status 0
 * when it measured everything, 1 when something failed, 2 on a usage error; a failure is one line on
 * stderr.
 */
public final class SandboxBench {
    static final int IN_FLIGHT = 16;
    static final int PING_BYTES = 8;
    static final int REGION_BYTES = 1 << 20;
    static final double BOUNCE_MAX_RATIO = 2.0;
    static final double REGION_MIN_RATIO = 0.7;
    /** {@code ucx_perftest -t tag_bw} sends this many times the sandbox's region messages (it is much faster per message). */
    static final int PERFTEST_BANDWIDTH_FACTOR = 10;

    static final String NATIVE_PLUGIN_FILE = "worker_sandbox.so";
    static final String JAVA_PLUGIN_FILE = "worker_sandbox_java.jar";
    /** A directory holding both sandbox plugin files, instead of plugins/sandbox/target. */
    static final String DIR_PROPERTY = "urom.bench.sandbox.dir";

    static final String NOT_SUPPORTED = "not supported";
    private static final long ANSWER_TIMEOUT_S = 120;
    private static final String SHM_DIR = "/dev/shm";

    /**
     * One UCX configuration: the variables given to the workers ({@code NAME=value}, on top of what
     * they inherit) and to {@code ucx_perftest}.
     */
    record UcxSetting(String id, String label, Map<String, String> variables) {
        List<String> env() {
            return variables.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .toList();
        }
    }

    /**
     * Shared memory (UCX's transports, with error handling allowed on sysv and posix, which the
     * sandbox's error-handling endpoints need to use them), then TCP over loopback.
     */
    static final List<UcxSetting> SETTINGS = List.of(
            new UcxSetting(
                    "shm", "shared memory", Map.of("UCX_SYSV_ERROR_HANDLING", "y", "UCX_POSIX_ERROR_HANDLING", "y")),
            new UcxSetting("tcp", "TCP loopback", Map.of("UCX_TLS", "tcp")));

    /**
     * What one plugin measured on one setting: BOUNCE round trip in ns (empty: not supported), the
     * ping-pong round trip in ns, bandwidths in bytes per second.
     */
    record PluginResult(
            Optional<Bounced> bounce,
            int bounceIterations,
            LatencySummary roundTrip,
            double inlineBytesPerSecond,
            double regionBytesPerSecond) {}

    /**
     * What ucx_perftest measured on one setting: tag_lat and tag_bw as they are, and with {@code -e}
     * (endpoints with error handling, as the sandbox's: error mode PEER).
     */
    record UcxResult(
            UcxPerftest.Result latency,
            UcxPerftest.Result bandwidth,
            UcxPerftest.Result latencyWithErrors,
            UcxPerftest.Result bandwidthWithErrors) {}

    /** What the floor measured: round trip in ns, bandwidths in bytes per second. */
    record FloorResult(FloorBaseline.Latency roundTrip, double inlineBytesPerSecond, double regionBytesPerSecond) {}

    /** Everything measured on one setting: by plugin kind ({@code native}, {@code java}), and UCX's baseline. */
    record SettingResult(UcxSetting setting, Map<String, PluginResult> plugins, UcxResult ucx) {}

    private SandboxBench() {}

    public static void main(String[] args) {
        SandboxBenchOptions options;
        try {
            options = SandboxBenchOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("SandboxBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(Report.printRun("SandboxBench", options.json(), () -> run(options, made -> {})));
    }

    /**
     * Runs the benchmark; {@code made} hears of every file outside the run's temp folder that the
     * run or its workers made (its {@code /dev/shm} files), each gone when this returns.
     */
    static Report run(SandboxBenchOptions options, Consumer<Path> made) throws IOException, InterruptedException {
        try (RunFolder run = new RunFolder("urom-sandbox-bench");
                ChildProcesses children = new ChildProcesses()) {
            Path workDir = run.path();
            Path pluginDir = Files.createDirectories(workDir.resolve("plugins"));
            for (String file : List.of(NATIVE_PLUGIN_FILE, JAVA_PLUGIN_FILE)) {
                Files.copy(
                        PluginFiles.locate("plugins/sandbox", DIR_PROPERTY, file),
                        pluginDir.resolve(file),
                        StandardCopyOption.REPLACE_EXISTING);
            }
            Map<String, String> inherited = inheritedUcxVariables();
            if (!inherited.isEmpty()) {
                progress("UCX variables of this environment apply to every setting, workers and ucx_perftest alike: "
                        + inherited);
            }
            DaemonConfig config = ServiceBench.privateDaemon(workDir, pluginDir, options.workerUser());
            int inlineBytes = config.maxMessageSize() - Message.Command.HEADER_BYTES - SandboxClient.TAG_COMMAND_BYTES;
            List<SettingResult> settings = new ArrayList<>();
            progress("daemon on " + config.listen() + ", plugins " + pluginDir);
            try (Daemon daemon = Daemon.start(config);
                    UromService service = UromService.connect(daemon.address().toString())) {
                for (UcxSetting setting : SETTINGS) {
                    Map<String, PluginResult> plugins = new LinkedHashMap<>();
                    for (String kind : List.of("native", "java")) {
                        String name = kind.equals("native") ? "worker_sandbox" : "worker_sandbox_java";
                        long pluginId = ServiceBench.pluginId(service.plugins(), name);
                        plugins.put(
                                kind,
                                measurePlugin(
                                        service,
                                        pluginId,
                                        name,
                                        setting,
                                        inlineBytes,
                                        options,
                                        daemon.workerAccount(Principal.unix(UnixAccounts.effectiveUid()))
                                                .uid(),
                                        made));
                        ServiceBench.awaitNoWorkers(daemon);
                    }
                    UcxPerftest perftest = new UcxPerftest(children, setting.variables());
                    int bandwidthMessages = PERFTEST_BANDWIDTH_FACTOR * options.regions();
                    UcxPerftest.Result[] ucx = new UcxPerftest.Result[4];
                    for (int i = 0; i < ucx.length; i++) {
                        List<String> extra = i < 2 ? List.of() : List.of("-e");
                        String test = i % 2 == 0 ? "tag_lat" : "tag_bw";
                        int bytes = i % 2 == 0 ? PING_BYTES : REGION_BYTES;
                        int iterations = i % 2 == 0 ? options.bounces() : bandwidthMessages;
                        progress("ucx_perftest, " + setting.label() + ": -t " + test + " -s " + bytes + " -n "
                                + iterations + (extra.isEmpty() ? "" : " " + String.join(" ", extra)));
                        ucx[i] = perftest.run(test, bytes, iterations, extra);
                    }
                    settings.add(new SettingResult(setting, plugins, new UcxResult(ucx[0], ucx[1], ucx[2], ucx[3])));
                }
            } catch (UromException e) {
                throw new IllegalStateException("service: " + e.status() + ": " + e.getMessage());
            }
            FloorBaseline floorBaseline = new FloorBaseline(FloorBaseline.locateProgram(), children);
            progress("floor: uds_pingpong, " + PING_BYTES + "-byte round trips, then " + inlineBytes + "- and "
                    + REGION_BYTES + "-byte messages one way");
            FloorBaseline.Latency floorLatency =
                    floorBaseline.latency(workDir.resolve("floor.sock"), PING_BYTES, PING_BYTES, options.rounds());
            double floorInline = inlineBytes
                    * floorBaseline.opsPerSecond(
                            workDir.resolve("floor.sock"),
                            inlineBytes,
                            1,
                            SandboxBenchOptions.warmUp(options.messages()),
                            options.messages(),
                            IN_FLIGHT);
            double floorRegion = (double) REGION_BYTES
                    * floorBaseline.opsPerSecond(
                            workDir.resolve("floor.sock"),
                            REGION_BYTES,
                            1,
                            SandboxBenchOptions.warmUp(options.regions()),
                            options.regions(),
                            IN_FLIGHT);
            Map<String, Object> runSettings = new LinkedHashMap<>();
            runSettings.put("rounds", options.rounds());
            runSettings.put("inlineMessages", options.messages());
            runSettings.put("regionMessages", options.regions());
            runSettings.put("bounces", options.bounces());
            runSettings.put("perftestBandwidthMessages", PERFTEST_BANDWIDTH_FACTOR * options.regions());
            runSettings.put("inFlight", IN_FLIGHT);
            runSettings.put("pingBytes", PING_BYTES);
            runSettings.put("inlineBytes", inlineBytes);
            runSettings.put("regionBytes", REGION_BYTES);
            runSettings.put("maxMessageSize", config.maxMessageSize());
            runSettings.put(
                    "ucxSettings",
                    String.join(
                            "; ",
                            SETTINGS.stream()
                                    .map(s -> s.id() + ": "
                                            + (s.variables().isEmpty() ? "UCX defaults" : String.join(" ", s.env())))
                                    .toList()));
            runSettings.put("ucxInherited", inherited.toString());
            runSettings.put("cpus", Runtime.getRuntime().availableProcessors());
            runSettings.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            return new Report(
                    runSettings,
                    figures(settings, new FloorResult(floorLatency, floorInline, floorRegion), inlineBytes),
                    LatencyChart.sandbox(settings, floorLatency));
        }
    }

    /** The UCX_* variables this process has, which the daemon passes on to its workers and ucx_perftest inherits. */
    private static Map<String, String> inheritedUcxVariables() {
        Map<String, String> ucx = new TreeMap<>();
        System.getenv().forEach((name, value) -> {
            if (name.startsWith("UCX_")) {
                ucx.put(name, value);
            }
        });
        return ucx;
    }

    private static PluginResult measurePlugin(
            UromService service,
            long pluginId,
            String name,
            UcxSetting setting,
            int inlineBytes,
            SandboxBenchOptions options,
            int workerUid,
            Consumer<Path> made)
            throws UromException, IOException, InterruptedException {
        String what = name + ", " + setting.label();
        progress(what + ": two workers, one domain"
                + (setting.variables().isEmpty() ? "" : ", " + String.join(" ", setting.env())));
        try (Worker sender = ServiceBench.started(service, pluginId, setting.env());
                Worker receiver = ServiceBench.started(service, pluginId, setting.env())) {
            Domain domain = Domain.create(
                    List.of(sender, receiver),
                    new long[] {SandboxTraffic.SENDER_DOMAIN_ID, SandboxTraffic.RECEIVER_DOMAIN_ID},
                    InProcessAllgather.group(1).get(0));
            startDomain(domain);
            SandboxTraffic traffic = new SandboxTraffic(sender, receiver, pluginId);
            progress(what + ": BOUNCE of " + options.bounces() + " round trips of " + PING_BYTES + " bytes");
            Optional<Bounced> bounce = traffic.bounceRoundTrip(PING_BYTES, options.bounces());
            if (bounce.isEmpty()) {
                progress(what + ": BOUNCE is not supported");
            } else if (bounce.get().iterationsDone() < options.bounces()) {
                progress(what + ": BOUNCE reached the plugin's bound after "
                        + bounce.get().iterationsDone() + " of " + options.bounces()
                        + " rounds: its mean is over those");
            }
            progress(what + ": " + options.rounds() + " round trips of " + PING_BYTES + " bytes");
            LatencySummary roundTrip = traffic.roundTrips(PING_BYTES, options.rounds());
            progress(what + ": " + options.messages() + " inline messages of " + inlineBytes + " bytes, " + IN_FLIGHT
                    + " in flight");
            double inline = traffic.inlineBytesPerSecond(inlineBytes, options.messages(), IN_FLIGHT);
            progress(what + ": " + options.regions() + " MEM_MAP messages of " + REGION_BYTES + " bytes, " + IN_FLIGHT
                    + " in flight");
            double region = regionBandwidth(traffic, options.regions(), workerUid, made);
            return new PluginResult(bounce, options.bounces(), roundTrip, inline, region);
        }
    }

    /**
     * Maps a fresh /dev/shm file into each worker, checks one transfer byte for byte, then measures.
     * The files are the workers' own when they run as another user (a root bench): a MEM_MAP opens
     * only files of the worker's user or of the host's, and must be able to read and write them.
     */
    private static double regionBandwidth(SandboxTraffic traffic, int messages, int workerUid, Consumer<Path> made)
            throws IOException, InterruptedException {
        String prefix = "urom-bench-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID();
        Path sendFile = Path.of(SHM_DIR, prefix + "-send");
        Path receiveFile = Path.of(SHM_DIR, prefix + "-recv");
        made.accept(sendFile);
        made.accept(receiveFile);
        try {
            byte[] pattern = new byte[REGION_BYTES];
            new Random(prefix.hashCode()).nextBytes(pattern);
            Files.write(sendFile, pattern);
            Files.write(receiveFile, new byte[REGION_BYTES]);
            if (workerUid != UnixAccounts.effectiveUid()) {
                for (Path file : List.of(sendFile, receiveFile)) {
                    Files.setAttribute(file, "unix:uid", workerUid, LinkOption.NOFOLLOW_LINKS);
                }
            }
            long senderMemh = traffic.memMap(traffic.sender(), sendFile.toString(), REGION_BYTES);
            long receiverMemh = traffic.memMap(traffic.receiver(), receiveFile.toString(), REGION_BYTES);
            traffic.regionOnce(senderMemh, receiverMemh, REGION_BYTES);
            if (!Arrays.equals(Files.readAllBytes(receiveFile), pattern)) {
                throw new IllegalStateException(
                        "the " + REGION_BYTES + " bytes received into " + receiveFile + " differ from those sent");
            }
            return traffic.regionBytesPerSecond(senderMemh, receiverMemh, REGION_BYTES, messages, IN_FLIGHT);
        } finally {
            Files.deleteIfExists(sendFile);
            Files.deleteIfExists(receiveFile);
        }
    }

    private static void startDomain(Domain domain) throws UromException, InterruptedException {
        try {
            domain.start().get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UromException u) {
                throw u;
            }
            throw new IllegalStateException("the domain did not start: " + e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the domain did not start within " + ANSWER_TIMEOUT_S + " s");
        }
    }

    static List<Figure> figures(List<SettingResult> settings, FloorResult floor, int inlineBytes) {
        List<Figure> figures = new ArrayList<>();
        double floorP50 = micros(floor.roundTrip().p50Ns());
        double floorP99 = micros(floor.roundTrip().p99Ns());
        double floorInline = megabytes(floor.inlineBytesPerSecond());
        double floorRegion = megabytes(floor.regionBytesPerSecond());
        for (SettingResult result : settings) {
            String on = ", " + result.setting().label();
            String suffix = "_" + result.setting().id();
            double ucxRoundTrip = micros(result.ucx().latency().roundTripMeanNs());
            double ucxBandwidth = megabytes(result.ucx().bandwidth().bytesPerSecond());
            // BOUNCE gives a mean (elapsed over rounds): against tag_lat's mean, not its median.
            String latencyBaseline = "tag_lat x2 mean";
            String bandwidthBaseline = "tag_bw";
            for (Map.Entry<String, PluginResult> entry : result.plugins().entrySet()) {
                String kind = entry.getKey();
                String name = kind.equals("native") ? "C" : "Java";
                PluginResult plugin = entry.getValue();
                String bounceId = "bounce_round_trip_" + kind + suffix;
                String bounceLabel = "BOUNCE round trip, " + PING_BYTES + " B, " + name + " plugin" + on;
                long done = plugin.bounce().map(Bounced::iterationsDone).orElse(0L);
                if (plugin.bounce().isPresent() && done < plugin.bounceIterations()) {
                    bounceLabel += " (" + done + " of " + plugin.bounceIterations() + " rounds, at the plugin's bound)";
                }
                figures.add(
                        plugin.bounce().isPresent()
                                ? Figure.atMostTimes(
                                        bounceId,
                                        bounceLabel,
                                        plugin.bounce().get().meanRoundTripNs() / 1000,
                                        "us",
                                        latencyBaseline,
                                        ucxRoundTrip,
                                        BOUNCE_MAX_RATIO)
                                : Figure.unmeasured(
                                        bounceId,
                                        bounceLabel,
                                        "us",
                                        latencyBaseline,
                                        ucxRoundTrip,
                                        Figure.atMostTarget(BOUNCE_MAX_RATIO),
                                        NOT_SUPPORTED));
                figures.add(Figure.atLeastTimes(
                        "sandbox_region_bandwidth_" + kind + suffix,
                        "bandwidth MEM_MAP 1 MiB, " + name + " plugin" + on,
                        megabytes(plugin.regionBytesPerSecond()),
                        "MB/s",
                        bandwidthBaseline,
                        ucxBandwidth,
                        REGION_MIN_RATIO));
                figures.add(Figure.compared(
                        "sandbox_round_trip_p50_" + kind + suffix,
                        "host ping-pong p50, " + PING_BYTES + " B, " + name + " plugin" + on,
                        micros(plugin.roundTrip().p50Ns()),
                        "us",
                        "floor p50",
                        floorP50));
                figures.add(Figure.compared(
                        "sandbox_round_trip_p99_" + kind + suffix,
                        "host ping-pong p99, " + PING_BYTES + " B, " + name + " plugin" + on,
                        micros(plugin.roundTrip().p99Ns()),
                        "us",
                        "floor p99",
                        floorP99));
                figures.add(Figure.compared(
                        "sandbox_inline_bandwidth_" + kind + suffix,
                        "bandwidth inline " + inlineBytes + " B, " + name + " plugin" + on,
                        megabytes(plugin.inlineBytesPerSecond()),
                        "MB/s",
                        "floor",
                        floorInline));
            }
            figures.add(Figure.plain(
                    "ucx_tag_lat_round_trip_p50" + suffix,
                    "ucx_perftest tag_lat round trip (2x one-way p50), " + PING_BYTES + " B" + on,
                    micros(result.ucx().latency().roundTripP50Ns()),
                    "us"));
            figures.add(Figure.plain(
                    "ucx_tag_lat_round_trip_mean" + suffix,
                    "ucx_perftest tag_lat round trip (2x one-way mean), " + PING_BYTES + " B" + on,
                    ucxRoundTrip,
                    "us"));
            figures.add(Figure.plain("ucx_tag_bw" + suffix, "ucx_perftest tag_bw, 1 MiB" + on, ucxBandwidth, "MB/s"));
            figures.add(Figure.plain(
                    "ucx_err_tag_lat_round_trip_mean" + suffix,
                    "ucx_perftest -e (error handling) tag_lat round trip (2x" + " one-way mean), " + PING_BYTES + " B"
                            + on,
                    micros(result.ucx().latencyWithErrors().roundTripMeanNs()),
                    "us"));
            figures.add(Figure.plain(
                    "ucx_err_tag_bw" + suffix,
                    "ucx_perftest -e (error handling) tag_bw, 1 MiB" + on,
                    megabytes(result.ucx().bandwidthWithErrors().bytesPerSecond()),
                    "MB/s"));
        }
        figures.add(Figure.plain(
                "floor_round_trip_p50", "floor round trip p50, " + PING_BYTES + " B (C, Unix socket)", floorP50, "us"));
        figures.add(Figure.plain(
                "floor_round_trip_p99", "floor round trip p99, " + PING_BYTES + " B (C, Unix socket)", floorP99, "us"));
        figures.add(
                Figure.plain("floor_inline_bandwidth", "floor bandwidth " + inlineBytes + " B", floorInline, "MB/s"));
        figures.add(Figure.plain("floor_region_bandwidth", "floor bandwidth 1 MiB", floorRegion, "MB/s"));
        return figures;
    }

    private static double micros(double nanos) {
        return nanos / 1000.0;
    }

    private static double megabytes(double bytesPerSecond) {
        return bytesPerSecond / 1e6;
    }

    private static void progress(String line) {
        System.err.println("[sandbox] " + line);
    }
}
