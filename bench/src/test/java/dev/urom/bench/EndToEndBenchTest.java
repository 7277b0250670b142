package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndToEndBenchTest {
    private final FloorBaseline.Result floor = new FloorBaseline.Result(10_000, 20_000, 200_000, 25_000);
    private final GrpcEchoBaseline.Result grpc = new GrpcEchoBaseline.Result(80_000, 300_000, 20_000);

    @Test
    void roundTripIsJudgedAgainstTheFloorAndThroughputAgainstGrpc() {
        ServiceBench.Result service = new ServiceBench.Result(Map.of(
                "native", new ServiceBench.PluginResult(new LatencySummary(10, 15_000, 40_000, 16_000), 60_000),
                "java", new ServiceBench.PluginResult(new LatencySummary(10, 16_000, 50_000, 17_000), 59_000)), 300);

        List<Figure> figures = EndToEndBench.figures(floor, grpc, service);

        assertThat(figures).filteredOn(f -> f.met() != null)
                .extracting(Figure::id, Figure::value, Figure::baselineValue, Figure::met)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("round_trip_p50_native", 15.0, 10.0, true),
                        org.assertj.core.groups.Tuple.tuple("round_trip_p50_java", 16.0, 10.0, false),
                        org.assertj.core.groups.Tuple.tuple("throughput_native", 60_000.0, 20_000.0, true),
                        org.assertj.core.groups.Tuple.tuple("throughput_java", 59_000.0, 20_000.0, false),
                        org.assertj.core.groups.Tuple.tuple("worker_start_p50", 300.0, null, false));
        assertThat(figures).extracting(Figure::id).contains("round_trip_p99_native", "floor_round_trip_p50", "grpc_throughput");
    }
}
