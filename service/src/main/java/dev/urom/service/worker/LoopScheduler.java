// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.framework.worker.WorkerHost;
import dev.urom.service.os.WakeupWatcher;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import java.io.IOException;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Counts the commands in flight by plugin and decides how the data plane waits between turns while
 * there are any; not thread-safe: the data-plane thread owns it, and it calls plugins on that thread
 * only. After each turn ({@link #pace}):
 *
 * <ul>
 *   <li>activity, or nothing in flight: it starts over;
 *   <li>for {@value #SPIN_MICROS} us after the last activity: it spins;
 *   <li>then, when every plugin with commands in flight has a wake-up descriptor ({@link
 *       PluginIface#wakeupFd()}) and {@link PluginIface#armWakeup()} says armed for each: it arms a
 *       sleep ({@link #takeArmedSleep}), which a {@link WakeupWatcher} ends by waking the selector;
 *   <li>otherwise: it parks, 10 us doubling up to 100 us, because what such a plugin waits for (a
 *       peer's message on its own socket) is not in the selector.
 * </ul>
 *
 * <p>A plugin is polled from then on when its arm call fails, when the watcher finds its descriptor
 * closed, or, for all plugins, when the watcher cannot start; each is logged once. A command for an
 * id that is not a single bit keeps the loop polling while it is in flight. {@link #close} stops the
 * watcher.
 */
final class LoopScheduler implements AutoCloseable {
    /** The longest armed sleep, in ms (nothing else needs the loop sooner but a deadline of the connections). */
    static final long ARMED_SELECT_MS = 1000;

    private static final Logger LOG = LogManager.getLogger(DataPlane.class);
    private static final long SPIN_MICROS = 50;
    private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(SPIN_MICROS);
    private static final long MIN_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(10);
    private static final long MAX_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
    private static final int FD_UNKNOWN = -2;
    private static final int FD_NONE = -1;

    private final long workerId;
    private final WorkerHost host;
    private final Selector selector;
    private long inFlight;
    /** Commands in flight by plugin id bit; commands of an id that is not a single bit count in {@link #otherInFlight}. */
    private final long[] inFlightByBit = new long[64];

    private long otherInFlight;
    /** Each plugin id bit's wake-up descriptor: {@link #FD_UNKNOWN} until asked, {@link #FD_NONE} when polled. */
    private final int[] wakeupFds = new int[64];

    private final int[] armedFds = new int[64];
    private WakeupWatcher watcher;
    private boolean watcherFailed;
    private boolean sleepArmed;
    private long spinStart;
    private long parkNanos;

    /** @param selector the selector the watcher wakes */
    LoopScheduler(long workerId, WorkerHost host, Selector selector) {
        this.workerId = workerId;
        this.host = host;
        this.selector = selector;
        Arrays.fill(wakeupFds, FD_UNKNOWN);
    }

    /** A command for plugin id {@code type} went to the worker host. */
    void submitted(long type) {
        inFlight++;
        if (Long.bitCount(type) == 1) {
            inFlightByBit[Long.numberOfTrailingZeros(type)]++;
        } else {
            otherInFlight++;
        }
    }

    /** A notification of plugin id {@code type} came out of the worker host; one beyond those submitted counts nothing. */
    void answered(long type) {
        if (inFlight == 0) {
            return;
        }
        inFlight--;
        if (Long.bitCount(type) == 1) {
            int bit = Long.numberOfTrailingZeros(type);
            if (inFlightByBit[bit] > 0) {
                inFlightByBit[bit]--;
            }
        } else if (otherInFlight > 0) {
            otherInFlight--;
        }
    }

    boolean hasInFlight() {
        return inFlight > 0;
    }

    /** Whether the last {@link #pace} armed a sleep for the next turn; the next call says false unless another pace arms one. */
    boolean takeArmedSleep() {
        boolean armed = sleepArmed;
        sleepArmed = false;
        return armed;
    }

    /** How long an armed sleep may last: {@link #ARMED_SELECT_MS}, or until {@code nanosUntilDue} have passed. */
    static long armedSleepMillis(long nanosUntilDue) {
        long until = Math.min(TimeUnit.MILLISECONDS.toNanos(ARMED_SELECT_MS), nanosUntilDue);
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(until) + 1);
    }

    /** Spins, arms a sleep or parks after a turn, as the class comment says. */
    void pace(boolean activity) {
        if (activity || inFlight == 0) {
            spinStart = 0;
            parkNanos = 0;
        } else if (spinStart == 0) {
            spinStart = System.nanoTime();
        } else if (parkNanos == 0 && System.nanoTime() - spinStart <= SPIN_NANOS) {
            Thread.onSpinWait();
        } else if (armAll()) {
            sleepArmed = true;
        } else {
            parkNanos = Math.min(Math.max(MIN_PARK_NANOS, parkNanos * 2), MAX_PARK_NANOS);
            LockSupport.parkNanos(parkNanos);
        }
    }

    /**
     * Arms the wake-up descriptor of every plugin with commands in flight and hands them to the
     * watcher. False (poll instead) when one has no descriptor, says AGAIN, or fails to arm.
     */
    private boolean armAll() {
        if (otherInFlight > 0 || watcherFailed) {
            return false;
        }
        if (watcher != null) {
            forgetInvalid(watcher.takeInvalid());
        }
        int count = 0;
        for (int bit = 0; bit < 64; bit++) {
            if (inFlightByBit[bit] > 0) {
                int fd = wakeupFd(bit);
                if (fd < 0) {
                    return false;
                }
                armedFds[count++] = fd;
            }
        }
        if (count == 0) {
            return false;
        }
        for (int bit = 0; bit < 64; bit++) {
            if (inFlightByBit[bit] > 0 && !arm(bit)) {
                return false;
            }
        }
        if (watcher == null) {
            try {
                watcher = WakeupWatcher.start(selector::wakeup, "urom-wakeup-" + workerId);
            } catch (IOException | RuntimeException e) {
                LOG.warn(
                        "worker {}: cannot watch wake-up descriptors ({}); plugins are polled",
                        workerId,
                        e.getMessage());
                watcherFailed = true;
                return false;
            }
        }
        watcher.watch(armedFds, count);
        return true;
    }

    /** The wake-up descriptor of the plugin with id bit {@code bit}, asked once; negative when it is polled. */
    private int wakeupFd(int bit) {
        int fd = wakeupFds[bit];
        if (fd != FD_UNKNOWN) {
            return fd;
        }
        PluginIface plugin = host.plugin(1L << bit).orElse(null);
        if (plugin == null) {
            // no opened plugin (its commands are answered at once): ask again should it ever have commands in flight
            return FD_NONE;
        }
        fd = FD_NONE;
        try {
            OptionalInt given = plugin.wakeupFd();
            if (given.isPresent() && given.getAsInt() >= 0) {
                fd = given.getAsInt();
                LOG.debug(
                        "worker {}: plugin 0x{} wakes the worker through descriptor {}",
                        workerId,
                        Long.toHexString(1L << bit),
                        fd);
            }
        } catch (RuntimeException | StackOverflowError e) {
            LOG.warn(
                    "worker {}: plugin 0x{} threw when asked for its wake-up descriptor; it is polled",
                    workerId,
                    Long.toHexString(1L << bit),
                    e);
        }
        wakeupFds[bit] = fd;
        return fd;
    }

    private boolean arm(int bit) {
        PluginIface plugin = host.plugin(1L << bit).orElse(null);
        if (plugin == null) {
            return false;
        }
        try {
            return plugin.armWakeup();
        } catch (UromException e) {
            LOG.warn(
                    "worker {}: plugin 0x{} could not arm its wake-up descriptor: {}: {}; it is polled from now on",
                    workerId,
                    Long.toHexString(1L << bit),
                    e.status(),
                    e.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            LOG.warn(
                    "worker {}: plugin 0x{} threw arming its wake-up descriptor; it is polled from now on",
                    workerId,
                    Long.toHexString(1L << bit),
                    e);
        }
        wakeupFds[bit] = FD_NONE;
        return false;
    }

    /** A descriptor that the watcher found closed: its plugin is polled from now on. */
    private void forgetInvalid(int fd) {
        if (fd < 0) {
            return;
        }
        for (int bit = 0; bit < 64; bit++) {
            if (wakeupFds[bit] == fd) {
                LOG.warn(
                        "worker {}: the wake-up descriptor {} of plugin 0x{} is not open; it is polled from now on",
                        workerId,
                        fd,
                        Long.toHexString(1L << bit));
                wakeupFds[bit] = FD_NONE;
            }
        }
    }

    /** Stops the watcher, if one was started. */
    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
    }
}
