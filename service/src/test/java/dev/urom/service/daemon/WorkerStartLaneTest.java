// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WorkerStartLaneTest {
    @Test
    void atMostTheGivenNumberRunAtOnceAndAFinishedOneFreesItsPlace() throws Exception {
        try (WorkerStartLane lane = new WorkerStartLane(2)) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch running = new CountDownLatch(2);
            Runnable blocked = () -> {
                running.countDown();
                awaitQuietly(release);
            };

            assertThat(lane.trySubmit(blocked)).isTrue();
            assertThat(lane.trySubmit(blocked)).isTrue();
            assertThat(running.await(10, TimeUnit.SECONDS))
                    .as("both run side by side")
                    .isTrue();
            assertThat(lane.trySubmit(() -> {}))
                    .as("a third is declined while two run")
                    .isFalse();

            release.countDown();
            CountDownLatch third = new CountDownLatch(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!lane.trySubmit(third::countDown)) {
                assertThat(System.nanoTime())
                        .as("a place came free within 10 s")
                        .isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(third.await(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aClosedLaneDeclinesEverything() {
        WorkerStartLane lane = new WorkerStartLane(4);
        lane.close();

        assertThat(lane.trySubmit(() -> {})).isFalse();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
