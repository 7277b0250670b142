// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * What the workers did for one plugin: commands received, notifications by status name, and the
 * latency histogram (per-bucket counts, not cumulative, {@link LatencyBuckets#COUNT} of them, and
 * the sum of the timed latencies in nanoseconds). Immutable.
 *
 * @throws IllegalArgumentException from the constructor when a count is negative or the bucket
 *     list has the wrong length
 */
public record PluginCounts(
        long commands, Map<String, Long> notifications, List<Long> latencyBuckets, long latencySumNanos) {
    public PluginCounts {
        requireNonNull(notifications, "notifications is null");
        requireNonNull(latencyBuckets, "latencyBuckets is null");
        requireNotNegative("commands", commands);
        requireNotNegative("latencySumNanos", latencySumNanos);
        notifications.forEach((status, count) ->
                requireNotNegative("notifications." + status, requireNonNull(count, "a notification count is null")));
        if (latencyBuckets.size() != LatencyBuckets.COUNT) {
            throw new IllegalArgumentException(
                    "latencyBuckets has " + latencyBuckets.size() + " counts, not " + LatencyBuckets.COUNT);
        }
        latencyBuckets.forEach(
                count -> requireNotNegative("latencyBuckets", requireNonNull(count, "a bucket count is null")));
        notifications = Map.copyOf(notifications);
        latencyBuckets = List.copyOf(latencyBuckets);
    }

    /** How many commands were timed: the sum of the buckets. */
    public long timedCommands() {
        return latencyBuckets.stream().mapToLong(Long::longValue).sum();
    }

    /** These counts and {@code other}'s, added (a sum past {@link Long#MAX_VALUE} stays there). */
    public PluginCounts plus(PluginCounts other) {
        Map<String, Long> sum = new TreeMap<>(notifications);
        other.notifications.forEach((status, count) -> sum.merge(status, count, PluginCounts::add));
        List<Long> buckets = IntStream.range(0, LatencyBuckets.COUNT)
                .mapToObj(i -> add(latencyBuckets.get(i), other.latencyBuckets.get(i)))
                .toList();
        return new PluginCounts(
                add(commands, other.commands), sum, buckets, add(latencySumNanos, other.latencySumNanos));
    }

    /** {@code a + b} for counts (not negative), saturating at {@link Long#MAX_VALUE}. */
    static long add(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    static void requireNotNegative(String field, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(field + " is negative (" + value + ")");
        }
    }
}
