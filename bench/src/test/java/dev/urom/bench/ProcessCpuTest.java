// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Reads the real {@code /proc} of this JVM and of a child process, and parses lines that name processes awkwardly. */
@Timeout(60)
class ProcessCpuTest {

    @Test
    void thisJvmsTimeGrowsWithWorkAndCountsEveryThread() throws Exception {
        long pid = ProcessHandle.current().pid();
        ProcessCpu.Snapshot before = ProcessCpu.snapshot(pid);
        long spun = spinOnAnotherThread(50_000_000);
        ProcessCpu.Snapshot after = ProcessCpu.snapshot(pid);

        assertThat(before.nanosByThread()).containsKey(pid).hasSizeGreaterThan(1);
        // The spinning thread started and ended between the snapshots: only the process's ticks hold its time.
        assertThat(ProcessCpu.used(before, after)).isGreaterThanOrEqualTo(spun - 2 * ProcessCpu.nanosPerTick());
        assertThat(after.ticks()).isGreaterThanOrEqualTo(before.ticks());
    }

    @Test
    void aThreadStartedInBetweenAndStillThereCountsToTheNanosecond() throws Exception {
        long pid = ProcessHandle.current().pid();
        java.util.concurrent.CountDownLatch spun = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch measured = new java.util.concurrent.CountDownLatch(1);
        long[] used = new long[1];
        ProcessCpu.Snapshot before = ProcessCpu.snapshot(pid);
        Thread spinner = new Thread(() -> {
            used[0] = spinFor(50_000_000);
            spun.countDown();
            try {
                measured.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        spinner.start();
        try {
            spun.await();
            ProcessCpu.Snapshot after = ProcessCpu.snapshot(pid);

            assertThat(ProcessCpu.used(before, after)).isGreaterThanOrEqualTo(used[0]);
        } finally {
            measured.countDown();
            spinner.join();
        }
    }

    @Test
    void aChildProcessIsReadWhileItRunsAndUsesNoTimeWhileItWaits() throws Exception {
        Process child = new ProcessBuilder(
                        "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo busy; read line")
                .start();
        try {
            String said = new String(child.getInputStream().readNBytes(5), StandardCharsets.US_ASCII);
            assertThat(said).isEqualTo("busy\n");
            ProcessCpu.Snapshot first = ProcessCpu.snapshot(child.pid());
            ProcessCpu.Snapshot second = ProcessCpu.snapshot(child.pid());

            assertThat(first.nanosByThread()).containsOnlyKeys(child.pid());
            assertThat(first.nanosByThread().get(child.pid())).isPositive();
            assertThat(ProcessCpu.used(first, second))
                    .isLessThan(first.nanosByThread().get(child.pid()));
        } finally {
            child.getOutputStream().close();
            child.waitFor(10, TimeUnit.SECONDS);
            child.destroyForcibly();
        }
    }

    @Test
    void aProcessThatIsGoneIsNamed() throws Exception {
        Process child = new ProcessBuilder("true").start();
        child.waitFor();

        assertThatThrownBy(() -> ProcessCpu.snapshot(child.pid()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(
                        "cannot read the CPU time of process " + child.pid() + " in /proc/" + child.pid());
    }

    @Test
    void statIsReadAfterTheLastParenthesisOfTheName() throws Exception {
        String line =
                "4242 (a (weird) name) ) S 1 4242 4242 0 -1 4194560 120 0 0 0 37 5 0 0 20 0 1 0 1000 1000 100 1844674\n";

        assertThat(ProcessCpu.statTicks(line)).isEqualTo(42);
        assertThat(ProcessCpu.statTicks(Files.readString(Path.of("/proc/self/stat"))))
                .isNotNegative();
        assertThatThrownBy(() -> ProcessCpu.statTicks("4242 (short) S 1 2"))
                .hasMessage("stat line '4242 (short) S 1 2' has no utime and stime");
        assertThatThrownBy(() -> ProcessCpu.statTicks("4242 (x) S 1 4242 4242 0 -1 4194560 120 0 0 0 many 5 0"))
                .hasMessageContaining("has no numbers for utime and stime");
    }

    @Test
    void schedstatStartsWithNanosecondsOnACpu() {
        assertThat(ProcessCpu.schedstatNanos("730057 12079410 2\n")).isEqualTo(730_057);
        assertThatThrownBy(() -> ProcessCpu.schedstatNanos("none 1 2"))
                .hasMessage("schedstat line 'none 1 2' does not start with a number");
    }

    @Test
    void aThreadThatEndedOrCameAndWentInBetweenFallsBackToTheTicksOfTheProcess() {
        ProcessCpu.Snapshot before = new ProcessCpu.Snapshot(7, Map.of(7L, 1_000L, 8L, 5_000L), 10);
        ProcessCpu.Snapshot threadEnded = new ProcessCpu.Snapshot(7, Map.of(7L, 4_000L), 13);
        ProcessCpu.Snapshot threadStarted = new ProcessCpu.Snapshot(7, Map.of(7L, 4_000L, 8L, 6_000L, 9L, 2_500L), 11);
        // Ticks far ahead of every thread's nanoseconds: a thread started and ended in between.
        ProcessCpu.Snapshot threadCameAndWent = new ProcessCpu.Snapshot(7, Map.of(7L, 4_000L, 8L, 6_000L), 15);

        assertThat(ProcessCpu.used(before, threadStarted)).isEqualTo(3_000 + 1_000 + 2_500);
        assertThat(ProcessCpu.used(before, threadEnded)).isEqualTo(3 * ProcessCpu.nanosPerTick());
        assertThat(ProcessCpu.used(before, threadCameAndWent)).isEqualTo(5 * ProcessCpu.nanosPerTick());
        assertThat(ProcessCpu.nanosPerTick()).isEqualTo(1_000_000_000L / clockTicksPerSecond());
        assertThatThrownBy(() -> ProcessCpu.used(before, new ProcessCpu.Snapshot(8, Map.of(), 0)))
                .hasMessage("snapshots of processes 7 and 8");
    }

    private static long clockTicksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").start();
            return Long.parseLong(
                    new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Runs a busy loop on a new thread until that thread has used {@code nanos} of CPU; answers what it used. */
    private static long spinOnAnotherThread(long nanos) throws InterruptedException {
        long[] used = new long[1];
        Thread spinner = new Thread(() -> used[0] = spinFor(nanos));
        spinner.start();
        spinner.join();
        return used[0];
    }

    /** Spins until this thread has used {@code nanos} of CPU; returns what it used. */
    private static long spinFor(long nanos) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        while (threads.getCurrentThreadCpuTime() - start < nanos) {
            Thread.onSpinWait();
        }
        return threads.getCurrentThreadCpuTime() - start;
    }

    @Test
    void aProcessLifetimeCpuIsItsTicksAndAGoneOneIsOneLine() throws Exception {
        assertThat(ProcessCpu.lifetimeNanos(ProcessHandle.current().pid()))
                .as("this JVM has run")
                .isPositive();
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();

        assertThatThrownBy(() -> ProcessCpu.lifetimeNanos(gone.pid()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cannot read the CPU time of process " + gone.pid());
    }
}
