// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The round-trip latency chart of a benchmark that writes a {@link Report}: {@code FILE.json} gets
 * {@code FILE-latency.png} beside it ({@link #pathFor}), a percentile chart ({@link Plots#latency})
 * of every path measured with one command in flight, so the service's paths and their baselines
 * are side by side. Paths measured in this JVM are lines drawn from their samples; the C programs
 * ({@code uds_pingpong}, {@code c_host_loopback}) report only a p50 and a p99, which are marks.
 *
 * <p>Stateless. {@link #write} never throws: a chart that cannot be drawn is one line on stderr.
 */
final class LatencyChart {
    static final String SUFFIX = "-latency.png";

    private LatencyChart() {}

    /** Where the chart of the JSON document {@code json} goes. */
    static Path pathFor(Path json) {
        return Plots.nextTo(json, SUFFIX);
    }

    /** Draws the chart of {@code report}'s latencies next to {@code json}; false when it has none or it failed. */
    static boolean write(String program, Path json, Report report) {
        if (report.latencies().isEmpty()) {
            return false;
        }
        Path png = pathFor(json);
        return Plots.render(
                program,
                png,
                () -> Plots.latency(
                        png, program + ": round-trip latency, one in flight", subtitle(report), report.latencies()));
    }

    /** EndToEndBench's: the Java host's two plugins and gRPC from their samples; the floor and the C host by their p50 and p99. */
    static Map<String, LatencyCurve> endToEnd(
            FloorBaseline.Result floor,
            GrpcEchoBaseline.Result grpc,
            ServiceBench.Result service,
            Map<String, CHostBaseline.Result> cHost) {
        Map<String, LatencyCurve> curves = new LinkedHashMap<>();
        for (String kind : EndToEndBench.PLUGINS_BY_KIND.keySet()) {
            curves.put(
                    "Java host, " + pluginName(kind) + " plugin",
                    service.plugin(kind).roundTrip().curve());
        }
        curves.put("gRPC unary call (peer)", grpc.roundTripCurve());
        curves.put("floor: uds_pingpong (p50, p99)", LatencyCurve.known(floor.p50Ns(), floor.p99Ns()));
        for (Map.Entry<String, CHostBaseline.Result> c : cHost.entrySet()) {
            curves.put(
                    "C host, " + pluginName(c.getKey()) + " plugin (p50, p99)",
                    LatencyCurve.known(c.getValue().p50Ns(), c.getValue().p99Ns()));
        }
        return curves;
    }

    /** SandboxBench's: the host-driven ping-pong of each plugin on each UCX setting, and the floor's p50 and p99. */
    static Map<String, LatencyCurve> sandbox(List<SandboxBench.SettingResult> settings, FloorBaseline.Latency floor) {
        Map<String, LatencyCurve> curves = new LinkedHashMap<>();
        for (SandboxBench.SettingResult setting : settings) {
            for (Map.Entry<String, SandboxBench.PluginResult> plugin :
                    setting.plugins().entrySet()) {
                curves.put(
                        pluginName(plugin.getKey()) + " plugin, "
                                + setting.setting().label(),
                        plugin.getValue().roundTrip().curve());
            }
        }
        curves.put("floor: uds_pingpong (p50, p99)", LatencyCurve.known(floor.p50Ns(), floor.p99Ns()));
        return curves;
    }

    private static String subtitle(Report report) {
        Object rounds = report.settings().get("rounds");
        boolean marks = report.latencies().values().stream().anyMatch(c -> !c.sampled());
        return (rounds == null ? "lines: every measured round trip" : "lines: " + rounds + " measured round trips each")
                + (marks ? "; marks: the p50 and p99 a C program reports" : "");
    }

    private static String pluginName(String kind) {
        return kind.equals("native") ? "C" : "Java";
    }
}
