// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.Arrays;

/**
 * The percentiles of a set of round-trip times, in nanoseconds, and their distribution for a chart
 * ({@code curve}, bounded, see {@link LatencyCurve}). A percentile is the nearest-rank one: the
 * smallest sample that at least that fraction of the samples do not exceed.
 *
 * <p>Immutable. {@link #of} throws {@link IllegalArgumentException} for an empty set.
 */
record LatencySummary(int count, long p50Ns, long p99Ns, long meanNs, LatencyCurve curve) {

    /** Summarises {@code samplesNs}, which it sorts in place. */
    static LatencySummary of(long[] samplesNs) {
        if (samplesNs.length == 0) {
            throw new IllegalArgumentException("no round trips were measured");
        }
        Arrays.sort(samplesNs);
        long total = 0;
        for (long sample : samplesNs) {
            total += sample;
        }
        return new LatencySummary(
                samplesNs.length,
                nearestRank(samplesNs, 0.50),
                nearestRank(samplesNs, 0.99),
                total / samplesNs.length,
                LatencyCurve.ofSorted(samplesNs, LatencyCurve.MAX_POINTS));
    }

    private static long nearestRank(long[] sorted, double fraction) {
        return sorted[LatencyCurve.nearestRank(sorted.length, fraction) - 1];
    }
}
