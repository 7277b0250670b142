// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Runs both baselines for real, briefly: the C floor the build compiled, and gRPC with its server in a child JVM. */
@Timeout(120)
class BaselinesTest {

    @Test
    void floorMeasuresRoundTripsAndThroughputAndRemovesItsSocket(@TempDir Path dir) throws Exception {
        Path socket = dir.resolve("floor.sock");
        try (ChildProcesses children = new ChildProcesses()) {
            FloorBaseline.Result result =
                    new FloorBaseline(FloorBaseline.locateProgram(), children).run(socket, 56, 64, 500, 2000, 16);

            assertThat(result.p50Ns()).isPositive().isLessThanOrEqualTo(result.p99Ns());
            assertThat(result.opsPerSecond()).isPositive();
            assertThat(result.relayP50Ns()).isPositive();
            assertThat(result.roundTripCpu().nanosByProcess())
                    .containsOnlyKeys("client", "server")
                    .allSatisfy((role, ns) -> assertThat(ns).as(role).isPositive());
            assertThat(result.roundTripCpu().operations()).isEqualTo(500);
            assertThat(result.throughputCpu().nanosByProcess())
                    .containsOnlyKeys("client", "server")
                    .allSatisfy((role, ns) -> assertThat(ns).as(role).isPositive());
            assertThat(result.throughputCpu().operations()).isEqualTo(2000);
            assertThat(result.relayCpu().nanosByProcess())
                    .containsOnlyKeys("client", "relay", "server")
                    .allSatisfy((role, ns) -> assertThat(ns).as(role).isPositive());
        }
        assertThat(socket).doesNotExist();
        assertThat(dir.resolve("floor.sock.relay")).doesNotExist();
    }

    @Test
    void floorResultLineIsParsedOrRefusedByName() {
        assertThat(FloorBaseline.parseLine("latency", "latency rounds=5 p50_ns=10 p99_ns=20 mean_ns=12"))
                .containsEntry("p50_ns", "10")
                .containsEntry("p99_ns", "20");
        assertThatThrownBy(() -> FloorBaseline.parseLine("throughput", "latency rounds=5"))
                .hasMessage("uds_pingpong throughput printed 'latency rounds=5', not a throughput result");
    }

    @Test
    void grpcPeerMeasuresRoundTripsAndThroughputAndRemovesItsSocket(@TempDir Path dir) throws Exception {
        Path socket = dir.resolve("grpc.sock");
        try (ChildProcesses children = new ChildProcesses()) {
            GrpcEchoBaseline.Result result = new GrpcEchoBaseline(children).run(socket, 40, 48, 300, 1000, 16);

            assertThat(result.p50Ns()).isPositive().isLessThanOrEqualTo(result.p99Ns());
            assertThat(result.opsPerSecond()).isPositive();
            assertThat(result.roundTripCpu().nanosByProcess())
                    .containsOnlyKeys("client", "server")
                    .allSatisfy((role, ns) -> assertThat(ns).as(role).isPositive());
            assertThat(result.throughputCpu().operations()).isEqualTo(1000);
            assertThat(result.throughputCpu().totalNanosPerOp()).isPositive();
        }
        assertThat(Files.exists(socket)).isFalse();
    }
}
