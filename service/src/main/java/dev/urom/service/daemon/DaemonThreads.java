// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/** The daemon's threads: daemon threads (none keeps the JVM alive), each named for its job. Stateless. */
final class DaemonThreads {
    private DaemonThreads() {}

    /** A daemon thread named {@code name}, not started. */
    static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Daemon threads that all carry {@code name} (for a single-thread executor). */
    static ThreadFactory named(String name) {
        return task -> daemon(task, name);
    }

    /** Daemon threads named {@code prefix1}, {@code prefix2}, ... */
    static ThreadFactory numbered(String prefix) {
        AtomicLong n = new AtomicLong();
        return task -> daemon(task, prefix + n.incrementAndGet());
    }
}
