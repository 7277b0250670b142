// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import static java.util.Objects.requireNonNull;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Turns the workers' summed counts into Prometheus metrics at each scrape: {@code
 * urom_commands_total{plugin}}, {@code urom_notifications_total{plugin,status}}, {@code
 * urom_command_duration_seconds{plugin}} (histogram), and the host connections to workers
 * ({@code urom_host_connections_total}, {@code urom_host_connections_open}, {@code
 * urom_host_connections_refused_total}).
 *
 * <p>Thread-safe as far as its supplier is; it asks the supplier once per scrape.
 */
public final class WorkerStatsCollector implements MultiCollector {
    private static final double[] BOUNDS = LatencyBuckets.upperBoundsSeconds();

    private final Supplier<WorkerStatsSnapshot> totals;

    /** @param totals the sum over every worker, asked for once per scrape */
    public WorkerStatsCollector(Supplier<WorkerStatsSnapshot> totals) {
        this.totals = requireNonNull(totals, "totals is null");
    }

    @Override
    public MetricSnapshots collect() {
        WorkerStatsSnapshot total = totals.get();
        CounterSnapshot.Builder commands = CounterSnapshot.builder()
                .name("urom_commands")
                .help("Commands the workers received, by plugin (unknown: a plugin id the worker does not run)");
        CounterSnapshot.Builder notifications = CounterSnapshot.builder()
                .name("urom_notifications")
                .help("Notifications the workers produced, by plugin and DOCA status");
        HistogramSnapshot.Builder durations = HistogramSnapshot.builder()
                .name("urom_command_duration_seconds")
                .unit(Unit.SECONDS)
                .help("Time in the worker from reading a command to writing its notification, by plugin");
        for (Map.Entry<String, PluginCounts> entry : total.plugins().entrySet()) {
            String plugin = entry.getKey();
            PluginCounts counts = entry.getValue();
            commands.dataPoint(counter(counts.commands(), Labels.of("plugin", plugin)));
            counts.notifications()
                    .forEach((status, n) ->
                            notifications.dataPoint(counter(n, Labels.of("plugin", plugin, "status", status))));
            long[] buckets =
                    counts.latencyBuckets().stream().mapToLong(Long::longValue).toArray();
            durations.dataPoint(HistogramDataPointSnapshot.builder()
                    .labels(Labels.of("plugin", plugin))
                    .classicHistogramBuckets(ClassicHistogramBuckets.of(BOUNDS, buckets))
                    .sum(Unit.nanosToSeconds(counts.latencySumNanos()))
                    .build());
        }
        return MetricSnapshots.of(
                commands.build(),
                notifications.build(),
                durations.build(),
                CounterSnapshot.builder()
                        .name("urom_host_connections")
                        .help("Host connections the workers accepted")
                        .dataPoint(counter(total.connectionsAccepted(), Labels.EMPTY))
                        .build(),
                GaugeSnapshot.builder()
                        .name("urom_host_connections_open")
                        .help("Host connections to workers open now")
                        .dataPoint(GaugeDataPointSnapshot.builder()
                                .value(total.connectionsOpen())
                                .build())
                        .build(),
                CounterSnapshot.builder()
                        .name("urom_host_connections_refused")
                        .help("Host connections a worker closed because the host broke the protocol")
                        .dataPoint(counter(total.connectionsRefused(), Labels.EMPTY))
                        .build());
    }

    @Override
    public List<String> getPrometheusNames() {
        return List.of(
                "urom_commands",
                "urom_notifications",
                "urom_command_duration_seconds",
                "urom_host_connections",
                "urom_host_connections_open",
                "urom_host_connections_refused");
    }

    private static CounterDataPointSnapshot counter(long value, Labels labels) {
        return CounterDataPointSnapshot.builder().value(value).labels(labels).build();
    }
}
