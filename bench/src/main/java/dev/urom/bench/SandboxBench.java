package dev.urom.bench;

import dev.urom.framework.domain.InProcessAllgather;
import dev.urom.framework.host.Domain;
import dev.urom.framework.host.SandboxClient;
import dev.urom.framework.host.UromService;
import dev.urom.framework.host.Worker;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.framework.wire.DomainPeer;
import dev.urom.framework.wire.Message;
import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.spi.UromException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The sandbox benchmark: two sandbox workers of one domain exchanging messages, against the C
 * Unix-socket floor, in one run:
 * {@code java -cp bench/target/benchmarks.jar dev.urom.bench.SandboxBench [--json FILE] [--rounds N] [--messages N] [--regions N]}.
 *
 * <p>Starts a private daemon in this process with copies of {@code worker_sandbox.so} and {@code
 * worker_sandbox_java.jar}; for each plugin, two workers in one domain (ids 0 and 1, one rank)
 * measure the ping-pong round trip of {@value #PING_BYTES} inline bytes (p50, p99), the one-way
 * bandwidth of the largest inline message the max message size allows and of {@value #REGION_BYTES}-byte
 * messages between two {@code /dev/shm} files mapped with MEM_MAP (its bytes checked in the
 * receiver's file), {@value #IN_FLIGHT} messages in flight. The floor, {@link FloorBaseline}, moves
 * the same sizes between two C processes. Prints a table on stdout and writes the JSON document when
 * asked; progress goes to stderr. MB is 10^6 bytes.
 *
 * <p>Every process, socket and {@code /dev/shm} file it made is gone when it ends. Exit status 0
 * when it measured everything, 1 when something failed, 2 on a usage error; a failure is one line on
 * stderr.
 */
public final class SandboxBench {
    static final int IN_FLIGHT = 16;
    static final int PING_BYTES = 8;
    static final int REGION_BYTES = 1 << 20;
    static final String NATIVE_PLUGIN_FILE = "worker_sandbox.so";
    static final String JAVA_PLUGIN_FILE = "worker_sandbox_java.jar";
    /** A directory holding both sandbox plugin files, instead of plugins/sandbox/target. */
    static final String DIR_PROPERTY = "urom.bench.sandbox.dir";
    private static final long ANSWER_TIMEOUT_S = 120;
    private static final String SHM_DIR = "/dev/shm";

    /** What one plugin measured: round trip in ns, bandwidths in bytes per second. */
    record PluginResult(LatencySummary roundTrip, double inlineBytesPerSecond, double regionBytesPerSecond) {}

    /** What the floor measured: round trip in ns, bandwidths in bytes per second. */
    record FloorResult(FloorBaseline.Latency roundTrip, double inlineBytesPerSecond, double regionBytesPerSecond) {}

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
     * run or its workers made ({@code /dev/shm} files, plugin sockets), each gone when this returns.
     */
    static Report run(SandboxBenchOptions options, Consumer<Path> made) throws IOException, InterruptedException {
        try (RunFolder run = new RunFolder("urom-sandbox-bench"); ChildProcesses children = new ChildProcesses()) {
            Path workDir = run.path();
            Path pluginDir = Files.createDirectories(workDir.resolve("plugins"));
            for (String file : List.of(NATIVE_PLUGIN_FILE, JAVA_PLUGIN_FILE)) {
                Files.copy(PluginFiles.locate("plugins/sandbox", DIR_PROPERTY, file), pluginDir.resolve(file),
                        StandardCopyOption.REPLACE_EXISTING);
            }
            DaemonConfig config = ServiceBench.privateDaemon(workDir, pluginDir, options.workerUser());
            int inlineBytes = config.maxMessageSize() - Message.Command.HEADER_BYTES - SandboxClient.TAG_COMMAND_BYTES;
            Map<String, PluginResult> plugins = new LinkedHashMap<>();
            progress("daemon on " + config.listen() + ", plugins " + pluginDir);
            try (Daemon daemon = Daemon.start(config); UromService service = UromService.connect(daemon.address().toString())) {
                for (String kind : List.of("native", "java")) {
                    String name = kind.equals("native") ? "worker_sandbox" : "worker_sandbox_java";
                    long pluginId = ServiceBench.pluginId(service.plugins(), name);
                    plugins.put(kind, measurePlugin(service, pluginId, name, inlineBytes, options, daemon.workerAccount().uid(), made));
                    ServiceBench.awaitNoWorkers(daemon);
                }
            } catch (UromException e) {
                throw new IllegalStateException("service: " + e.status() + ": " + e.getMessage());
            }
            FloorBaseline floorBaseline = new FloorBaseline(FloorBaseline.locateProgram(), children);
            progress("floor: uds_pingpong, " + PING_BYTES + "-byte round trips, then " + inlineBytes + "- and " + REGION_BYTES
                    + "-byte messages one way");
            FloorBaseline.Latency floorLatency = floorBaseline.latency(workDir.resolve("floor.sock"), PING_BYTES, PING_BYTES, options.rounds());
            double floorInline = inlineBytes * floorBaseline.opsPerSecond(workDir.resolve("floor.sock"), inlineBytes, 1,
                    SandboxBenchOptions.warmUp(options.messages()), options.messages(), IN_FLIGHT);
            double floorRegion = (double) REGION_BYTES * floorBaseline.opsPerSecond(workDir.resolve("floor.sock"), REGION_BYTES, 1,
                    SandboxBenchOptions.warmUp(options.regions()), options.regions(), IN_FLIGHT);
            Map<String, Object> settings = new LinkedHashMap<>();
            settings.put("rounds", options.rounds());
            settings.put("inlineMessages", options.messages());
            settings.put("regionMessages", options.regions());
            settings.put("inFlight", IN_FLIGHT);
            settings.put("pingBytes", PING_BYTES);
            settings.put("inlineBytes", inlineBytes);
            settings.put("regionBytes", REGION_BYTES);
            settings.put("maxMessageSize", config.maxMessageSize());
            settings.put("cpus", Runtime.getRuntime().availableProcessors());
            settings.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            return new Report(settings, figures(plugins, new FloorResult(floorLatency, floorInline, floorRegion), inlineBytes));
        }
    }

    private static PluginResult measurePlugin(UromService service, long pluginId, String name, int inlineBytes, SandboxBenchOptions options, int workerUid,
            Consumer<Path> made) throws UromException, IOException, InterruptedException {
        progress(name + ": two workers, one domain");
        try (Worker sender = ServiceBench.started(service, pluginId); Worker receiver = ServiceBench.started(service, pluginId)) {
            Domain domain = Domain.create(List.of(sender, receiver),
                    new long[] {SandboxTraffic.SENDER_DOMAIN_ID, SandboxTraffic.RECEIVER_DOMAIN_ID}, InProcessAllgather.group(1).get(0));
            startDomain(domain);
            pluginSockets(domain).forEach(made);
            SandboxTraffic traffic = new SandboxTraffic(sender, receiver, pluginId);
            progress(name + ": " + options.rounds() + " round trips of " + PING_BYTES + " bytes");
            LatencySummary roundTrip = traffic.roundTrips(PING_BYTES, options.rounds());
            progress(name + ": " + options.messages() + " inline messages of " + inlineBytes + " bytes, " + IN_FLIGHT + " in flight");
            double inline = traffic.inlineBytesPerSecond(inlineBytes, options.messages(), IN_FLIGHT);
            progress(name + ": " + options.regions() + " MEM_MAP messages of " + REGION_BYTES + " bytes, " + IN_FLIGHT + " in flight");
            double region = regionBandwidth(traffic, options.regions(), workerUid, made);
            return new PluginResult(roundTrip, inline, region);
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
                throw new IllegalStateException("the " + REGION_BYTES + " bytes received into " + receiveFile + " differ from those sent");
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

    /** The Unix sockets the domain's plugins listen on (addresses {@code unix:<path>}, a native one NUL-terminated). */
    static List<Path> pluginSockets(Domain domain) {
        List<Path> sockets = new ArrayList<>();
        for (DomainPeer peer : domain.peers()) {
            for (DomainPeer.PluginAddress address : peer.addresses()) {
                String text = new String(address.address(), StandardCharsets.UTF_8);
                int end = text.indexOf('\0');
                text = end < 0 ? text : text.substring(0, end);
                if (text.startsWith("unix:")) {
                    sockets.add(Path.of(text.substring("unix:".length())));
                }
            }
        }
        return sockets;
    }

    static List<Figure> figures(Map<String, PluginResult> plugins, FloorResult floor, int inlineBytes) {
        List<Figure> figures = new ArrayList<>();
        double floorP50 = micros(floor.roundTrip().p50Ns());
        double floorP99 = micros(floor.roundTrip().p99Ns());
        double floorInline = megabytes(floor.inlineBytesPerSecond());
        double floorRegion = megabytes(floor.regionBytesPerSecond());
        for (Map.Entry<String, PluginResult> entry : plugins.entrySet()) {
            String kind = entry.getKey();
            String name = kind.equals("native") ? "C" : "Java";
            PluginResult plugin = entry.getValue();
            figures.add(Figure.compared("sandbox_round_trip_p50_" + kind, "round trip p50, " + PING_BYTES + " B, " + name + " plugin",
                    micros(plugin.roundTrip().p50Ns()), "us", "floor p50", floorP50));
            figures.add(Figure.compared("sandbox_round_trip_p99_" + kind, "round trip p99, " + PING_BYTES + " B, " + name + " plugin",
                    micros(plugin.roundTrip().p99Ns()), "us", "floor p99", floorP99));
            figures.add(Figure.compared("sandbox_inline_bandwidth_" + kind, "bandwidth inline " + inlineBytes + " B, " + name + " plugin",
                    megabytes(plugin.inlineBytesPerSecond()), "MB/s", "floor", floorInline));
            figures.add(Figure.compared("sandbox_region_bandwidth_" + kind, "bandwidth MEM_MAP 1 MiB, " + name + " plugin",
                    megabytes(plugin.regionBytesPerSecond()), "MB/s", "floor", floorRegion));
        }
        figures.add(Figure.plain("floor_round_trip_p50", "floor round trip p50, " + PING_BYTES + " B (C, Unix socket)", floorP50, "us"));
        figures.add(Figure.plain("floor_round_trip_p99", "floor round trip p99, " + PING_BYTES + " B (C, Unix socket)", floorP99, "us"));
        figures.add(Figure.plain("floor_inline_bandwidth", "floor bandwidth " + inlineBytes + " B", floorInline, "MB/s"));
        figures.add(Figure.plain("floor_region_bandwidth", "floor bandwidth 1 MiB", floorRegion, "MB/s"));
        return figures;
    }

    private static double micros(long nanos) {
        return nanos / 1000.0;
    }

    private static double megabytes(double bytesPerSecond) {
        return bytesPerSecond / 1e6;
    }

    private static void progress(String line) {
        System.err.println("[sandbox] " + line);
    }
}
