// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The per-principal count of control connections. */
class ConnectionLimitsTest {
    private static final Principal ALICE = Principal.key("alice");
    private static final Principal BOB = Principal.key("bob");

    @Test
    void aPrincipalGetsItsMaximumAndNoMoreUntilOneIsReleased() {
        ConnectionLimits limits = new ConnectionLimits(2);

        assertThat(limits.tryAcquire(ALICE)).isTrue();
        assertThat(limits.tryAcquire(ALICE)).isTrue();
        assertThat(limits.tryAcquire(ALICE)).isFalse();
        assertThat(limits.tryAcquire(ALICE)).as("a refusal counts nothing").isFalse();
        limits.release(ALICE);
        assertThat(limits.tryAcquire(ALICE)).isTrue();
        assertThat(limits.tryAcquire(ALICE)).isFalse();
    }

    @Test
    void principalsAreCountedApartUnixUsersAndAnonymousIncluded() {
        ConnectionLimits limits = new ConnectionLimits(1);

        assertThat(limits.tryAcquire(ALICE)).isTrue();
        assertThat(limits.tryAcquire(BOB)).isTrue();
        assertThat(limits.tryAcquire(Principal.unix(1000))).isTrue();
        assertThat(limits.tryAcquire(Principal.unix(1001))).isTrue();
        assertThat(limits.tryAcquire(Principal.ANONYMOUS)).isTrue();
        assertThat(limits.tryAcquire(Principal.unix(1000))).isFalse();
        assertThat(limits.tryAcquire(Principal.ANONYMOUS)).isFalse();
        assertThat(limits.tryAcquire(ALICE)).isFalse();
    }

    @Test
    void releasingMoreThanWasTakenNeverRaisesTheMaximum() {
        ConnectionLimits limits = new ConnectionLimits(2);
        limits.release(ALICE);
        limits.tryAcquire(ALICE);
        limits.release(ALICE);
        limits.release(ALICE);

        assertThat(limits.tryAcquire(ALICE)).isTrue();
        assertThat(limits.tryAcquire(ALICE)).isTrue();
        assertThat(limits.tryAcquire(ALICE)).isFalse();
    }

    @Test
    void threadsRacingForOnePrincipalNeverHoldMoreThanItsMaximum() throws Exception {
        int maximum = 3;
        ConnectionLimits limits = new ConnectionLimits(maximum);
        AtomicInteger held = new AtomicInteger();
        AtomicInteger mostHeld = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> racers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                racers.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 20_000; i++) {
                        if (limits.tryAcquire(ALICE)) {
                            mostHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
                            held.decrementAndGet();
                            limits.release(ALICE);
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> racer : racers) {
                racer.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(mostHeld.get()).isBetween(1, maximum);
        for (int i = 0; i < maximum; i++) {
            assertThat(limits.tryAcquire(ALICE)).as("every slot came back").isTrue();
        }
        assertThat(limits.tryAcquire(ALICE)).isFalse();
    }
}
