// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU time a process has used, all its threads together, read from Linux's {@code /proc}: the
 * sum of the first field of {@code /proc/PID/task/TID/schedstat} (nanoseconds on a CPU, user and
 * system) over its threads, and {@code utime + stime} of {@code /proc/PID/stat} (clock ticks, which
 * also hold the threads that already ended).
 *
 * <p>{@link #used} between two {@link Snapshot}s is the nanosecond sum over the threads when every
 * thread of the first snapshot is still there in the second (a thread started in between counts
 * whole) and the ticks agree with it, and otherwise the difference of {@code utime + stime} at tick
 * resolution ({@link #nanosPerTick()}): the CPU time of a thread that ended in between, or that
 * started and ended in between, is kept only there.
 *
 * <p>Stateless and thread-safe. {@link #snapshot} throws {@link IllegalStateException} with one line
 * naming the process when it is gone or its {@code /proc} files cannot be read.
 */
final class ProcessCpu {
    private static final Path PROC = Path.of("/proc");
    private static final long DEFAULT_TICKS_PER_SECOND = 100;
    /** {@code utime} and {@code stime} are the 14th and 15th fields of the stat line; these are their indexes after the name. */
    private static final int UTIME_AFTER_NAME = 11;

    private static final int STIME_AFTER_NAME = 12;
    /** How far the ticks' sum may lag or lead the threads' nanoseconds by rounding alone. */
    private static final int TICKS_OF_ROUNDING = 2;

    private static volatile long nanosPerTick;

    private ProcessCpu() {}

    /**
     * The CPU time of one process at one moment.
     *
     * @param nanosByThread each thread's time on a CPU, by thread id
     * @param ticks {@code utime + stime} of the process, every thread that ever ran in it
     */
    record Snapshot(long pid, Map<Long, Long> nanosByThread, long ticks) {
        Snapshot {
            nanosByThread = Map.copyOf(nanosByThread);
        }
    }

    /** The CPU time of process {@code pid} now. */
    static Snapshot snapshot(long pid) {
        Path process = PROC.resolve(Long.toString(pid));
        try {
            Map<Long, Long> threads = new HashMap<>();
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(process.resolve("task"))) {
                for (Path task : tasks) {
                    try {
                        threads.put(
                                Long.parseLong(task.getFileName().toString()),
                                schedstatNanos(Files.readString(task.resolve("schedstat"), StandardCharsets.US_ASCII)));
                    } catch (NoSuchFileException ended) {
                        // the thread ended after the listing: its time is in the process's ticks
                    }
                }
            }
            return new Snapshot(
                    pid, threads, statTicks(Files.readString(process.resolve("stat"), StandardCharsets.US_ASCII)));
        } catch (IOException | UncheckedIOException e) {
            throw new IllegalStateException(
                    "cannot read the CPU time of process " + pid + " in " + process + ": " + e.getMessage());
        }
    }

    /** The CPU time in nanoseconds the process used from {@code before} to {@code after}, as the class comment says. */
    static long used(Snapshot before, Snapshot after) {
        if (before.pid() != after.pid()) {
            throw new IllegalArgumentException("snapshots of processes " + before.pid() + " and " + after.pid());
        }
        long byTicks = (after.ticks() - before.ticks()) * nanosPerTick();
        if (!after.nanosByThread().keySet().containsAll(before.nanosByThread().keySet())) {
            return byTicks;
        }
        long byThreads = 0;
        for (Map.Entry<Long, Long> thread : after.nanosByThread().entrySet()) {
            byThreads += thread.getValue() - before.nanosByThread().getOrDefault(thread.getKey(), 0L);
        }
        // A thread that started and ended in between is in neither list of threads, only in the ticks.
        return byTicks > byThreads + TICKS_OF_ROUNDING * nanosPerTick() ? byTicks : byThreads;
    }

    /** The first field of a {@code schedstat} line: nanoseconds spent on a CPU. */
    static long schedstatNanos(String line) {
        String[] fields = line.trim().split(" ");
        try {
            return Long.parseLong(fields[0]);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("schedstat line '" + line.trim() + "' does not start with a number");
        }
    }

    /**
     * {@code utime + stime} of a {@code stat} line {@code "PID (NAME) STATE ..."}, where NAME may hold
     * blanks and parentheses: the fields are counted from the last {@code ')'}.
     */
    static long statTicks(String line) {
        String[] fields = ProcFacts.statFieldsAfterName(line);
        if (fields.length <= STIME_AFTER_NAME) {
            throw new IllegalStateException("stat line '" + line.trim() + "' has no utime and stime");
        }
        try {
            return Long.parseLong(fields[UTIME_AFTER_NAME]) + Long.parseLong(fields[STIME_AFTER_NAME]);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("stat line '" + line.trim() + "' has no numbers for utime and stime");
        }
    }

    /**
     * The CPU time process {@code pid} has used since it started, every thread that ever ran in it,
     * from {@code utime + stime} (clock-tick resolution).
     *
     * @throws IllegalStateException when its {@code stat} cannot be read
     */
    static long lifetimeNanos(long pid) {
        Path stat = PROC.resolve(Long.toString(pid)).resolve("stat");
        try {
            return statTicks(Files.readString(stat, StandardCharsets.US_ASCII)) * nanosPerTick();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot read the CPU time of process " + pid + " in " + stat + ": " + e.getMessage());
        }
    }

    /** Nanoseconds per clock tick of {@code /proc/PID/stat}: {@code getconf CLK_TCK}, read once (100 when it cannot be run). */
    static long nanosPerTick() {
        long known = nanosPerTick;
        if (known == 0) {
            known = 1_000_000_000L / ticksPerSecond();
            nanosPerTick = known;
        }
        return known;
    }

    private static long ticksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK")
                    .redirectErrorStream(true)
                    .start();
            getconf.getOutputStream().close();
            String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (getconf.waitFor() == 0 && out.matches("[1-9][0-9]*")) {
                return Long.parseLong(out);
            }
        } catch (IOException e) {
            // no getconf: the kernel's USER_HZ is 100 on every architecture Linux runs Java on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return DEFAULT_TICKS_PER_SECOND;
    }
}
