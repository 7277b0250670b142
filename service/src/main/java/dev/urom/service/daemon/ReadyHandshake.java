// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.service.process.PipeLineReader;
import dev.urom.service.process.WorkerLine;
import dev.urom.service.process.WorkerLines;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Waits for a spawned worker's first line on its stdout, READY or FAILED, and tells what it
 * means; thread-safe (each call on the thread of its start). A worker that says nothing within the
 * start timeout, says something else, or exits first is killed and its start refused:
 *
 * <ul>
 *   <li>READY: the outcome holds its address and its stdout, left open for its counts;
 *   <li>FAILED: refused with the worker's status and reason; it is killed if still there after
 *       {@value #EXIT_GRACE_SECONDS} s;
 *   <li>no line: TIME_OUT at the timeout, else INITIALIZATION with how it exited;
 *   <li>another line, or one that is not valid: INITIALIZATION, and it is killed at once.
 * </ul>
 */
final class ReadyHandshake {
    /** How a start ended: a worker that is READY, or a refusal. */
    sealed interface Outcome {
        /** The worker listens on {@code address}; {@code stdout} is positioned after its READY line. */
        record Ready(Process process, InputStream stdout, String address) implements Outcome {}

        record Refused(Refusal refusal) implements Outcome {}
    }

    static final long EXIT_GRACE_SECONDS = 10;

    private final Duration timeout;
    private final ScheduledExecutorService timers;

    ReadyHandshake(Duration timeout, ScheduledExecutorService timers) {
        this.timeout = timeout;
        this.timers = timers;
    }

    /** Waits for the first line of worker {@code name}'s {@code process}. */
    Outcome await(String name, Process process) {
        long timeoutMs = timeout.toMillis();
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> timer;
        try {
            timer = timers.schedule(
                    () -> {
                        timedOut.set(true);
                        process.destroyForcibly();
                    },
                    timeoutMs,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            process.destroyForcibly();
            return refused(UromStatus.SHUTDOWN, "the daemon is shutting down");
        }
        String line;
        InputStream stdout = process.getInputStream();
        try {
            line = readLine(stdout);
        } catch (IOException e) {
            line = null;
        } finally {
            timer.cancel(false);
        }
        WorkerLine said = null;
        String notValid = null;
        try {
            said = line == null ? null : WorkerLines.decode(line);
        } catch (WorkerLines.UnknownLine e) {
            // said nothing of the protocol: refused below
        } catch (IllegalArgumentException e) {
            notValid = e.getMessage();
        }
        if (said instanceof WorkerLine.Ready ready) {
            return new Outcome.Ready(process, stdout, ready.address().toString());
        }
        closeQuietly(stdout);
        if (line == null) {
            if (timedOut.get()) {
                return refused(
                        UromStatus.TIME_OUT, name + " did not report READY within " + timeoutMs + " ms; it was killed");
            }
            return refused(UromStatus.INITIALIZATION, name + " " + exitBeforeReady(process));
        }
        if (said instanceof WorkerLine.Failed failed) {
            killLater(process);
            return refused(
                    failed.status(),
                    name + " failed to start: "
                            + (failed.reason().isEmpty() ? "no reason given" : printable(failed.reason())));
        }
        process.destroyForcibly();
        if (notValid != null) {
            return refused(
                    UromStatus.INITIALIZATION,
                    name + " wrote a line that is not valid (" + printable(notValid) + "); it was killed");
        }
        return refused(
                UromStatus.INITIALIZATION,
                name + " wrote '" + printable(line) + "' instead of READY or FAILED; it was killed");
    }

    private static Outcome refused(UromStatus status, String message) {
        return new Outcome.Refused(new Refusal(status, message));
    }

    private String exitBeforeReady(Process process) {
        try {
            if (process.waitFor(EXIT_GRACE_SECONDS, TimeUnit.SECONDS)) {
                return ExitStatus.describe(process.exitValue()) + " before it reported READY";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
        return "closed its stdout without reporting READY; it was killed";
    }

    private void killLater(Process process) {
        try {
            timers.schedule(process::destroyForcibly, EXIT_GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (RejectedExecutionException e) {
            process.destroyForcibly();
        }
    }

    /** Its first whole line, cut to {@value WorkerLines#MAX_CONTROL_LINE_BYTES} bytes, or null at end of file. */
    private static String readLine(InputStream in) throws IOException {
        byte[] line = new PipeLineReader(in, WorkerLines.MAX_CONTROL_LINE_BYTES).next();
        if (line == null) {
            return null;
        }
        String text = new String(line, StandardCharsets.UTF_8);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }

    private static String printable(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                out.append(String.format("\\x%02x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.length() > 200 ? out.substring(0, 200) + "..." : out.toString();
    }

    private static void closeQuietly(InputStream stdout) {
        try {
            stdout.close();
        } catch (IOException e) {
            // the pipe is gone with the process
        }
    }
}
