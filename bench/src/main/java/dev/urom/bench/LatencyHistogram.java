// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * Round-trip times in nanoseconds, counted in buckets of bounded size so that millions of samples
 * take a few kilobytes and the histograms of several processes can be added: values below {@value
 * #EXACT_BELOW} have a bucket each, larger ones share a bucket with the values that agree with them
 * in their 7 leading bits (a bucket's width is at most 1/64 of its lowest value). A percentile is
 * the nearest-rank one, read as the highest value of its bucket, never above the largest sample.
 *
 * <p>Not thread-safe. {@link #of} throws {@link IllegalArgumentException} for data that no
 * histogram could have written.
 */
final class LatencyHistogram {
    private static final int SUB_BUCKET_BITS = 6;
    private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
    static final int EXACT_BELOW = 2 * SUB_BUCKETS;
    /** The exact buckets, then {@value #SUB_BUCKETS} for each power of two from 2^7 to 2^62. */
    private static final int BUCKETS = EXACT_BELOW + (62 - 7 + 1) * SUB_BUCKETS;

    private final long[] counts = new long[BUCKETS];
    private long total;
    private long sumNs;
    private long maxNs;

    /**
     * A histogram as it travels between processes.
     *
     * @param buckets {@code [index, count]} of each bucket that is not empty
     */
    record Data(long[][] buckets, long sumNs, long maxNs) {}

    /** Counts one time; a negative one counts as 0. */
    void record(long nanos) {
        long value = Math.max(0, nanos);
        counts[indexOf(value)]++;
        total++;
        sumNs += value;
        maxNs = Math.max(maxNs, value);
    }

    /** Adds every sample of {@code other} to this one. */
    void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        sumNs += other.sumNs;
        maxNs = Math.max(maxNs, other.maxNs);
    }

    long count() {
        return total;
    }

    long maxNs() {
        return maxNs;
    }

    long meanNs() {
        return total == 0 ? 0 : sumNs / total;
    }

    /** The nearest-rank percentile {@code fraction} (0.99: p99) in nanoseconds; 0 when empty. */
    long percentileNs(double fraction) {
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(fraction * total));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(highestIn(i), maxNs);
            }
        }
        return maxNs;
    }

    /**
     * The distribution as a {@link LatencyCurve}, as {@link LatencyCurve#ofSorted} draws samples: at
     * most {@code maxPoints} ranks spread over the nines, the smallest, the largest and the kept
     * percentiles among them, each at its bucket's highest value (never above the largest sample).
     *
     * @throws IllegalArgumentException when the histogram is empty or {@code maxPoints} is below 8
     */
    LatencyCurve curve(int maxPoints) {
        TreeSet<Long> ranks = LatencyCurve.ranks(total, maxPoints);
        List<LatencyCurve.Point> points = new ArrayList<>(ranks.size());
        long seen = 0;
        int bucket = -1;
        for (long rank : ranks) {
            while (seen < rank) {
                seen += counts[++bucket];
            }
            points.add(new LatencyCurve.Point((rank - 0.5) / total, Math.min(highestIn(bucket), maxNs)));
        }
        return new LatencyCurve(points, true);
    }

    Data data() {
        List<long[]> buckets = new ArrayList<>();
        for (int i = 0; i < BUCKETS; i++) {
            if (counts[i] > 0) {
                buckets.add(new long[] {i, counts[i]});
            }
        }
        return new Data(buckets.toArray(long[][]::new), sumNs, maxNs);
    }

    static LatencyHistogram of(Data data) {
        LatencyHistogram histogram = new LatencyHistogram();
        for (long[] bucket : data.buckets()) {
            if (bucket.length != 2 || bucket[0] < 0 || bucket[0] >= BUCKETS || bucket[1] < 0) {
                throw new IllegalArgumentException("latency bucket " + Arrays.toString(bucket) + " is not [index 0.."
                        + (BUCKETS - 1) + ", count >= 0]");
            }
            histogram.counts[(int) bucket[0]] += bucket[1];
            histogram.total += bucket[1];
        }
        histogram.sumNs = data.sumNs();
        histogram.maxNs = data.maxNs();
        return histogram;
    }

    static int indexOf(long value) {
        if (value < EXACT_BELOW) {
            return (int) value;
        }
        int magnitude = 63 - Long.numberOfLeadingZeros(value);
        int subBucket = (int) ((value >>> (magnitude - SUB_BUCKET_BITS)) & (SUB_BUCKETS - 1));
        return EXACT_BELOW + (magnitude - (SUB_BUCKET_BITS + 1)) * SUB_BUCKETS + subBucket;
    }

    /** The highest value that falls in bucket {@code index}. */
    static long highestIn(int index) {
        if (index < EXACT_BELOW) {
            return index;
        }
        int magnitude = (index - EXACT_BELOW) / SUB_BUCKETS + SUB_BUCKET_BITS + 1;
        long subBucket = (index - EXACT_BELOW) % SUB_BUCKETS;
        int shift = magnitude - SUB_BUCKET_BITS;
        return ((SUB_BUCKETS + subBucket) << shift) + (1L << shift) - 1;
    }
}
