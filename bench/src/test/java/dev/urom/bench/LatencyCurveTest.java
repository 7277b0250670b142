// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LatencyCurveTest {

    @Test
    void fewSamplesAreAllKeptEachAtTheMiddleOfItsRank() {
        LatencyCurve curve = LatencyCurve.ofSorted(new long[] {3, 5, 5, 9}, 8);

        assertThat(curve.sampled()).isTrue();
        assertThat(curve.points())
                .containsExactly(
                        new LatencyCurve.Point(0.125, 3),
                        new LatencyCurve.Point(0.375, 5),
                        new LatencyCurve.Point(0.625, 5),
                        new LatencyCurve.Point(0.875, 9));
    }

    @Test
    void manySamplesAreBoundedAndKeepTheExtremesAndTheReportedPercentiles() {
        int n = 300_001;
        long[] samples = heavyTailed(n, new Random(14));
        long[] sorted = samples.clone();
        Arrays.sort(sorted);

        LatencySummary summary = LatencySummary.of(samples);
        List<LatencyCurve.Point> points = summary.curve().points();

        assertThat(points)
                .hasSizeLessThanOrEqualTo(LatencyCurve.MAX_POINTS)
                .hasSizeGreaterThan(LatencyCurve.MAX_POINTS / 2);
        assertThat(points.get(0)).isEqualTo(new LatencyCurve.Point(0.5 / n, sorted[0]));
        assertThat(points.get(points.size() - 1)).isEqualTo(new LatencyCurve.Point((n - 0.5) / n, sorted[n - 1]));
        for (double fraction : LatencyCurve.KEPT_FRACTIONS) {
            int rank = LatencyCurve.nearestRank(n, fraction);
            assertThat(points)
                    .as("p%s", fraction * 100)
                    .contains(new LatencyCurve.Point((rank - 0.5) / n, sorted[rank - 1]));
        }
        assertThat(points)
                .contains(
                        new LatencyCurve.Point((LatencyCurve.nearestRank(n, 0.5) - 0.5) / n, summary.p50Ns()),
                        new LatencyCurve.Point((LatencyCurve.nearestRank(n, 0.99) - 0.5) / n, summary.p99Ns()));
        for (int i = 1; i < points.size(); i++) {
            assertThat(points.get(i).fraction()).isGreaterThan(points.get(i - 1).fraction());
            assertThat(points.get(i).ns())
                    .isGreaterThanOrEqualTo(points.get(i - 1).ns());
        }
        assertThat(points.stream().filter(p -> p.fraction() > 0.99).count())
                .as("the tail beyond p99 is drawn, not two points")
                .isGreaterThan(LatencyCurve.MAX_POINTS / 4);
        assertThat(points.stream().filter(p -> p.fraction() < 0.5).count())
                .as("the body below p50 is drawn too")
                .isGreaterThan(50);
    }

    @Test
    void aProgramsReportedPercentilesAreMarksAtTheirFractions() {
        LatencyCurve curve = LatencyCurve.known(8_000, 21_000);

        assertThat(curve.sampled()).isFalse();
        assertThat(curve.points())
                .containsExactly(new LatencyCurve.Point(0.5, 8_000), new LatencyCurve.Point(0.99, 21_000));
    }

    @Test
    void noSamplesOrNoRoomAreRefused() {
        assertThatThrownBy(() -> LatencyCurve.ofSorted(new long[0], 100)).hasMessage("no samples to draw");
        assertThatThrownBy(() -> LatencyCurve.ofSorted(new long[] {1, 2}, 3))
                .hasMessage("a curve needs room for 8 points, not 3");
    }

    /** Mostly 10-20 us, one in a hundred up to 1 ms, one in ten thousand up to 50 ms. */
    static long[] heavyTailed(int n, Random random) {
        long[] samples = new long[n];
        for (int i = 0; i < n; i++) {
            double u = random.nextDouble();
            samples[i] = 10_000
                    + random.nextInt(10_000)
                    + (u < 0.01 ? random.nextInt(1_000_000) : 0)
                    + (u < 0.0001 ? random.nextInt(50_000_000) : 0);
        }
        return samples;
    }
}
