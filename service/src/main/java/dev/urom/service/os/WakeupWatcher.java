// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Watches plugins' wake-up descriptors for a thread that sleeps in a {@link java.nio.channels.Selector},
 * which cannot hold a raw descriptor: one daemon thread blocks in {@code poll(2)} on the set it was
 * last handed ({@link #watch}) and an eventfd of its own; when one of the set becomes readable (or
 * reports an error or hang-up) it runs the wake action once (the owner's {@code selector::wakeup})
 * and then waits, watching nothing, until {@link #watch} hands it a set again.
 *
 * <p>The watcher only polls: it never reads, writes or closes a watched descriptor, and never calls
 * a plugin, so every plugin call stays on the owner's thread. A wake may come late or spuriously
 * (a set that was watched when the owner had already woken up for another reason), never lost:
 * the wake action runs after the set is taken back.
 *
 * <p>Thread-safety: {@link #watch}, {@link #takeInvalid} and {@link #close} are for the owner's
 * thread; the wake action runs on the watcher's thread. {@link #start} throws {@link IOException}
 * when the eventfd or the thread cannot be made. Linux only.
 */
public final class WakeupWatcher implements AutoCloseable {
    private static final Logger LOG = LogManager.getLogger(WakeupWatcher.class);
    private static final short POLLIN = 0x1;
    private static final short POLLNVAL = 0x20;
    private static final int EINTR = 4;
    private static final int EFD_CLOEXEC = 0x80000;
    private static final int EFD_NONBLOCK = 0x800;
    /** The eventfd counter increment 1, as the 8 little-endian bytes write(2) takes. */
    private static final byte[] ONE = {1, 0, 0, 0, 0, 0, 0, 0};

    private final Runnable wake;
    private final int control;
    private final AtomicReference<int[]> watched = new AtomicReference<>();
    private final Thread thread;
    private volatile int invalid = -1;
    private volatile boolean closed;

    private WakeupWatcher(Runnable wake, int control, String name) {
        this.wake = wake;
        this.control = control;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    /**
     * Starts a watcher whose thread is called {@code name}.
     *
     * @param wake what to run when a watched descriptor is ready; must not block
     * @throws IOException when the eventfd cannot be made
     */
    public static WakeupWatcher start(Runnable wake, String name) throws IOException {
        int control;
        try {
            control = LibC.eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        } catch (LastErrorException e) {
            throw new IOException("eventfd failed: " + LibC.describe(e), e);
        } catch (UnsatisfiedLinkError e) {
            throw new IOException("libc's poll or eventfd cannot be bound: " + e.getMessage(), e);
        }
        WakeupWatcher watcher = new WakeupWatcher(wake, control, name);
        watcher.thread.start();
        return watcher;
    }

    /**
     * Watches the first {@code count} of {@code fds} from now on, in place of any earlier set: the
     * wake action runs once one of them is ready. Handing it the set it is already watching costs
     * nothing (no copy, no signal).
     */
    public void watch(int[] fds, int count) {
        int[] current = watched.get();
        if (current != null && Arrays.equals(current, 0, current.length, fds, 0, count)) {
            return;
        }
        watched.set(Arrays.copyOf(fds, count));
        signal();
    }

    /** A watched descriptor that poll reported invalid (closed) since the last call, or -1. */
    public int takeInvalid() {
        int fd = invalid;
        if (fd >= 0) {
            invalid = -1;
        }
        return fd;
    }

    private void signal() {
        try {
            LibC.write(control, ONE, ONE.length);
        } catch (LastErrorException e) {
            // EAGAIN: the counter is already non-zero, so the watcher will look again anyway
        }
    }

    private void run() {
        int[] pollfds = new int[2];
        byte[] drain = new byte[8];
        while (!closed) {
            int[] set = watched.get();
            int count = 1 + (set == null ? 0 : set.length);
            if (pollfds.length < 2 * count) {
                pollfds = new int[2 * count];
            }
            pollfds[0] = control;
            pollfds[1] = POLLIN;
            for (int i = 1; i < count; i++) {
                pollfds[2 * i] = set[i - 1];
                pollfds[2 * i + 1] = POLLIN;
            }
            try {
                LibC.poll(pollfds, count, -1);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != EINTR) {
                    LOG.error(
                            "polling the wake-up descriptors failed: {}; the worker's data plane is woken instead",
                            LibC.describe(e));
                    watched.compareAndSet(set, null);
                    wake.run();
                }
                continue;
            }
            if (revents(pollfds, 0) != 0) {
                try {
                    LibC.read(control, drain, drain.length);
                } catch (LastErrorException e) {
                    // EAGAIN: drained already
                }
            }
            boolean ready = false;
            for (int i = 1; i < count; i++) {
                short r = revents(pollfds, i);
                if (r != 0) {
                    ready = true;
                    if ((r & POLLNVAL) != 0) {
                        invalid = pollfds[2 * i];
                    }
                }
            }
            if (ready) {
                watched.compareAndSet(set, null);
                wake.run();
            }
        }
    }

    /** The revents half of {@code struct pollfd} number {@code i} (fd, then events and revents as shorts, little-endian). */
    private static short revents(int[] pollfds, int i) {
        return (short) (pollfds[2 * i + 1] >>> 16);
    }

    /** Stops the thread and closes the eventfd; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        signal();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!thread.isAlive()) {
            try {
                LibC.close(control);
            } catch (LastErrorException e) {
                LOG.debug("closing the watcher's eventfd failed: {}", LibC.describe(e));
            }
        }
    }
}
