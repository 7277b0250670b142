// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadMetricsCheckTest {
    private static final Map<String, LoadMetricsCheck.HostCounts> HOSTS = hosts();

    private static Map<String, LoadMetricsCheck.HostCounts> hosts() {
        Map<String, LoadMetricsCheck.HostCounts> counts = new LinkedHashMap<>();
        counts.put("worker_graph", new LoadMetricsCheck.HostCounts(4000, 4000, 4000));
        counts.put("worker_graph_java", new LoadMetricsCheck.HostCounts(4000, 4000, 4000));
        return counts;
    }

    private static String scrape(long nativeCommands, long javaSuccesses, String extra) {
        return """
                # HELP urom_commands_total Commands the workers received
                # TYPE urom_commands_total counter
                urom_commands_total{plugin="worker_graph"} %d.0
                urom_commands_total{plugin="worker_graph_java"} 4000.0
                urom_notifications_total{plugin="worker_graph",status="SUCCESS"} 4000.0
                urom_notifications_total{plugin="worker_graph_java",status="SUCCESS"} %d.0
                urom_worker_starts_total{outcome="started",status="SUCCESS"} 4.0
                urom_worker_starts_total{outcome="refused",status="NOT_PERMITTED"} 1.0
                urom_worker_stats_timeouts_total 0.0
                %s
                """.formatted(nativeCommands, javaSuccesses, extra);
    }

    @Test
    void countsThatAgreePass() {
        LoadMetricsCheck check = LoadMetricsCheck.compare("while the workers run", MetricsScrape.parse(scrape(4000, 4000, "")), HOSTS, 4);

        assertThat(check.matches()).isTrue();
        assertThat(check.failures()).isEmpty();
        assertThat(check.lines()).hasSize(7).allSatisfy(l -> assertThat(l.daemon()).isEqualTo(l.hosts()));
    }

    @Test
    void aPluginCountThatDiffersFailsWithOneLineNamingTheMetricAndBothFigures() {
        LoadMetricsCheck check = LoadMetricsCheck.compare("while the workers run", MetricsScrape.parse(scrape(3999, 4000, "")), HOSTS, 4);

        assertThat(check.matches()).isFalse();
        assertThat(check.failures()).containsExactly(
                "metrics (while the workers run): urom_commands_total{plugin=\"worker_graph\"} = 3999, hosts counted 4000",
                "metrics (while the workers run): urom_commands_total (every plugin) = 7999, hosts counted 8000");
    }

    @Test
    void aMissingNotificationCountFails() {
        LoadMetricsCheck check = LoadMetricsCheck.compare("after the workers ended", MetricsScrape.parse(scrape(4000, 0, "")), HOSTS, 4);

        assertThat(check.failures()).contains(
                "metrics (after the workers ended): urom_notifications_total{plugin=\"worker_graph_java\",status=\"SUCCESS\"} = 0, hosts counted 4000");
    }

    @Test
    void aStrayCommandOfAnotherPluginOrAnotherStatusFails() {
        LoadMetricsCheck check = LoadMetricsCheck.compare("while the workers run", MetricsScrape.parse(scrape(4000, 4000,
                "urom_commands_total{plugin=\"unknown\"} 1.0\nurom_notifications_total{plugin=\"unknown\",status=\"NOT_FOUND\"} 1.0")), HOSTS, 4);

        assertThat(check.failures()).containsExactly(
                "metrics (while the workers run): urom_commands_total (every plugin) = 8001, hosts counted 8000",
                "metrics (while the workers run): urom_notifications_total (every plugin and status) = 8001, hosts counted 8000");
    }

    @Test
    void workersStartedAreCompared() {
        assertThat(LoadMetricsCheck.compare("while the workers run", MetricsScrape.parse(scrape(4000, 4000, "")), HOSTS, 5).failures())
                .containsExactly("metrics (while the workers run): urom_worker_starts_total{outcome=\"started\",status=\"SUCCESS\"} = 4, hosts counted 5");
    }

    @Test
    void aLineThatIsNoSampleIsRefusedByTheScrape() {
        assertThatThrownBy(() -> MetricsScrape.parse("urom_commands_total{plugin=worker_graph} 1.0\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not name=\"value\" pairs");
    }
}
