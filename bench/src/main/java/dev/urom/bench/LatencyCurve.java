// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A latency distribution as a bounded list of points (fraction of the samples, latency), in rising
 * order of both: what a percentile chart ({@link Plots#latency}) draws. From the samples themselves
 * ({@link #ofSorted}) it holds at most {@value #MAX_POINTS} of them, spread evenly over the "nines"
 * (-log10(1 - fraction)), always with the smallest, the largest and the nearest-rank p50, p90, p99,
 * p99.9 and p99.99 (those {@link LatencySummary} reports agree with it); from a program that reports
 * only some percentiles ({@link #known}) it holds just those.
 *
 * <p>Immutable. The sample at rank r (1-based) of n stands at fraction (r - 0.5) / n, so the largest
 * one has a finite place on a nines axis.
 *
 * @param points in rising order of fraction, each fraction in (0, 1)
 * @param sampled whether the points come from the samples ({@link #ofSorted}) rather than reported
 *     percentiles ({@link #known}): a chart draws the first as a line, the second as marks
 */
record LatencyCurve(List<Point> points, boolean sampled) {
    static final int MAX_POINTS = 2000;
    /** The percentiles always kept, as fractions. */
    static final double[] KEPT_FRACTIONS = {0.5, 0.9, 0.99, 0.999, 0.9999};

    /** One point: {@code fraction} of the samples are at most about {@code ns}. */
    record Point(double fraction, long ns) {}

    LatencyCurve {
        points = List.copyOf(points);
    }

    /** The curve of {@code sortedNs} (ascending, not empty), at most {@code maxPoints} (at least 8) of them. */
    static LatencyCurve ofSorted(long[] sortedNs, int maxPoints) {
        int n = sortedNs.length;
        TreeSet<Long> ranks = ranks(n, maxPoints);
        List<Point> points = new ArrayList<>(ranks.size());
        for (long rank : ranks) {
            points.add(new Point((rank - 0.5) / n, sortedNs[(int) rank - 1]));
        }
        return new LatencyCurve(points, true);
    }

    /**
     * The ranks (1-based) a curve of {@code n} samples draws: all of them when they are at most
     * {@code maxPoints}, else the smallest, the largest, the nearest ranks of {@link #KEPT_FRACTIONS}
     * and the rest spread evenly over the nines, at most {@code maxPoints} in all.
     *
     * @throws IllegalArgumentException when there are no samples or {@code maxPoints} is below 8
     */
    static TreeSet<Long> ranks(long n, int maxPoints) {
        if (n == 0) {
            throw new IllegalArgumentException("no samples to draw");
        }
        if (maxPoints < 8) {
            throw new IllegalArgumentException("a curve needs room for 8 points, not " + maxPoints);
        }
        TreeSet<Long> ranks = new TreeSet<>();
        if (n <= maxPoints) {
            for (long rank = 1; rank <= n; rank++) {
                ranks.add(rank);
            }
            return ranks;
        }
        ranks.add(1L);
        ranks.add(n);
        for (double fraction : KEPT_FRACTIONS) {
            ranks.add(Math.max(1, Math.min(n, (long) Math.ceil(fraction * n))));
        }
        int spread = maxPoints - ranks.size();
        double topNines = Math.log10(2.0 * n);
        for (int i = 0; i < spread; i++) {
            double fraction = 1 - Math.pow(10, -topNines * i / (spread - 1));
            ranks.add(Math.max(1, Math.min(n, Math.round(fraction * n + 0.5))));
        }
        return ranks;
    }

    /** The curve of a program that reports only its p50 and p99. */
    static LatencyCurve known(long p50Ns, long p99Ns) {
        return new LatencyCurve(List.of(new Point(0.5, p50Ns), new Point(0.99, p99Ns)), false);
    }

    /** The nearest rank (1-based) of {@code fraction} among {@code n} samples: as {@link LatencySummary} picks. */
    static int nearestRank(int n, double fraction) {
        return Math.max(1, Math.min(n, (int) Math.ceil(fraction * n)));
    }
}
