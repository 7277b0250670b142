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

        assertThat(summary).isEqualTo(new LatencySummary(100, 50, 99, 50));
    }

    @Test
    void singleSampleIsEveryPercentile() {
        assertThat(LatencySummary.of(new long[] {7})).isEqualTo(new LatencySummary(1, 7, 7, 7));
    }

    @Test
    void emptySetIsRefused() {
        assertThatThrownBy(() -> LatencySummary.of(new long[0])).hasMessage("no round trips were measured");
    }
}
