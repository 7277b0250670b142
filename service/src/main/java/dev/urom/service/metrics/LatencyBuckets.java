// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import java.util.Arrays;

/**
 * The fixed buckets of the command latency histogram, from 10 us to 1 s and then everything
 * slower. Every worker uses the same bounds, so the daemon can add their counts bucket by bucket.
 * Stateless.
 */
public final class LatencyBuckets {
    private static final long[] UPPER_BOUNDS_NANOS = {
        10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
        1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000,
        100_000_000, 250_000_000, 1_000_000_000, Long.MAX_VALUE
    };

    /** How many buckets there are, the last one without an upper bound. */
    public static final int COUNT = UPPER_BOUNDS_NANOS.length;

    private LatencyBuckets() {}

    /** The bucket that a latency of {@code nanos} falls into (its upper bound is the first one not below it). */
    public static int indexOf(long nanos) {
        for (int i = 0; i < COUNT - 1; i++) {
            if (nanos <= UPPER_BOUNDS_NANOS[i]) {
                return i;
            }
        }
        return COUNT - 1;
    }

    /** The upper bounds in seconds, the last one {@link Double#POSITIVE_INFINITY}. */
    public static double[] upperBoundsSeconds() {
        double[] seconds =
                Arrays.stream(UPPER_BOUNDS_NANOS).mapToDouble(n -> n / 1e9).toArray();
        seconds[COUNT - 1] = Double.POSITIVE_INFINITY;
        return seconds;
    }
}
