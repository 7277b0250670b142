// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import static dev.urom.service.metrics.TestCounts.buckets;
import static dev.urom.service.metrics.TestCounts.plugin;
import static dev.urom.service.metrics.TestCounts.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The Prometheus metrics made from the workers' summed counts, as the text exposition format writes them. */
class WorkerStatsCollectorTest {
    private static final WorkerStatsSnapshot KNOWN = snapshot(
            3,
            5,
            2,
            1,
            Map.of(
                    "worker_graph",
                            plugin(6, Map.of("SUCCESS", 4L, "AGAIN", 1L), buckets(0, 2, 3, 1, 15, 1), 1_500_250_000L),
                    "unknown", plugin(2, Map.of("NOT_FOUND", 2L), buckets(), 0)));

    private static String scrape(Supplier<WorkerStatsSnapshot> totals) throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new WorkerStatsCollector(totals));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static List<String> lines(WorkerStatsSnapshot snapshot) throws IOException {
        return scrape(() -> snapshot).lines().toList();
    }

    @Test
    void commandsAreCountedByPlugin() throws IOException {
        assertThat(lines(KNOWN))
                .containsSubsequence(
                        "# TYPE urom_commands_total counter",
                        "urom_commands_total{plugin=\"unknown\"} 2.0",
                        "urom_commands_total{plugin=\"worker_graph\"} 6.0");
    }

    @Test
    void notificationsAreCountedByPluginAndStatus() throws IOException {
        assertThat(lines(KNOWN))
                .containsSubsequence(
                        "# TYPE urom_notifications_total counter",
                        "urom_notifications_total{plugin=\"unknown\",status=\"NOT_FOUND\"} 2.0",
                        "urom_notifications_total{plugin=\"worker_graph\",status=\"AGAIN\"} 1.0",
                        "urom_notifications_total{plugin=\"worker_graph\",status=\"SUCCESS\"} 4.0");
        assertThat(lines(KNOWN))
                .filteredOn(l -> l.startsWith("urom_notifications_total"))
                .hasSize(3);
    }

    @Test
    void durationBucketsAreCumulativeInSecondsEndingWithTheTimedCount() throws IOException {
        String p = "urom_command_duration_seconds_bucket{plugin=\"worker_graph\",le=";
        assertThat(lines(KNOWN))
                .containsSubsequence(
                        "# TYPE urom_command_duration_seconds histogram",
                        p + "\"1.0E-5\"} 2",
                        p + "\"2.5E-5\"} 2",
                        p + "\"5.0E-5\"} 2",
                        p + "\"1.0E-4\"} 3",
                        p + "\"2.5E-4\"} 3",
                        p + "\"5.0E-4\"} 3",
                        p + "\"0.001\"} 3",
                        p + "\"0.0025\"} 3",
                        p + "\"0.005\"} 3",
                        p + "\"0.01\"} 3",
                        p + "\"0.025\"} 3",
                        p + "\"0.05\"} 3",
                        p + "\"0.1\"} 3",
                        p + "\"0.25\"} 3",
                        p + "\"1.0\"} 3",
                        p + "\"+Inf\"} 4",
                        "urom_command_duration_seconds_count{plugin=\"worker_graph\"} 4",
                        "urom_command_duration_seconds_sum{plugin=\"worker_graph\"} 1.50025");
    }

    @Test
    void aPluginWithoutTimedCommandsHasAnEmptyHistogram() throws IOException {
        assertThat(lines(KNOWN))
                .contains(
                        "urom_command_duration_seconds_bucket{plugin=\"unknown\",le=\"+Inf\"} 0",
                        "urom_command_duration_seconds_count{plugin=\"unknown\"} 0",
                        "urom_command_duration_seconds_sum{plugin=\"unknown\"} 0.0");
        assertThat(lines(KNOWN))
                .filteredOn(l -> l.startsWith("urom_command_duration_seconds_bucket{plugin=\"unknown\""))
                .hasSize(LatencyBuckets.COUNT)
                .allMatch(l -> l.endsWith("} 0"));
    }

    @Test
    void hostConnectionsAreTwoCountersAndAGauge() throws IOException {
        assertThat(scrape(() -> KNOWN)).contains("""
                # HELP urom_host_connections_total Host connections the workers accepted
                # TYPE urom_host_connections_total counter
                urom_host_connections_total 5.0
                # HELP urom_host_connections_open Host connections to workers open now
                # TYPE urom_host_connections_open gauge
                urom_host_connections_open 2.0
                # HELP urom_host_connections_refused_total Host connections a worker closed because the host broke the protocol
                # TYPE urom_host_connections_refused_total counter
                urom_host_connections_refused_total 1.0
                """);
    }

    @Test
    void anEmptySnapshotGivesOnlyTheConnectionMetricsAtZero() throws IOException {
        assertThat(scrape(() -> WorkerStatsSnapshot.EMPTY)).isEqualTo("""
                # HELP urom_host_connections_total Host connections the workers accepted
                # TYPE urom_host_connections_total counter
                urom_host_connections_total 0.0
                # HELP urom_host_connections_open Host connections to workers open now
                # TYPE urom_host_connections_open gauge
                urom_host_connections_open 0.0
                # HELP urom_host_connections_refused_total Host connections a worker closed because the host broke the protocol
                # TYPE urom_host_connections_refused_total counter
                urom_host_connections_refused_total 0.0
                """);
    }

    @Test
    void pluginNamesAreEscapedInLabelValues() throws IOException {
        WorkerStatsSnapshot odd = snapshot(1, 0, 0, 0, Map.of("we\"ird\\\nname", plugin(1, Map.of(), buckets(), 0)));

        assertThat(lines(odd)).contains("urom_commands_total{plugin=\"we\\\"ird\\\\\\nname\"} 1.0");
    }

    @Test
    void theSupplierIsAskedOncePerScrapeAndItsLatestTotalsAreShown() throws IOException {
        AtomicInteger asked = new AtomicInteger();
        Supplier<WorkerStatsSnapshot> totals = () -> snapshot(0, asked.incrementAndGet(), 0, 0, Map.of());
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new WorkerStatsCollector(totals));

        registry.scrape();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());

        assertThat(asked).hasValue(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("urom_host_connections_total 2.0\n");
    }

    @Test
    void theCollectedMetricNamesAreTheOnesItDeclares() {
        WorkerStatsCollector collector = new WorkerStatsCollector(() -> KNOWN);

        List<String> collected = collector.collect().stream()
                .map(MetricSnapshot::getMetadata)
                .map(m -> m.getPrometheusName())
                .toList();

        assertThat(collected).containsExactlyInAnyOrderElementsOf(collector.getPrometheusNames());
    }
}
