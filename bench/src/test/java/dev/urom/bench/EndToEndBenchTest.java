// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndToEndBenchTest {
    /** The floor: 8 us of CPU per round trip (client 5, server 3), 4 us per message with 16 in flight. */
    private final FloorBaseline.Result floor = new FloorBaseline.Result(
            10_000,
            20_000,
            200_000,
            25_000,
            cpu(1000, "client", 5_000_000, "server", 3_000_000),
            cpu(5000, "client", 12_000_000, "server", 8_000_000),
            cpu(1000, "client", 5_000_000, "relay", 6_000_000, "server", 3_000_000));

    private final GrpcEchoBaseline.Result grpc = new GrpcEchoBaseline.Result(
            80_000,
            300_000,
            20_000,
            cpu(1000, "client", 60_000_000, "server", 40_000_000),
            cpu(5000, "client", 150_000_000, "server", 100_000_000),
            LatencyCurve.known(80_000, 300_000));

    private final ServiceBench.Result service = new ServiceBench.Result(
            Map.of(
                    "native",
                            new ServiceBench.PluginResult(
                                    new LatencySummary(10, 15_000, 40_000, 16_000, LatencyCurve.known(15_000, 40_000)),
                                    60_000,
                                    cpu(1000, "host", 10_000_000, "worker", 6_000_000),
                                    cpu(5000, "host", 30_000_000, "worker", 20_000_000)),
                    "java",
                            new ServiceBench.PluginResult(
                                    new LatencySummary(10, 16_000, 50_000, 17_000, LatencyCurve.known(16_000, 50_000)),
                                    59_000,
                                    cpu(1000, "host", 10_000_000, "worker", 8_000_000),
                                    cpu(5000, "host", 30_000_000, "worker", 25_000_000))),
            300);
    /** As fast as the Java host with the C plugin (met, the ratio exactly 1); slower with the Java plugin. */
    private final Map<String, CHostBaseline.Result> cHost = Map.of(
            "native",
                    new CHostBaseline.Result(
                            15_000,
                            30_000,
                            60_000,
                            cpu(1000, "host", 4_000_000, "worker", 6_000_000),
                            cpu(5000, "host", 15_000_000, "worker", 20_000_000)),
            "java",
                    new CHostBaseline.Result(
                            16_500,
                            45_000,
                            58_000,
                            cpu(1000, "host", 4_000_000, "worker", 8_000_000),
                            cpu(5000, "host", 22_500_000, "worker", 25_000_000)));

    @Test
    void cpuPerOperationComesFirstWithEachProcessAndItsRatioToTheFloor() {
        List<Figure> figures = EndToEndBench.figures(floor, grpc, service, cHost);

        assertThat(figures.subList(0, 13))
                .extracting(Figure::id, Figure::value, Figure::baselineValue, Figure::ratio)
                .containsExactly(
                        tuple("cpu_round_trip_native", 16.0, 8.0, 2.0),
                        tuple("cpu_throughput_native", 10.0, 4.0, 2.5),
                        tuple("cpu_round_trip_java", 18.0, 8.0, 2.25),
                        tuple("cpu_throughput_java", 11.0, 4.0, 2.75),
                        tuple("c_host_cpu_round_trip_native", 10.0, 8.0, 1.25),
                        tuple("c_host_cpu_throughput_native", 7.0, 4.0, 1.75),
                        tuple("c_host_cpu_round_trip_java", 12.0, 8.0, 1.5),
                        tuple("c_host_cpu_throughput_java", 9.5, 4.0, 2.375),
                        tuple("floor_cpu_round_trip", 8.0, null, null),
                        tuple("floor_cpu_throughput", 4.0, null, null),
                        tuple("floor_relay_cpu_round_trip", 14.0, 8.0, 1.75),
                        tuple("grpc_cpu_round_trip", 100.0, 8.0, 12.5),
                        tuple("grpc_cpu_throughput", 50.0, 4.0, 12.5));
        assertThat(figures.get(0).parts()).containsExactly(entry("host", 10.0), entry("worker", 6.0));
        assertThat(figures.get(10).parts())
                .containsExactly(entry("client", 5.0), entry("relay", 6.0), entry("server", 3.0));
        assertThat(figures.subList(0, 13))
                .allSatisfy(f -> assertThat(f.unit()).isEqualTo("us"))
                .allSatisfy(f -> assertThat(f.target()).isNull());
        assertThat(figures.subList(13, figures.size()))
                .allSatisfy(f -> assertThat(f.parts()).isEmpty());
    }

    /** A CPU cost over {@code operations} of the processes and nanoseconds given in pairs: role, nanoseconds, ... */
    private static CpuCost cpu(long operations, Object... rolesAndNanos) {
        Map<String, Long> nanos = new java.util.LinkedHashMap<>();
        for (int i = 0; i < rolesAndNanos.length; i += 2) {
            nanos.put((String) rolesAndNanos[i], ((Number) rolesAndNanos[i + 1]).longValue());
        }
        return new CpuCost(nanos, operations);
    }

    @Test
    void roundTripIsJudgedAgainstTheFloorAndThroughputAgainstGrpc() {

        List<Figure> figures = EndToEndBench.figures(floor, grpc, service, cHost);

        assertThat(figures)
                .filteredOn(f -> f.met() != null)
                .extracting(Figure::id, Figure::value, Figure::baselineValue, Figure::met)
                .containsExactly(
                        tuple("round_trip_p50_native", 15.0, 10.0, true),
                        tuple("round_trip_p50_java", 16.0, 10.0, false),
                        tuple("throughput_native", 60_000.0, 20_000.0, true),
                        tuple("throughput_java", 59_000.0, 20_000.0, false),
                        tuple("c_host_round_trip_p50_native", 15.0, 15.0, true),
                        tuple("c_host_throughput_native", 60_000.0, 60_000.0, true),
                        tuple("c_host_round_trip_p50_java", 16.5, 16.0, false),
                        tuple("c_host_throughput_java", 58_000.0, 59_000.0, false),
                        tuple("worker_start_p50", 300.0, null, false));
        assertThat(figures)
                .extracting(Figure::id)
                .contains("round_trip_p99_native", "floor_round_trip_p50", "grpc_throughput");
    }

    @Test
    void cHostIsJudgedAgainstTheJavaHostOfTheSamePlugin() {
        List<Figure> figures = EndToEndBench.figures(floor, grpc, service, cHost);

        assertThat(figures)
                .filteredOn(f -> f.id().startsWith("c_host_") && !f.id().startsWith("c_host_cpu_"))
                .extracting(Figure::id, Figure::baselineLabel, Figure::target)
                .containsExactly(
                        tuple("c_host_round_trip_p50_native", "Java host p50", "ratio <= 1.0"),
                        tuple("c_host_round_trip_p99_native", "Java host p99", null),
                        tuple("c_host_throughput_native", "Java host", "ratio >= 1.0"),
                        tuple("c_host_round_trip_p50_java", "Java host p50", "ratio <= 1.0"),
                        tuple("c_host_round_trip_p99_java", "Java host p99", null),
                        tuple("c_host_throughput_java", "Java host", "ratio >= 1.0"));
        assertThat(figures)
                .filteredOn(f -> f.id().equals("c_host_round_trip_p99_native"))
                .singleElement()
                .extracting(Figure::value, Figure::baselineValue)
                .containsExactly(30.0, 40.0);
    }

    @Test
    void missingCHostFiguresAreNamed() {
        assertThatThrownBy(() -> EndToEndBench.figures(floor, grpc, service, Map.of("native", cHost.get("native"))))
                .hasMessage("no C host figures for the java graph plugin");
    }
}
