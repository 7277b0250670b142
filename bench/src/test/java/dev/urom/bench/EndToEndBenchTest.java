package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndToEndBenchTest {
    private final FloorBaseline.Result floor = new FloorBaseline.Result(10_000, 20_000, 200_000, 25_000);
    private final GrpcEchoBaseline.Result grpc = new GrpcEchoBaseline.Result(80_000, 300_000, 20_000);

    private final ServiceBench.Result service = new ServiceBench.Result(Map.of(
            "native", new ServiceBench.PluginResult(new LatencySummary(10, 15_000, 40_000, 16_000), 60_000),
            "java", new ServiceBench.PluginResult(new LatencySummary(10, 16_000, 50_000, 17_000), 59_000)), 300);
    /** As fast as the Java host with the C plugin (met, the ratio exactly 1); slower with the Java plugin. */
    private final Map<String, CHostBaseline.Result> cHost = Map.of(
            "native", new CHostBaseline.Result(15_000, 30_000, 60_000, 3_000),
            "java", new CHostBaseline.Result(16_500, 45_000, 58_000, 4_500));

    @Test
    void roundTripIsJudgedAgainstTheFloorAndThroughputAgainstGrpc() {

        List<Figure> figures = EndToEndBench.figures(floor, grpc, service, cHost);

        assertThat(figures).filteredOn(f -> f.met() != null)
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
        assertThat(figures).extracting(Figure::id).contains("round_trip_p99_native", "floor_round_trip_p50", "grpc_throughput");
    }

    @Test
    void cHostIsJudgedAgainstTheJavaHostOfTheSamePluginAndItsCpuCostStandsAlone() {
        List<Figure> figures = EndToEndBench.figures(floor, grpc, service, cHost);

        assertThat(figures).filteredOn(f -> f.id().startsWith("c_host_"))
                .extracting(Figure::id, Figure::baselineLabel, Figure::target)
                .containsExactly(
                        tuple("c_host_round_trip_p50_native", "Java host p50", "ratio <= 1.0"),
                        tuple("c_host_round_trip_p99_native", "Java host p99", null),
                        tuple("c_host_throughput_native", "Java host", "ratio >= 1.0"),
                        tuple("c_host_cpu_per_op_native", null, null),
                        tuple("c_host_round_trip_p50_java", "Java host p50", "ratio <= 1.0"),
                        tuple("c_host_round_trip_p99_java", "Java host p99", null),
                        tuple("c_host_throughput_java", "Java host", "ratio >= 1.0"),
                        tuple("c_host_cpu_per_op_java", null, null));
        assertThat(figures).filteredOn(f -> f.id().equals("c_host_cpu_per_op_java")).singleElement()
                .extracting(Figure::value, Figure::unit).containsExactly(4.5, "us");
        assertThat(figures).filteredOn(f -> f.id().equals("c_host_round_trip_p99_native")).singleElement()
                .extracting(Figure::value, Figure::baselineValue).containsExactly(30.0, 40.0);
    }

    @Test
    void missingCHostFiguresAreNamed() {
        assertThatThrownBy(() -> EndToEndBench.figures(floor, grpc, service, Map.of("native", cHost.get("native"))))
                .hasMessage("no C host figures for the java graph plugin");
    }
}
