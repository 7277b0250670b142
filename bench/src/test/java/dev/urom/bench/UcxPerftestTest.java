// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link UcxPerftest}: its reading of {@code ucx_perftest}'s result line, and one real run. */
class UcxPerftestTest {
    @Test
    void theFinalLineGivesTwiceTheOneWayMedianAndOverallAverageAndTheOverallBandwidthInBytes() {
        List<String> output = List.of(
                "| Stage | # iterations | 50.0%ile | average |",
                "Final:                 10000      0.517     0.521     0.521       14.65      16.00     1920513     1920513");

        UcxPerftest.Result result = UcxPerftest.parseFinal(output, "tag_lat");

        assertThat(result.roundTripP50Ns()).isEqualTo(1034.0);
        assertThat(result.roundTripMeanNs()).isEqualTo(1042.0);
        assertThat(result.bytesPerSecond()).isEqualTo(16.0 * 1024 * 1024);
    }

    @Test
    void outputWithoutAWholeFinalLineIsOneLineNamingTheTest() {
        assertThatThrownBy(() -> UcxPerftest.parseFinal(List.of("Final: 10 0.5"), "tag_bw"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ucx_perftest -t tag_bw printed no Final: line with 8 figures: Final: 10 0.5");
    }

    @Test
    void aRealTagLatencyRunBetweenTwoProcessesMeasuresSomething() throws Exception {
        try (ChildProcesses children = new ChildProcesses()) {
            // 4 KiB messages: ucx_perftest prints MB/s with two decimals, and 8-byte messages on a
            // loaded machine (hundreds of microseconds a trip) print 0.00.
            UcxPerftest.Result result = new UcxPerftest(children, Map.of("UCX_TLS", "tcp")).run("tag_lat", 4096, 200);

            assertThat(result.roundTripP50Ns()).isPositive();
            assertThat(result.roundTripMeanNs()).isPositive();
            assertThat(result.bytesPerSecond()).isPositive();
        }
    }
}
