// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LatencyChartTest {
    @TempDir
    Path dir;

    private static CpuCost cpu() {
        return new CpuCost(Map.of("client", 1_000_000L), 100);
    }

    @Test
    void endToEndDrawsTheJavaHostAndGrpcFromSamplesAndTheCProgramsByTheirPercentiles() {
        Random random = new Random(1);
        LatencySummary nativePlugin = LatencySummary.of(LatencyCurveTest.heavyTailed(5_000, random));
        LatencySummary javaPlugin = LatencySummary.of(LatencyCurveTest.heavyTailed(5_000, random));
        LatencySummary grpc = LatencySummary.of(LatencyCurveTest.heavyTailed(5_000, random));
        ServiceBench.Result service = new ServiceBench.Result(
                Map.of(
                        "native", new ServiceBench.PluginResult(nativePlugin, 1, cpu(), cpu()),
                        "java", new ServiceBench.PluginResult(javaPlugin, 1, cpu(), cpu())),
                100);
        Map<String, CHostBaseline.Result> cHost = new LinkedHashMap<>();
        cHost.put("native", new CHostBaseline.Result(11_000, 30_000, 1, cpu(), cpu()));
        cHost.put("java", new CHostBaseline.Result(12_000, 31_000, 1, cpu(), cpu()));

        Map<String, LatencyCurve> curves = LatencyChart.endToEnd(
                new FloorBaseline.Result(8_000, 20_000, 1, 16_000, cpu(), cpu(), cpu()),
                new GrpcEchoBaseline.Result(grpc.p50Ns(), grpc.p99Ns(), 1, cpu(), cpu(), grpc.curve()),
                service,
                cHost);

        assertThat(curves.keySet())
                .containsExactly(
                        "Java host, C plugin",
                        "Java host, Java plugin",
                        "gRPC unary call (peer)",
                        "floor: uds_pingpong (p50, p99)",
                        "C host, C plugin (p50, p99)",
                        "C host, Java plugin (p50, p99)");
        assertThat(curves.get("Java host, C plugin")).isSameAs(nativePlugin.curve());
        assertThat(curves.get("Java host, Java plugin")).isSameAs(javaPlugin.curve());
        assertThat(curves.get("gRPC unary call (peer)")).isSameAs(grpc.curve());
        assertThat(curves.get("floor: uds_pingpong (p50, p99)")).isEqualTo(LatencyCurve.known(8_000, 20_000));
        assertThat(curves.get("C host, Java plugin (p50, p99)")).isEqualTo(LatencyCurve.known(12_000, 31_000));
    }

    @Test
    void aRunWithJsonWritesItsLatencyChartBesideIt() throws IOException {
        Path json = dir.resolve("out").resolve("e2e.json");

        int status = Report.printRun("EndToEndBench", json, () -> report());

        assertThat(status).isZero();
        assertThat(Files.readString(json)).contains("\"round_trip_p50\"");
        BufferedImage image =
                ImageIO.read(dir.resolve("out").resolve("e2e-latency.png").toFile());
        assertThat(image.getWidth()).isEqualTo(Plots.LATENCY_WIDTH);
        assertThat(PlotsTest.coloured(image)).isGreaterThan(1_000);
    }

    @Test
    void aChartThatFailsLeavesTheJsonAndTheExitStatusAndSaysSoInOneLine() throws IOException {
        Path json = dir.resolve("e2e.json");
        Path blocker = Files.createDirectories(dir.resolve("e2e-latency.png").resolve("not-empty"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream original = System.err;
        int status;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            status = Report.printRun("EndToEndBench", json, () -> report());
        } finally {
            System.setErr(original);
        }

        assertThat(status).isZero();
        assertThat(Files.readString(json)).contains("\"round_trip_p50\"");
        assertThat(blocker).isDirectory();
        assertThat(err.toString(StandardCharsets.UTF_8).lines().toList())
                .singleElement()
                .asString()
                .startsWith("EndToEndBench: no chart " + dir.resolve("e2e-latency.png") + ": ");
    }

    @Test
    void aReportWithoutLatenciesHasNoChart() throws IOException {
        Path json = dir.resolve("dispatch.json");

        assertThat(Report.printRun(
                        "DispatchInstructions",
                        json,
                        () -> new Report(Map.of(), List.of(Figure.plain("a", "a", 1, "us")))))
                .isZero();

        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(json);
        }
    }

    private static Report report() {
        Map<String, LatencyCurve> curves = new LinkedHashMap<>();
        curves.put(
                "service",
                LatencySummary.of(LatencyCurveTest.heavyTailed(20_000, new Random(2)))
                        .curve());
        curves.put("floor (p50, p99)", LatencyCurve.known(8_000, 20_000));
        return new Report(
                Map.of("rounds", 20_000),
                List.of(Figure.plain("round_trip_p50", "round trip p50", 12.5, "us")),
                curves);
    }
}
