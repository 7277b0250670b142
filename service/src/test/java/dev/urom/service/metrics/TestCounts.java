// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Builders for the counts the metrics tests feed and expect. */
public final class TestCounts {
    private TestCounts() {}

    /** A bucket list of {@link LatencyBuckets#COUNT} zeros except {@code indexThenCount} pairs. */
    public static List<Long> buckets(long... indexThenCount) {
        List<Long> buckets = new ArrayList<>(Collections.nCopies(LatencyBuckets.COUNT, 0L));
        for (int i = 0; i < indexThenCount.length; i += 2) {
            buckets.set((int) indexThenCount[i], indexThenCount[i + 1]);
        }
        return buckets;
    }

    static PluginCounts plugin(long commands, Map<String, Long> notifications, List<Long> buckets, long sumNanos) {
        return new PluginCounts(commands, notifications, buckets, sumNanos);
    }

    static WorkerStatsSnapshot snapshot(
            long sequence, long accepted, long open, long refused, Map<String, PluginCounts> plugins) {
        return new WorkerStatsSnapshot(sequence, accepted, open, refused, plugins);
    }
}
