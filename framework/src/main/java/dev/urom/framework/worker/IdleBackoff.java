// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread that polls for progress waits when a round brought nothing: it spins a while, then
 * parks for spells that double from a microsecond up to a millisecond; a round that brought
 * something starts it over. One per wait; not thread-safe.
 */
public final class IdleBackoff {
    private static final int SPINS_BEFORE_PARKING = 1_000;
    private static final long FIRST_PARK_NANOS = 1_000L;
    private static final long MAX_PARK_NANOS = 1_000_000L;

    private int idleRounds;
    private long parkNanos = FIRST_PARK_NANOS;

    /** After a round of progress: waits a little when it was idle, starts over when it was not. */
    public void after(boolean idle) {
        if (!idle) {
            idleRounds = 0;
            parkNanos = FIRST_PARK_NANOS;
            return;
        }
        if (++idleRounds < SPINS_BEFORE_PARKING) {
            Thread.onSpinWait();
            return;
        }
        LockSupport.parkNanos(parkNanos);
        parkNanos = Math.min(parkNanos * 2, MAX_PARK_NANOS);
    }
}
