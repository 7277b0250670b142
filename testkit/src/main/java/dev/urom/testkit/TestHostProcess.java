// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import dev.urom.framework.worker.HostProcesses;
import dev.urom.nativebridge.HostProcessTable;
import dev.urom.spi.HostProcess;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;

/**
 * The host process of one test worker, for every dest id: this process, another one, or none
 * ({@link PluginTestKit.Builder#hostProcess}). It holds a pidfd of that process from {@link
 * #open} to {@link #close}, and answers each look-up with a duplicate, which the plugin owns.
 *
 * <p>A native plugin asks the bridge's process-wide table instead ({@code urom_worker_host_process}),
 * whose fallback entry the kit sets while a worker with a native plugin is open: native plugins of
 * workers open at the same time must therefore name the same host, or the second open fails.
 *
 * <p>Thread-safe: a plugin may ask from a thread of its own.
 */
final class TestHostProcess implements HostProcesses, AutoCloseable {
    /** The host is the test's own process. */
    static final long SELF = 0;
    /** No host process: look-ups answer NOT_SUPPORTED. */
    static final long NONE = -1;

    private static final Object FALLBACK_LOCK = new Object();
    /** The workers with a native plugin now open, and the host they name (a pid, or 0 for none). */
    private static int fallbackUsers;

    private static int fallbackPid;

    private final int pid;
    private final boolean nativePlugin;
    private int pidfd;
    private boolean closed;

    private TestHostProcess(int pid, int pidfd, boolean nativePlugin) {
        this.pid = pid;
        this.pidfd = pidfd;
        this.nativePlugin = nativePlugin;
    }

    /**
     * The host {@code choice} names ({@link #SELF}, {@link #NONE} or a pid) for a worker whose plugin
     * is native or not.
     *
     * @throws AssertionError when the process cannot be had, or a native plugin's host differs from
     *     that of another worker with a native plugin open at the time
     */
    static TestHostProcess open(long choice, boolean nativePlugin) {
        int pid = choice == NONE
                ? 0
                : choice == SELF ? (int) ProcessHandle.current().pid() : (int) choice;
        int pidfd = pid == 0 ? -1 : pidfdOf(pid);
        if (nativePlugin) {
            try {
                acquireFallback(pid);
            } catch (AssertionError | RuntimeException e) {
                if (pidfd >= 0) {
                    HostProcessTable.close(pidfd);
                }
                throw e;
            }
        }
        return new TestHostProcess(pid, pidfd, nativePlugin);
    }

    private static int pidfdOf(int pid) {
        try {
            return HostProcessTable.openPidfd(pid);
        } catch (UromException e) {
            throw new AssertionError(
                    "the test kit cannot take process " + pid + " as the plugin's host: " + e.getMessage(), e);
        }
    }

    private static void acquireFallback(int pid) {
        synchronized (FALLBACK_LOCK) {
            if (fallbackUsers > 0 && fallbackPid != pid) {
                throw new AssertionError(
                        "native plugins in one process share their host process: a worker open now names "
                                + describe(fallbackPid) + ", this one " + describe(pid) + "; close that worker first");
            }
            if (fallbackUsers == 0) {
                HostProcessTable.fallback(pid, pid == 0 ? -1 : pidfdOf(pid));
                fallbackPid = pid;
            }
            fallbackUsers++;
        }
    }

    private static void releaseFallback() {
        synchronized (FALLBACK_LOCK) {
            if (--fallbackUsers == 0) {
                HostProcessTable.clearFallback();
            }
        }
    }

    private static String describe(int pid) {
        return pid == 0 ? "no host process" : "host process " + pid;
    }

    @Override
    public synchronized HostProcess hostProcess(long destId) throws UromException {
        if (pid == 0) {
            throw new UromException(
                    UromStatus.NOT_SUPPORTED, "the test kit's worker has no host process (noHostProcess())");
        }
        if (closed) {
            throw new UromException(UromStatus.NOT_FOUND, "the test kit's worker is closed");
        }
        return new HostProcess(pid, HostProcessTable.duplicate(pidfd));
    }

    /** Closes the pidfd and, for a native plugin, gives up the bridge's fallback. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (pidfd >= 0) {
            HostProcessTable.close(pidfd);
            pidfd = -1;
        }
        if (nativePlugin) {
            releaseFallback();
        }
    }
}
