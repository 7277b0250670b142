// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The loop's counts of commands in flight and the bounds of its armed sleep. The scheduler here has
 * no worker host: a test passes only if nothing it does asks a plugin.
 */
class LoopSchedulerTest {
    @Test
    void commandsAreInFlightUntilEachIsAnsweredAndExtraAnswersCountNothing() throws IOException {
        try (Selector selector = Selector.open();
                LoopScheduler scheduler = new LoopScheduler(1, null, selector)) {
            scheduler.answered(0x4);
            scheduler.submitted(0x4);
            scheduler.submitted(0x3);
            scheduler.answered(0x4);
            assertThat(scheduler.hasInFlight()).isTrue();

            scheduler.answered(0x3);

            assertThat(scheduler.hasInFlight()).isFalse();
        }
    }

    @Test
    void withNothingInFlightOrACommandForAnIdOfSeveralBitsNoSleepIsArmedAndNoPluginIsAsked() throws IOException {
        try (Selector selector = Selector.open();
                LoopScheduler scheduler = new LoopScheduler(1, null, selector)) {
            paceBeyondTheSpin(scheduler);
            assertThat(scheduler.takeArmedSleep()).isFalse();

            scheduler.submitted(0x3);
            paceBeyondTheSpin(scheduler);

            assertThat(scheduler.takeArmedSleep()).isFalse();
            assertThat(scheduler.hasInFlight()).isTrue();
        }
    }

    @Test
    void anArmedSleepLastsAtMostASecondAndEndsJustAfterWhatIsDue() {
        assertThat(LoopScheduler.armedSleepMillis(Long.MAX_VALUE)).isEqualTo(LoopScheduler.ARMED_SELECT_MS + 1);
        assertThat(LoopScheduler.armedSleepMillis(TimeUnit.MILLISECONDS.toNanos(5)))
                .isEqualTo(6);
        assertThat(LoopScheduler.armedSleepMillis(0)).isEqualTo(1);
        assertThat(LoopScheduler.armedSleepMillis(-TimeUnit.SECONDS.toNanos(3))).isEqualTo(1);
    }

    private static void paceBeyondTheSpin(LoopScheduler scheduler) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
        while (System.nanoTime() - end < 0) {
            scheduler.pace(false);
        }
    }
}
