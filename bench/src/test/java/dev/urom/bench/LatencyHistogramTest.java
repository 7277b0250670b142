// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
    @Test
    void smallValuesAreExactAndLargerOnesWithinOneSixtyFourthAbove() {
        Random random = new Random(14);
        for (int i = 0; i < 100_000; i++) {
            long value = random.nextInt(4) == 0
                    ? random.nextInt(LatencyHistogram.EXACT_BELOW)
                    : Math.abs(random.nextLong() >>> random.nextInt(63));
            long highest = LatencyHistogram.highestIn(LatencyHistogram.indexOf(value));
            assertThat(highest).as("value %d", value).isGreaterThanOrEqualTo(value);
            if (value < LatencyHistogram.EXACT_BELOW) {
                assertThat(highest).isEqualTo(value);
            } else {
                assertThat(highest - value).as("value %d", value).isLessThanOrEqualTo(value / 64);
            }
        }
        assertThat(LatencyHistogram.highestIn(LatencyHistogram.indexOf(Long.MAX_VALUE)))
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void percentilesAreTheNearestRankOnesWithinTheBucketWidth() {
        Random random = new Random(7);
        long[] samples = new long[50_000];
        LatencyHistogram histogram = new LatencyHistogram();
        for (int i = 0; i < samples.length; i++) {
            samples[i] = 1_000 + (long) (random.nextDouble() * random.nextDouble() * 10_000_000);
            histogram.record(samples[i]);
        }
        Arrays.sort(samples);
        for (double fraction : new double[] {0.5, 0.99, 0.999}) {
            long exact = samples[(int) Math.ceil(fraction * samples.length) - 1];
            assertThat(histogram.percentileNs(fraction)).as("p%s", fraction).isBetween(exact, exact + exact / 64);
        }
        assertThat(histogram.maxNs()).isEqualTo(samples[samples.length - 1]);
        assertThat(histogram.percentileNs(1.0)).isEqualTo(samples[samples.length - 1]);
        assertThat(histogram.count()).isEqualTo(samples.length);
    }

    @Test
    void histogramsTravelAsDataAndAddUp() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        for (int i = 1; i <= 99; i++) {
            a.record(i * 1000L);
        }
        b.record(5_000_000);

        LatencyHistogram sum = LatencyHistogram.of(a.data());
        sum.add(LatencyHistogram.of(b.data()));

        assertThat(sum.count()).isEqualTo(100);
        assertThat(sum.maxNs()).isEqualTo(5_000_000);
        assertThat(sum.percentileNs(0.99)).isBetween(99_000L, 99_000L + 99_000 / 64);
        assertThat(sum.percentileNs(1.0)).isEqualTo(5_000_000);
        assertThat(sum.meanNs()).isEqualTo((99 * 100 / 2 * 1000L + 5_000_000) / 100);
        assertThat(new LatencyHistogram().percentileNs(0.99)).isZero();
    }

    @Test
    void itsCurveKeepsTheEndsAndThePercentilesWithinTheLimitOfPoints() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (long i = 1; i <= 300_000; i++) {
            histogram.record(i * i % 9_999_991);
        }

        LatencyCurve curve = histogram.curve(500);

        assertThat(curve.sampled()).isTrue();
        assertThat(curve.points())
                .as("ranks near the top fall together")
                .hasSizeLessThanOrEqualTo(500)
                .hasSizeGreaterThan(300);
        assertThat(curve.points()).isSortedAccordingTo((a, b) -> Double.compare(a.fraction(), b.fraction()));
        assertThat(curve.points()).isSortedAccordingTo((a, b) -> Long.compare(a.ns(), b.ns()));
        assertThat(curve.points().get(curve.points().size() - 1).ns()).isEqualTo(histogram.maxNs());
        for (double fraction : LatencyCurve.KEPT_FRACTIONS) {
            assertThat(curve.points())
                    .as("p%s", fraction * 100)
                    .anyMatch(p ->
                            p.ns() == histogram.percentileNs(fraction) && Math.abs(p.fraction() - fraction) < 1e-5);
        }
        assertThat(curve.points().get(0).ns()).isEqualTo(histogram.percentileNs(0));
        assertThatThrownBy(() -> new LatencyHistogram().curve(500)).hasMessage("no samples to draw");
        assertThatThrownBy(() -> histogram.curve(7)).hasMessage("a curve needs room for 8 points, not 7");
    }

    @Test
    void dataNoHistogramCouldHaveWrittenIsRefused() {
        assertThatThrownBy(() -> LatencyHistogram.of(new LatencyHistogram.Data(new long[][] {{1_000_000, 1}}, 0, 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("latency bucket [1000000, 1]");
    }
}
