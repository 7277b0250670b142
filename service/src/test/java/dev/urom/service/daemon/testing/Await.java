// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded waits for the daemon's tests: poll a condition until it holds or the limit has passed (then fail naming it). */
public final class Await {
    /** The longest any of these tests waits for one thing (a loaded CI machine starts JVMs slowly). */
    public static final Duration PATIENCE = Duration.ofSeconds(60);

    private static final long POLL_MILLIS = 10;

    private Await() {}

    /** Waits until {@code condition} holds, at most {@link #PATIENCE}. */
    public static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + PATIENCE.toSeconds() + " s waiting until " + what);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }
}
