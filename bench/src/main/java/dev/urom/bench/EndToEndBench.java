// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The end-to-end benchmark of the service, against its two baselines, in one run:
 * {@code java -cp bench/target/benchmarks.jar dev.urom.bench.EndToEndBench [--json FILE] [--rounds N] [--starts N]
 * [--worker-user USER] [--c-host-wait event|spin]}.
 *
 * <p>Measures graph LOOPBACK round trips through a private daemon and its worker process (C and
 * Java graph plugin; one command in flight, then {@value #IN_FLIGHT}) from the Java host and, against
 * the same daemon, from the C host ({@link CHostBaseline}, DOCA's host API), the worker start, the
 * floor ({@link FloorBaseline}) and the peer ({@link GrpcEchoBaseline}); prints a table on stdout and
 * writes the JSON document when asked. Progress goes to stderr. The CPU time per operation of the
 * processes on each path, over its measured rounds ({@link CpuCost}), comes first, against the
 * floor's measured the same way: those ratios are the headline, the wall-time ones follow.
 *
 * <p>Every process and socket it made is gone when it ends, normally or by Ctrl-C. Exit status 0
 * when it measured everything (whether or not targets were met), 1 when something failed, 2 on a
 * usage error; a failure is one line on stderr.
 */
public final class EndToEndBench {
    static final int IN_FLIGHT = 16;
    static final double ROUND_TRIP_MAX_TIMES_FLOOR = 1.5;
    static final double THROUGHPUT_MIN_TIMES_GRPC = 3.0;
    static final double WORKER_START_MAX_MS = 250;
    /** The C host at least as fast as the Java host: its p50 at most 1.0 times the Java host's, its throughput at least 1.0 times. */
    static final double C_HOST_ROUND_TRIP_MAX_TIMES_JAVA_HOST = 1.0;

    static final double C_HOST_THROUGHPUT_MIN_TIMES_JAVA_HOST = 1.0;
    /** The graph plugin of each kind that ServiceBench measures. */
    static final Map<String, String> PLUGINS_BY_KIND = orderedPlugins();

    private EndToEndBench() {}

    public static void main(String[] args) {
        BenchOptions options;
        try {
            options = BenchOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("EndToEndBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(Report.printRun("EndToEndBench", options.json(), () -> run(options)));
    }

    static Report run(BenchOptions options) throws IOException, InterruptedException {
        int commandFrame = FrameCodec.encode(0, ServiceBench.loopbackCommand(1)).remaining();
        int notifyFrame = FrameCodec.encode(
                        0,
                        new Message.Notify(
                                ServiceBench.FRAME_SIZE_PLUGIN_ID,
                                1,
                                UromStatus.SUCCESS,
                                GraphClient.loopbackCommand(1)))
                .remaining();
        int commandBody = ServiceBench.loopbackCommand(1).sizeWithHeader();
        int notifyBody = Message.Notify.HEADER_BYTES + GraphClient.loopbackCommand(1).length;
        try (RunFolder run = new RunFolder("urom-e2e");
                ChildProcesses children = new ChildProcesses()) {
            Path workDir = run.path();
            progress("floor: uds_pingpong, " + commandFrame + "-byte requests, " + notifyFrame + "-byte replies");
            FloorBaseline.Result floor = new FloorBaseline(FloorBaseline.locateProgram(), children)
                    .run(
                            workDir.resolve("floor.sock"),
                            commandFrame,
                            notifyFrame,
                            options.rounds(),
                            options.throughputRounds(),
                            IN_FLIGHT);
            progress("peer: gRPC unary, " + commandBody + "-byte requests, " + notifyBody + "-byte replies");
            GrpcEchoBaseline.Result grpc = new GrpcEchoBaseline(children)
                    .run(
                            workDir.resolve("grpc.sock"),
                            commandBody,
                            notifyBody,
                            options.rounds(),
                            options.throughputRounds(),
                            IN_FLIGHT);
            CHostBaseline cHost = new CHostBaseline(CHostBaseline.locateProgram(), children);
            ServiceBench.WithSameDaemon<Map<String, CHostBaseline.Result>> measured = new ServiceBench(
                            workDir, options.workerUser(), EndToEndBench::progress)
                    .run(options.rounds(), options.throughputRounds(), IN_FLIGHT, options.starts(), daemon -> {
                        progress("C host: " + CHostBaseline.PROGRAM_NAME + " ("
                                + options.cHostWait().argument() + "), one worker per plugin, " + options.rounds()
                                + " round trips, then " + options.throughputRounds() + " with " + IN_FLIGHT
                                + " in flight");
                        return cHost.run(
                                daemon.address(),
                                ServiceBench.workersOf(daemon),
                                workDir,
                                PLUGINS_BY_KIND,
                                options.rounds(),
                                options.throughputRounds(),
                                IN_FLIGHT,
                                options.cHostWait());
                    });
            Map<String, Object> settings = new LinkedHashMap<>();
            settings.put("rounds", options.rounds());
            settings.put("throughputCommands", options.throughputRounds());
            settings.put("inFlight", IN_FLIGHT);
            settings.put("workerStarts", options.starts());
            settings.put("cHostWait", options.cHostWait().argument());
            settings.put("commandFrameBytes", commandFrame);
            settings.put("notifyFrameBytes", notifyFrame);
            settings.put("cpus", Runtime.getRuntime().availableProcessors());
            settings.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
            return new Report(
                    settings,
                    figures(floor, grpc, measured.service(), measured.alongside()),
                    LatencyChart.endToEnd(floor, grpc, measured.service(), measured.alongside()));
        }
    }

    static List<Figure> figures(
            FloorBaseline.Result floor,
            GrpcEchoBaseline.Result grpc,
            ServiceBench.Result service,
            Map<String, CHostBaseline.Result> cHost) {
        List<Figure> figures = new ArrayList<>(cpuFigures(floor, grpc, service, cHost));
        double floorP50 = micros(floor.p50Ns());
        double floorP99 = micros(floor.p99Ns());
        for (String kind : List.of("native", "java")) {
            ServiceBench.PluginResult plugin = service.plugin(kind);
            String name = kind.equals("native") ? "C" : "Java";
            figures.add(Figure.atMostTimes(
                    "round_trip_p50_" + kind,
                    "round trip p50, " + name + " plugin",
                    micros(plugin.roundTrip().p50Ns()),
                    "us",
                    "floor p50",
                    floorP50,
                    ROUND_TRIP_MAX_TIMES_FLOOR));
            figures.add(Figure.compared(
                    "round_trip_p99_" + kind,
                    "round trip p99, " + name + " plugin",
                    micros(plugin.roundTrip().p99Ns()),
                    "us",
                    "floor p99",
                    floorP99));
        }
        for (String kind : List.of("native", "java")) {
            ServiceBench.PluginResult plugin = service.plugin(kind);
            String name = kind.equals("native") ? "C" : "Java";
            figures.add(Figure.atLeastTimes(
                    "throughput_" + kind,
                    "throughput " + IN_FLIGHT + " in flight, " + name + " plugin",
                    plugin.opsPerSecond(),
                    "ops/s",
                    "gRPC",
                    grpc.opsPerSecond(),
                    THROUGHPUT_MIN_TIMES_GRPC));
        }
        for (String kind : PLUGINS_BY_KIND.keySet()) {
            ServiceBench.PluginResult javaHost = service.plugin(kind);
            CHostBaseline.Result c = cHostResult(cHost, kind);
            String name = kind.equals("native") ? "C" : "Java";
            figures.add(Figure.atMostTimes(
                    "c_host_round_trip_p50_" + kind,
                    "C host round trip p50, " + name + " plugin",
                    micros(c.p50Ns()),
                    "us",
                    "Java host p50",
                    micros(javaHost.roundTrip().p50Ns()),
                    C_HOST_ROUND_TRIP_MAX_TIMES_JAVA_HOST));
            figures.add(Figure.compared(
                    "c_host_round_trip_p99_" + kind,
                    "C host round trip p99, " + name + " plugin",
                    micros(c.p99Ns()),
                    "us",
                    "Java host p99",
                    micros(javaHost.roundTrip().p99Ns())));
            figures.add(Figure.atLeastTimes(
                    "c_host_throughput_" + kind,
                    "C host throughput " + IN_FLIGHT + " in flight, " + name + " plugin",
                    c.opsPerSecond(),
                    "ops/s",
                    "Java host",
                    javaHost.opsPerSecond(),
                    C_HOST_THROUGHPUT_MIN_TIMES_JAVA_HOST));
        }
        figures.add(Figure.atMost(
                "worker_start_p50",
                "worker start p50 (C + Java plugin)",
                service.workerStartP50Ms(),
                "ms",
                WORKER_START_MAX_MS));
        figures.add(Figure.plain("floor_round_trip_p50", "floor round trip p50 (C, Unix socket)", floorP50, "us"));
        figures.add(Figure.plain("floor_round_trip_p99", "floor round trip p99 (C, Unix socket)", floorP99, "us"));
        figures.add(Figure.plain(
                "floor_throughput", "floor throughput " + IN_FLIGHT + " in flight", floor.opsPerSecond(), "ops/s"));
        figures.add(Figure.compared(
                "floor_relay_round_trip_p50",
                "floor via a relay p50 (two hops)",
                micros(floor.relayP50Ns()),
                "us",
                "floor p50",
                floorP50));
        figures.add(Figure.compared(
                "grpc_round_trip_p50", "gRPC round trip p50", micros(grpc.p50Ns()), "us", "floor p50", floorP50));
        figures.add(Figure.compared(
                "grpc_round_trip_p99", "gRPC round trip p99", micros(grpc.p99Ns()), "us", "floor p99", floorP99));
        figures.add(Figure.compared(
                "grpc_throughput",
                "gRPC throughput " + IN_FLIGHT + " in flight",
                grpc.opsPerSecond(),
                "ops/s",
                "floor",
                floor.opsPerSecond()));
        return figures;
    }

    /**
     * The headline figures: the CPU time per operation of every process on each path, the host's
     * and the worker's (the floor's client and server, ...), over the measured rounds, against the
     * floor's measured the same way. Wall time swings with whatever else the machine runs; the CPU
     * a command costs does much less.
     */
    static List<Figure> cpuFigures(
            FloorBaseline.Result floor,
            GrpcEchoBaseline.Result grpc,
            ServiceBench.Result service,
            Map<String, CHostBaseline.Result> cHost) {
        List<Figure> figures = new ArrayList<>();
        String inFlight = IN_FLIGHT + " in flight";
        for (String kind : PLUGINS_BY_KIND.keySet()) {
            ServiceBench.PluginResult plugin = service.plugin(kind);
            String name = kind.equals("native") ? "C" : "Java";
            figures.add(Figure.cpuPerOp(
                    "cpu_round_trip_" + kind,
                    "CPU per round trip, " + name + " plugin",
                    plugin.roundTripCpu(),
                    "floor",
                    floor.roundTripCpu()));
            figures.add(Figure.cpuPerOp(
                    "cpu_throughput_" + kind,
                    "CPU per command " + inFlight + ", " + name + " plugin",
                    plugin.throughputCpu(),
                    "floor",
                    floor.throughputCpu()));
        }
        for (String kind : PLUGINS_BY_KIND.keySet()) {
            CHostBaseline.Result c = cHostResult(cHost, kind);
            String name = kind.equals("native") ? "C" : "Java";
            figures.add(Figure.cpuPerOp(
                    "c_host_cpu_round_trip_" + kind,
                    "C host CPU per round trip, " + name + " plugin",
                    c.roundTripCpu(),
                    "floor",
                    floor.roundTripCpu()));
            figures.add(Figure.cpuPerOp(
                    "c_host_cpu_throughput_" + kind,
                    "C host CPU per command " + inFlight + ", " + name + " plugin",
                    c.throughputCpu(),
                    "floor",
                    floor.throughputCpu()));
        }
        figures.add(
                Figure.cpuPerOp("floor_cpu_round_trip", "floor CPU per round trip", floor.roundTripCpu(), null, null));
        figures.add(Figure.cpuPerOp(
                "floor_cpu_throughput", "floor CPU per message " + inFlight, floor.throughputCpu(), null, null));
        figures.add(Figure.cpuPerOp(
                "floor_relay_cpu_round_trip",
                "floor via a relay CPU per round trip",
                floor.relayCpu(),
                "floor",
                floor.roundTripCpu()));
        figures.add(Figure.cpuPerOp(
                "grpc_cpu_round_trip", "gRPC CPU per call", grpc.roundTripCpu(), "floor", floor.roundTripCpu()));
        figures.add(Figure.cpuPerOp(
                "grpc_cpu_throughput",
                "gRPC CPU per call " + inFlight,
                grpc.throughputCpu(),
                "floor",
                floor.throughputCpu()));
        return figures;
    }

    private static CHostBaseline.Result cHostResult(Map<String, CHostBaseline.Result> cHost, String kind) {
        CHostBaseline.Result result = cHost.get(kind);
        if (result == null) {
            throw new IllegalStateException("no C host figures for the " + kind + " graph plugin");
        }
        return result;
    }

    private static Map<String, String> orderedPlugins() {
        Map<String, String> plugins = new LinkedHashMap<>();
        plugins.put("native", ServiceBench.NATIVE_PLUGIN_NAME);
        plugins.put("java", ServiceBench.JAVA_PLUGIN_NAME);
        return java.util.Collections.unmodifiableMap(plugins);
    }

    private static double micros(long nanos) {
        return nanos / 1000.0;
    }

    private static void progress(String line) {
        System.err.println("[e2e] " + line);
    }
}
