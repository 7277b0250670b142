// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.metrics.WorkerStats;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import java.io.IOException;
import java.nio.channels.Selector;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Copies of the counts for other threads: taken before a turn's select, answered at its end, shared while pending, failed once closed. */
class StatsHandOffTest {
    private final WorkerStats stats = new WorkerStats(Map.of(0x4L, "echo"));
    private Selector selector;
    private StatsHandOff handOff;

    @BeforeEach
    void openSelector() throws IOException {
        selector = Selector.open();
        handOff = new StatsHandOff(stats, selector);
    }

    @AfterEach
    void closeSelector() throws IOException {
        selector.close();
    }

    @Test
    void aRequestIsAnsweredAtTheEndOfTheTurnThatTookItWithTheCountsThen() {
        CompletableFuture<WorkerStatsSnapshot> request = handOff.request();
        assertThat(handOff.takeRequest()).isTrue();
        stats.connectionAccepted();
        assertThat(request).isNotDone();

        handOff.answerTaken();

        assertThat(request).isCompleted();
        assertThat(request.join().connectionsAccepted()).isEqualTo(1);
        assertThat(handOff.takeRequest()).isFalse();
    }

    @Test
    void aRequestMadeWhileAnotherIsPendingSharesItsAnswerButNotOnceItIsTaken() {
        CompletableFuture<WorkerStatsSnapshot> first = handOff.request();
        assertThat(handOff.request()).isSameAs(first);

        handOff.takeRequest();
        CompletableFuture<WorkerStatsSnapshot> next = handOff.request();
        handOff.answerTaken();

        assertThat(next).isNotSameAs(first).isNotDone();
        assertThat(first).isCompleted();
    }

    @Test
    void aRequestWakesTheSelector() throws IOException {
        handOff.request();
        long start = System.nanoTime();

        selector.select(10_000);

        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void closingFailsTheTakenThePendingAndEveryLaterRequest() {
        CompletableFuture<WorkerStatsSnapshot> taken = handOff.request();
        handOff.takeRequest();
        CompletableFuture<WorkerStatsSnapshot> pending = handOff.request();

        handOff.close();

        assertThat(taken).isCompletedExceptionally();
        assertThat(pending).isCompletedExceptionally();
        assertThat(handOff.request()).isCompletedExceptionally();
        assertThat(handOff.takeRequest()).isFalse();
    }
}
