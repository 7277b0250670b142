package dev.urom.bench;

import java.util.Arrays;

/**
 * The percentiles of a set of round-trip times, in nanoseconds. A percentile is the nearest-rank
 * one: the smallest sample that at least that fraction of the samples do not exceed.
 *
 * <p>Immutable. {@link #of} throws {@link IllegalArgumentException} for an empty set.
 */
record LatencySummary(int count, long p50Ns, long p99Ns, long meanNs) {

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
        return new LatencySummary(samplesNs.length, nearestRank(samplesNs, 0.50), nearestRank(samplesNs, 0.99),
                total / samplesNs.length);
    }

    private static long nearestRank(long[] sorted, double fraction) {
        int rank = (int) Math.ceil(fraction * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
