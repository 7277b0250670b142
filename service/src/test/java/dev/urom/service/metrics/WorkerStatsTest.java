// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import static dev.urom.service.metrics.TestCounts.buckets;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.UromStatus;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One worker's recorder: what it counts per plugin and status, what it times, and its connection counts. */
class WorkerStatsTest {
    private static final long GRAPH = 1;
    private static final long SANDBOX = 2;
    private static final long NOT_RUN = 99;
    private static final long CONN_A = 7;
    private static final long CONN_B = 8;

    private final WorkerStats stats = new WorkerStats(Map.of(GRAPH, "worker_graph", SANDBOX, "sandbox"));

    private PluginCounts counts(String plugin) {
        return stats.snapshot().plugins().get(plugin);
    }

    @Test
    void countsCommandsAndNotificationsPerPluginAndStatus() {
        stats.commandArrived(CONN_A, GRAPH, 1, 0);
        stats.commandArrived(CONN_A, GRAPH, 2, 0);
        stats.commandArrived(CONN_A, SANDBOX, 3, 0);
        stats.notified(CONN_A, GRAPH, 1, UromStatus.SUCCESS, 0);
        stats.notified(CONN_A, GRAPH, 2, UromStatus.AGAIN, 0);
        stats.notified(CONN_A, GRAPH, 9, UromStatus.SUCCESS, 0);
        stats.notified(CONN_A, SANDBOX, 3, UromStatus.NOT_FOUND, 0);

        WorkerStatsSnapshot snapshot = stats.snapshot();

        assertThat(snapshot.plugins()).containsOnlyKeys("worker_graph", "sandbox");
        assertThat(snapshot.plugins().get("worker_graph").commands()).isEqualTo(2);
        assertThat(snapshot.plugins().get("worker_graph").notifications())
                .isEqualTo(Map.of("SUCCESS", 2L, "AGAIN", 1L));
        assertThat(snapshot.plugins().get("sandbox").commands()).isEqualTo(1);
        assertThat(snapshot.plugins().get("sandbox").notifications()).isEqualTo(Map.of("NOT_FOUND", 1L));
    }

    @Test
    void aNotificationMatchingAnEarlierCommandIsTimedIntoItsBucketWithTheExactSum() {
        stats.commandArrived(CONN_A, GRAPH, 1, 1_000);
        stats.notified(CONN_A, GRAPH, 1, UromStatus.SUCCESS, 31_000); // 30 us: (25 us, 50 us] is bucket 2
        stats.commandArrived(CONN_A, GRAPH, 2, 5_000_000);
        stats.notified(CONN_A, GRAPH, 2, UromStatus.SUCCESS, 7_000_000); // 2 ms: (1 ms, 2.5 ms] is bucket 7

        PluginCounts graph = counts("worker_graph");

        assertThat(graph.latencyBuckets()).isEqualTo(buckets(2, 1, 7, 1));
        assertThat(graph.latencySumNanos()).isEqualTo(2_030_000);
        assertThat(graph.timedCommands()).isEqualTo(2);
    }

    @Test
    void aLatencyOverOneSecondIsTimedIntoTheLastBucket() {
        stats.commandArrived(CONN_A, GRAPH, 1, 0);
        stats.notified(CONN_A, GRAPH, 1, UromStatus.SUCCESS, 3_000_000_000L);

        assertThat(counts("worker_graph").latencyBuckets()).isEqualTo(buckets(LatencyBuckets.COUNT - 1, 1));
        assertThat(counts("worker_graph").latencySumNanos()).isEqualTo(3_000_000_000L);
    }

    @Test
    void aNotificationBeforeItsCommandsArrivalTimeIsTimedAsZero() {
        stats.commandArrived(CONN_A, GRAPH, 1, 10_000);
        stats.notified(CONN_A, GRAPH, 1, UromStatus.SUCCESS, 4_000);

        assertThat(counts("worker_graph").latencyBuckets()).isEqualTo(buckets(0, 1));
        assertThat(counts("worker_graph").latencySumNanos()).isZero();
    }

    @Test
    void aSecondCommandWithAContextInFlightOnTheSameConnectionIsCountedButNotTimed() {
        stats.commandArrived(CONN_A, GRAPH, 5, 0);
        stats.commandArrived(CONN_A, GRAPH, 5, 100);
        stats.notified(CONN_A, GRAPH, 5, UromStatus.SUCCESS, 20_000); // timed from the first arrival: 20 us, bucket 1
        stats.notified(CONN_A, GRAPH, 5, UromStatus.SUCCESS, 60_000);

        PluginCounts graph = counts("worker_graph");

        assertThat(graph.commands()).isEqualTo(2);
        assertThat(graph.notifications()).isEqualTo(Map.of("SUCCESS", 2L));
        assertThat(graph.latencyBuckets()).isEqualTo(buckets(1, 1));
        assertThat(graph.latencySumNanos()).isEqualTo(20_000);
    }

    @Test
    void aContextIsTimedAgainOnceItsEarlierCommandWasNotified() {
        stats.commandArrived(CONN_A, GRAPH, 5, 0);
        stats.notified(CONN_A, GRAPH, 5, UromStatus.SUCCESS, 5_000);
        stats.commandArrived(CONN_A, GRAPH, 5, 100_000);
        stats.notified(CONN_A, GRAPH, 5, UromStatus.SUCCESS, 140_000);

        assertThat(counts("worker_graph").latencyBuckets()).isEqualTo(buckets(0, 1, 2, 1));
        assertThat(counts("worker_graph").latencySumNanos()).isEqualTo(45_000);
    }

    @Test
    void theSameContextOnAnotherConnectionIsTimedSeparately() {
        stats.commandArrived(CONN_A, GRAPH, 5, 0);
        stats.commandArrived(CONN_B, GRAPH, 5, 1_000);
        stats.notified(CONN_B, GRAPH, 5, UromStatus.SUCCESS, 6_000); // 5 us: bucket 0
        stats.notified(CONN_A, GRAPH, 5, UromStatus.SUCCESS, 1_000_000); // 1 ms: bucket 6

        PluginCounts graph = counts("worker_graph");

        assertThat(graph.latencyBuckets()).isEqualTo(buckets(0, 1, 6, 1));
        assertThat(graph.latencySumNanos()).isEqualTo(1_005_000);
    }

    @Test
    void aNotificationOnAnotherConnectionThanItsCommandIsNotTimed() {
        stats.commandArrived(CONN_A, GRAPH, 5, 0);
        stats.notified(CONN_B, GRAPH, 5, UromStatus.SUCCESS, 6_000);

        assertThat(counts("worker_graph").timedCommands()).isZero();
        assertThat(counts("worker_graph").latencySumNanos()).isZero();
    }

    @Test
    void commandsAndNotificationsForAPluginIdTheWorkerDoesNotRunCountUnderUnknown() {
        stats.commandArrived(CONN_A, NOT_RUN, 1, 0);
        stats.commandArrived(CONN_A, NOT_RUN + 1, 2, 0);
        stats.notified(CONN_A, NOT_RUN, 1, UromStatus.NOT_FOUND, 12_000);

        WorkerStatsSnapshot snapshot = stats.snapshot();

        assertThat(snapshot.plugins()).containsOnlyKeys(WorkerStats.UNKNOWN_PLUGIN);
        PluginCounts unknown = snapshot.plugins().get("unknown");
        assertThat(unknown.commands()).isEqualTo(2);
        assertThat(unknown.notifications()).isEqualTo(Map.of("NOT_FOUND", 1L));
        assertThat(unknown.latencyBuckets()).isEqualTo(buckets(1, 1));
    }

    @Test
    void afterItsConnectionClosedACommandInFlightIsCountedButNotTimed() {
        stats.connectionAccepted();
        stats.connectionAccepted();
        stats.commandArrived(CONN_A, GRAPH, 1, 0);
        stats.commandArrived(CONN_B, GRAPH, 1, 0);
        stats.connectionClosed(CONN_A);
        stats.notified(CONN_A, GRAPH, 1, UromStatus.CONNECTION_RESET, 2_000);
        stats.notified(CONN_B, GRAPH, 1, UromStatus.SUCCESS, 3_000);

        PluginCounts graph = counts("worker_graph");

        assertThat(graph.commands()).isEqualTo(2);
        assertThat(graph.notifications()).isEqualTo(Map.of("CONNECTION_RESET", 1L, "SUCCESS", 1L));
        assertThat(graph.latencyBuckets()).isEqualTo(buckets(0, 1));
        assertThat(graph.latencySumNanos()).isEqualTo(3_000);
    }

    @Test
    void countsConnectionsAcceptedOpenAndRefused() {
        stats.connectionAccepted();
        stats.connectionAccepted();
        stats.connectionAccepted();
        stats.connectionRefused();
        stats.connectionClosed(CONN_A);

        WorkerStatsSnapshot snapshot = stats.snapshot();

        assertThat(snapshot.connectionsAccepted()).isEqualTo(3);
        assertThat(snapshot.connectionsOpen()).isEqualTo(2);
        assertThat(snapshot.connectionsRefused()).isEqualTo(1);
    }

    @Test
    void openConnectionsNeverGoBelowZero() {
        stats.connectionAccepted();
        stats.connectionClosed(CONN_A);
        stats.connectionClosed(CONN_B);

        assertThat(stats.snapshot().connectionsOpen()).isZero();
        assertThat(stats.snapshot().connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void eachSnapshotHasAHigherSequenceThanTheOneBefore() {
        long first = stats.snapshot().sequence();
        stats.commandArrived(CONN_A, GRAPH, 1, 0);
        long second = stats.snapshot().sequence();
        long third = stats.snapshot().sequence();

        assertThat(first).isPositive();
        assertThat(second).isGreaterThan(first);
        assertThat(third).isGreaterThan(second);
    }

    @Test
    void pluginsWithNothingRecordedAreAbsent() {
        assertThat(stats.snapshot().plugins()).isEmpty();

        stats.commandArrived(CONN_A, GRAPH, 1, 0);

        assertThat(stats.snapshot().plugins()).containsOnlyKeys("worker_graph");
    }

    @Test
    void aPluginWithOnlyANotificationIsPresent() {
        stats.notified(CONN_A, SANDBOX, 1, UromStatus.SUCCESS, 0);

        assertThat(stats.snapshot().plugins()).containsOnlyKeys("sandbox");
        assertThat(counts("sandbox").commands()).isZero();
    }

    @Test
    void aSnapshotDoesNotChangeWhenTheRecorderGoesOn() {
        stats.commandArrived(CONN_A, GRAPH, 1, 0);
        WorkerStatsSnapshot before = stats.snapshot();

        stats.commandArrived(CONN_A, GRAPH, 2, 0);
        stats.notified(CONN_A, GRAPH, 1, UromStatus.SUCCESS, 100);

        assertThat(before.plugins().get("worker_graph").commands()).isEqualTo(1);
        assertThat(before.plugins().get("worker_graph").notifications()).isEmpty();
        assertThat(before.plugins().get("worker_graph").timedCommands()).isZero();
    }
}
