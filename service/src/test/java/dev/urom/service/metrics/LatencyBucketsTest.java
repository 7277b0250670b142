// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The fixed latency buckets: where each latency falls and the bounds exported to Prometheus. */
class LatencyBucketsTest {

    @Test
    void thereAreSixteenBuckets() {
        assertThat(LatencyBuckets.COUNT).isEqualTo(16);
        assertThat(LatencyBuckets.upperBoundsSeconds()).hasSize(LatencyBuckets.COUNT);
    }

    @Test
    void exactlyTenMicrosecondsFallsIntoTheFirstBucket() {
        assertThat(LatencyBuckets.indexOf(10_000)).isZero();
        assertThat(LatencyBuckets.indexOf(0)).isZero();
    }

    @Test
    void oneNanosecondAboveTenMicrosecondsFallsIntoTheSecondBucket() {
        assertThat(LatencyBuckets.indexOf(10_001)).isEqualTo(1);
    }

    @Test
    void aLatencyOnABoundFallsIntoThatBoundsBucket() {
        assertThat(LatencyBuckets.indexOf(25_000)).isEqualTo(1);
        assertThat(LatencyBuckets.indexOf(25_001)).isEqualTo(2);
        assertThat(LatencyBuckets.indexOf(1_000_000)).isEqualTo(6);
        assertThat(LatencyBuckets.indexOf(250_000_000)).isEqualTo(13);
    }

    @Test
    void exactlyOneSecondFallsIntoTheLastBoundedBucket() {
        assertThat(LatencyBuckets.indexOf(1_000_000_000)).isEqualTo(14);
    }

    @Test
    void anythingAboveOneSecondFallsIntoTheLastBucket() {
        assertThat(LatencyBuckets.indexOf(1_000_000_001)).isEqualTo(LatencyBuckets.COUNT - 1);
        assertThat(LatencyBuckets.indexOf(Long.MAX_VALUE)).isEqualTo(LatencyBuckets.COUNT - 1);
    }

    @Test
    void upperBoundsInSecondsRunFromTenMicrosecondsToOneSecondThenInfinity() {
        double[] bounds = LatencyBuckets.upperBoundsSeconds();

        assertThat(bounds[0]).isEqualTo(1e-5);
        assertThat(bounds[LatencyBuckets.COUNT - 2]).isEqualTo(1.0);
        assertThat(bounds[LatencyBuckets.COUNT - 1]).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void upperBoundsAreStrictlyIncreasing() {
        double[] bounds = LatencyBuckets.upperBoundsSeconds();

        for (int i = 1; i < bounds.length; i++) {
            assertThat(bounds[i]).as("bound %d", i).isGreaterThan(bounds[i - 1]);
        }
    }

    @Test
    void eachBucketsUpperBoundIsTheFirstNotBelowTheLatency() {
        double[] bounds = LatencyBuckets.upperBoundsSeconds();

        for (int i = 0; i < LatencyBuckets.COUNT - 1; i++) {
            long bound = Math.round(bounds[i] * 1e9);
            assertThat(LatencyBuckets.indexOf(bound)).as("on bound %d", i).isEqualTo(i);
            assertThat(LatencyBuckets.indexOf(bound + 1))
                    .as("above bound %d", i)
                    .isEqualTo(i + 1);
        }
    }

    @Test
    void eachCallReturnsAFreshArray() {
        LatencyBuckets.upperBoundsSeconds()[0] = 42;

        assertThat(LatencyBuckets.upperBoundsSeconds()[0]).isEqualTo(1e-5);
    }
}
