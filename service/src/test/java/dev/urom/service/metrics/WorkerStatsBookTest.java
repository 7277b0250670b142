// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import static dev.urom.service.metrics.TestCounts.buckets;
import static dev.urom.service.metrics.TestCounts.plugin;
import static dev.urom.service.metrics.TestCounts.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.UromStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** The daemon's book of worker counts: latest snapshot per live worker, the ended workers' sum, and the total. */
class WorkerStatsBookTest {
    private static final PluginCounts FIVE_COMMANDS = plugin(5, Map.of("SUCCESS", 4L), buckets(0, 3, 2, 1), 40_000);
    private static final PluginCounts TWO_COMMANDS = plugin(2, Map.of("AGAIN", 2L), buckets(1, 2), 30_000);

    private final WorkerStatsBook book = new WorkerStatsBook();

    @Example
    void anEmptyBookTotalsNothing() {
        assertThat(book.total()).isEqualTo(WorkerStatsSnapshot.EMPTY);
    }

    @Example
    void updateKeepsTheSnapshotWithTheHigherSequence() {
        book.update(1, snapshot(1, 1, 1, 0, Map.of("g", TWO_COMMANDS)));
        book.update(1, snapshot(2, 3, 2, 0, Map.of("g", FIVE_COMMANDS)));

        assertThat(book.total()).isEqualTo(snapshot(0, 3, 2, 0, Map.of("g", FIVE_COMMANDS)));
    }

    @Example
    void anOlderSnapshotArrivingLateIsIgnored() {
        book.update(1, snapshot(7, 3, 2, 1, Map.of("g", FIVE_COMMANDS)));
        book.update(1, snapshot(6, 1, 1, 0, Map.of("g", TWO_COMMANDS)));

        assertThat(book.total()).isEqualTo(snapshot(0, 3, 2, 1, Map.of("g", FIVE_COMMANDS)));
    }

    @Example
    void retireMovesAWorkersLatestCountsIntoTheEndedSumWithNoConnectionOpen() {
        book.update(1, snapshot(4, 3, 2, 1, Map.of("g", FIVE_COMMANDS)));

        book.retire(1);

        assertThat(book.total()).isEqualTo(snapshot(0, 3, 0, 1, Map.of("g", FIVE_COMMANDS)));
    }

    @Example
    void retiringAWorkerWithoutCountsChangesNothing() {
        book.update(1, snapshot(4, 3, 2, 1, Map.of("g", FIVE_COMMANDS)));

        book.retire(2);

        assertThat(book.total()).isEqualTo(snapshot(0, 3, 2, 1, Map.of("g", FIVE_COMMANDS)));
    }

    @Example
    void aNewWorkerUnderARetiredKeyStartsAfresh() {
        book.update(1, snapshot(9, 3, 2, 1, Map.of("g", FIVE_COMMANDS)));
        book.retire(1);

        book.update(1, snapshot(1, 1, 1, 0, Map.of("g", TWO_COMMANDS)));

        assertThat(book.total()).isEqualTo(snapshot(0, 4, 1, 1, Map.of("g", FIVE_COMMANDS.plus(TWO_COMMANDS))));
    }

    @Example
    void totalIsTheEndedSumPlusEachLiveWorkersLatest() {
        book.update(1, snapshot(1, 2, 2, 0, Map.of("g", FIVE_COMMANDS)));
        book.retire(1);
        book.update(2, snapshot(1, 1, 1, 0, Map.of("g", TWO_COMMANDS)));
        book.update(2, snapshot(2, 4, 3, 1, Map.of("g", TWO_COMMANDS, "s", FIVE_COMMANDS)));
        book.update(3, snapshot(1, 5, 1, 2, Map.of("s", TWO_COMMANDS)));

        WorkerStatsSnapshot total = book.total();

        assertThat(total.sequence()).isZero();
        assertThat(total.connectionsAccepted()).isEqualTo(2 + 4 + 5);
        assertThat(total.connectionsOpen()).isEqualTo(3 + 1);
        assertThat(total.connectionsRefused()).isEqualTo(1 + 2);
        assertThat(total.plugins()).containsOnlyKeys("g", "s");
        assertThat(total.plugins().get("g"))
                .isEqualTo(plugin(7, Map.of("SUCCESS", 4L, "AGAIN", 2L), buckets(0, 3, 1, 2, 2, 1), 70_000));
        assertThat(total.plugins().get("s")).isEqualTo(FIVE_COMMANDS.plus(TWO_COMMANDS));
    }

    // ---- totals never decrease

    enum Kind {
        UPDATE,
        RESEND_OLDER,
        RETIRE
    }

    /** What one worker adds between two of its snapshots. */
    record Growth(
            long accepted,
            long refused,
            long open,
            String plugin,
            long commands,
            String status,
            long notifications,
            int bucket,
            long timed,
            long sumNanos) {
        PluginCounts counts() {
            return TestCounts.plugin(
                    commands,
                    notifications == 0 ? Map.of() : Map.of(status, notifications),
                    buckets(bucket, timed),
                    sumNanos);
        }
    }

    record Operation(Kind kind, long key, Growth growth) {}

    @Provide
    Arbitrary<Operation> operations() {
        Arbitrary<Long> small = Arbitraries.longs().between(0, 1_000);
        Arbitrary<Growth> growths = Combinators.combine(
                        Combinators.combine(small, small, small).as(List::of),
                        Arbitraries.of("g", "s", "unknown"),
                        small,
                        Arbitraries.of(UromStatus.class).map(Enum::name),
                        small,
                        Arbitraries.integers().between(0, LatencyBuckets.COUNT - 1),
                        small,
                        Arbitraries.longs().between(0, 1_000_000_000))
                .as((c, plugin, commands, status, notes, bucket, timed, sum) ->
                        new Growth(c.get(0), c.get(1), c.get(2), plugin, commands, status, notes, bucket, timed, sum));
        return Combinators.combine(
                        Arbitraries.of(Kind.class), Arbitraries.longs().between(1, 3), growths)
                .as(Operation::new);
    }

    @Property
    void totalsNeverDecreaseAndMatchEveryWorkersLatestCounts(
            @ForAll @Size(max = 40) List<@net.jqwik.api.From("operations") Operation> operations) {
        WorkerStatsBook book = new WorkerStatsBook();
        Map<Long, List<WorkerStatsSnapshot>> sent = new HashMap<>();
        List<WorkerStatsSnapshot> ended = new ArrayList<>();
        WorkerStatsSnapshot before = book.total();
        for (Operation op : operations) {
            List<WorkerStatsSnapshot> history = sent.computeIfAbsent(op.key(), k -> new ArrayList<>());
            switch (op.kind()) {
                case UPDATE -> {
                    WorkerStatsSnapshot next = grow(
                            history.isEmpty() ? WorkerStatsSnapshot.EMPTY : history.get(history.size() - 1),
                            op.growth());
                    history.add(next);
                    book.update(op.key(), next);
                }
                case RESEND_OLDER -> {
                    if (history.size() > 1) {
                        book.update(op.key(), history.get((int) (op.growth().commands() % (history.size() - 1))));
                    }
                }
                case RETIRE -> {
                    book.retire(op.key());
                    if (!history.isEmpty()) {
                        ended.add(history.get(history.size() - 1).ended());
                    }
                    sent.remove(op.key());
                }
            }
            WorkerStatsSnapshot now = book.total();
            assertNotBelow(now, before);
            assertThat(now).isEqualTo(expectedTotal(ended, sent));
            before = now;
        }
    }

    private static WorkerStatsSnapshot grow(WorkerStatsSnapshot last, Growth g) {
        long accepted = last.connectionsAccepted() + g.accepted();
        Map<String, PluginCounts> plugins = new HashMap<>(last.plugins());
        plugins.merge(g.plugin(), g.counts(), PluginCounts::plus);
        return snapshot(
                last.sequence() + 1,
                accepted,
                Math.min(accepted, g.open()),
                last.connectionsRefused() + g.refused(),
                plugins);
    }

    /** The expected total, added up here from scalar counts rather than with {@link WorkerStatsSnapshot#sum}. */
    private static WorkerStatsSnapshot expectedTotal(
            List<WorkerStatsSnapshot> ended, Map<Long, List<WorkerStatsSnapshot>> live) {
        List<WorkerStatsSnapshot> all = new ArrayList<>(ended);
        live.values().stream().filter(h -> !h.isEmpty()).forEach(h -> all.add(h.get(h.size() - 1)));
        long accepted = 0;
        long open = 0;
        long refused = 0;
        Map<String, Long> commands = new HashMap<>();
        Map<String, Map<String, Long>> notifications = new HashMap<>();
        Map<String, long[]> buckets = new HashMap<>();
        Map<String, Long> sums = new HashMap<>();
        for (WorkerStatsSnapshot s : all) {
            accepted += s.connectionsAccepted();
            open += s.connectionsOpen();
            refused += s.connectionsRefused();
            s.plugins().forEach((name, c) -> {
                commands.merge(name, c.commands(), Long::sum);
                c.notifications()
                        .forEach((status, n) -> notifications
                                .computeIfAbsent(name, k -> new HashMap<>())
                                .merge(status, n, Long::sum));
                long[] b = buckets.computeIfAbsent(name, k -> new long[LatencyBuckets.COUNT]);
                for (int i = 0; i < LatencyBuckets.COUNT; i++) {
                    b[i] += c.latencyBuckets().get(i);
                }
                sums.merge(name, c.latencySumNanos(), Long::sum);
            });
        }
        Map<String, PluginCounts> plugins = new HashMap<>();
        commands.keySet()
                .forEach(name -> plugins.put(
                        name,
                        plugin(
                                commands.get(name),
                                notifications.getOrDefault(name, Map.of()),
                                java.util.Arrays.stream(buckets.get(name))
                                        .boxed()
                                        .toList(),
                                sums.get(name))));
        return snapshot(0, accepted, open, refused, plugins);
    }

    private static void assertNotBelow(WorkerStatsSnapshot now, WorkerStatsSnapshot before) {
        assertThat(now.connectionsAccepted()).isGreaterThanOrEqualTo(before.connectionsAccepted());
        assertThat(now.connectionsRefused()).isGreaterThanOrEqualTo(before.connectionsRefused());
        assertThat(now.plugins().keySet()).containsAll(before.plugins().keySet());
        before.plugins().forEach((name, was) -> {
            PluginCounts is = now.plugins().get(name);
            assertThat(is.commands()).as("%s commands", name).isGreaterThanOrEqualTo(was.commands());
            assertThat(is.latencySumNanos()).as("%s latency sum", name).isGreaterThanOrEqualTo(was.latencySumNanos());
            was.notifications()
                    .forEach((status, n) -> assertThat(is.notifications().getOrDefault(status, 0L))
                            .as("%s %s", name, status)
                            .isGreaterThanOrEqualTo(n));
            for (int i = 0; i < LatencyBuckets.COUNT; i++) {
                assertThat(is.latencyBuckets().get(i))
                        .as("%s bucket %d", name, i)
                        .isGreaterThanOrEqualTo(was.latencyBuckets().get(i));
            }
        });
    }
}
