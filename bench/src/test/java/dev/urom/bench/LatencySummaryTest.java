// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class LatencySummaryTest {

    @Test
    void nearestRankPercentilesOfOneToHundred() {
        long[] samples = LongStream.rangeClosed(1, 100).map(i -> 101 - i).toArray();

        LatencySummary summary = LatencySummary.of(samples);

        assertThat(summary)
                .extracting(LatencySummary::count, LatencySummary::p50Ns, LatencySummary::p99Ns, LatencySummary::meanNs)
                .containsExactly(100, 50L, 99L, 50L);
        assertThat(summary.curve().points())
                .hasSize(100)
                .allSatisfy(p -> assertThat(p.ns()).isEqualTo(Math.round(p.fraction() * 100 + 0.5)));
    }

    @Test
    void singleSampleIsEveryPercentile() {
        assertThat(LatencySummary.of(new long[] {7}))
                .extracting(LatencySummary::count, LatencySummary::p50Ns, LatencySummary::p99Ns, LatencySummary::meanNs)
                .containsExactly(1, 7L, 7L, 7L);
    }

    @Test
    void emptySetIsRefused() {
        assertThatThrownBy(() -> LatencySummary.of(new long[0])).hasMessage("no round trips were measured");
    }
}
