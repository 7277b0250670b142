// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import dev.urom.spi.UromStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts what one worker process does: host connections, and per plugin the commands it received,
 * the notifications it produced by status, and how long each command took from its arrival to its
 * notification.
 *
 * <p>A command is timed when its notification names the same host connection and {@code
 * urom_context} (the Java host API keeps contexts unique per connection); a second command with a
 * context still in flight on the same connection is counted but not timed. Commands for a plugin
 * id the worker does not run count under {@value #UNKNOWN_PLUGIN}.
 *
 * <p>Not thread-safe: owned by the thread that drives the worker's data plane, which also takes
 * the {@link #snapshot()}s.
 */
public final class WorkerStats {
    /** The name counts go under when a command names a plugin id the worker does not run. */
    public static final String UNKNOWN_PLUGIN = "unknown";

    private static final UromStatus[] STATUSES = UromStatus.values();

    private final Map<Long, PluginRecorder> plugins = new HashMap<>();
    private final PluginRecorder unknown = new PluginRecorder(UNKNOWN_PLUGIN);
    private final Map<InFlight, Long> arrivals = new HashMap<>();
    private long connectionsAccepted;
    private long connectionsOpen;
    private long connectionsRefused;
    private long sequence;

    /** @param pluginNames the worker's plugins: id to name */
    public WorkerStats(Map<Long, String> pluginNames) {
        pluginNames.forEach((id, name) -> plugins.put(id, new PluginRecorder(name)));
    }

    public void connectionAccepted() {
        connectionsAccepted++;
        connectionsOpen++;
    }

    /** A host connection the worker closed because the host broke the protocol (counted besides {@link #connectionClosed}). */
    public void connectionRefused() {
        connectionsRefused++;
    }

    /** Connection {@code destId} has closed; its commands still in flight will not be timed. */
    public void connectionClosed(long destId) {
        connectionsOpen = Math.max(0, connectionsOpen - 1);
        arrivals.keySet().removeIf(key -> key.destId == destId);
    }

    /** A command for plugin {@code pluginId} arrived on connection {@code destId}, at {@code nanoTime}. */
    public void commandArrived(long destId, long pluginId, long uromContext, long nanoTime) {
        recorder(pluginId).commands++;
        arrivals.putIfAbsent(new InFlight(destId, uromContext), nanoTime);
    }

    /** A notification of plugin {@code pluginId} for connection {@code destId} was sent (or dropped) with {@code status}, at {@code nanoTime}. */
    public void notified(long destId, long pluginId, long uromContext, UromStatus status, long nanoTime) {
        PluginRecorder recorder = recorder(pluginId);
        recorder.notifications[status.ordinal()]++;
        Long arrival = arrivals.remove(new InFlight(destId, uromContext));
        if (arrival != null) {
            long nanos = Math.max(0, nanoTime - arrival);
            recorder.buckets[LatencyBuckets.indexOf(nanos)]++;
            recorder.latencySumNanos += nanos;
        }
    }

    /** The counts now; each snapshot has a higher sequence number than the one before. */
    public WorkerStatsSnapshot snapshot() {
        Map<String, PluginCounts> counts = new TreeMap<>();
        List<PluginRecorder> recorders = new ArrayList<>(plugins.values());
        recorders.add(unknown);
        for (PluginRecorder recorder : recorders) {
            if (recorder.commands > 0 || recorder.hasNotifications()) {
                counts.merge(recorder.name, recorder.counts(), PluginCounts::plus);
            }
        }
        return new WorkerStatsSnapshot(++sequence, connectionsAccepted, connectionsOpen, connectionsRefused, counts);
    }

    private PluginRecorder recorder(long pluginId) {
        PluginRecorder recorder = plugins.get(pluginId);
        return recorder == null ? unknown : recorder;
    }

    private record InFlight(long destId, long uromContext) {}

    private static final class PluginRecorder {
        final String name;
        final long[] notifications = new long[STATUSES.length];
        final long[] buckets = new long[LatencyBuckets.COUNT];
        long commands;
        long latencySumNanos;

        PluginRecorder(String name) {
            this.name = name;
        }

        boolean hasNotifications() {
            for (long n : notifications) {
                if (n > 0) {
                    return true;
                }
            }
            return false;
        }

        PluginCounts counts() {
            Map<String, Long> byStatus = new LinkedHashMap<>();
            for (int i = 0; i < notifications.length; i++) {
                if (notifications[i] > 0) {
                    byStatus.put(STATUSES[i].name(), notifications[i]);
                }
            }
            List<Long> bucketCounts = new ArrayList<>(buckets.length);
            for (long b : buckets) {
                bucketCounts.add(b);
            }
            return new PluginCounts(commands, byStatus, bucketCounts, latencySumNanos);
        }
    }
}
