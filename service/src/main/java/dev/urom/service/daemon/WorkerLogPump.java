// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static java.util.Objects.requireNonNull;

import dev.urom.service.logging.LogRolling;
import dev.urom.service.logging.ServiceLogging;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.CompletableFuture;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Copies one worker's stderr, line by line, into {@code <logDir>/urom_worker_<pid>_dev.log}, so
 * that workers need no access to the log directory. One daemon thread, {@code
 * urom-worker-log-<pid>}, reads the stream and appends each line to the file as soon as the line
 * is whole (and the last, unfinished one at end of stream); it does nothing else, so the worker's
 * writes to its stderr wait only on the daemon's file writes.
 *
 * <p>A line of more than {@value #MAX_LINE_BYTES} bytes keeps its first {@value #MAX_LINE_BYTES}
 * (less the bytes of a UTF-8 character cut in two) and ends with {@code … (N more bytes)}. Bytes
 * that are not UTF-8 become U+FFFD, so the file is always UTF-8. The file rolls as the {@link
 * LogRolling} says ({@code NAME.1} the newest rolled file), like the daemon's own log.
 *
 * <p>The file is written by {@link RollingLogFile}, not by a Log4j2 RollingFileAppender: the pump
 * has whole lines as bytes and needs a failed write as an exception it can act on, whereas an
 * appender takes log events, shares one manager per file name across the process and reports its
 * failures to the status logger only. When the file cannot be opened or written, the pump says so
 * once (WARN, in the daemon's log) and goes on reading, dropping lines until a write succeeds
 * again, so the worker is never left blocked on a full pipe.
 *
 * <p>The daemon adds the last line itself: {@link #appendExit} writes how the worker ended (its
 * exit status, or the signal that killed it) after the worker's own lines, in the file's layout.
 *
 * <p>Thread-safe. The pump owns the stream from {@link #start} on and closes it at its end.
 */
public final class WorkerLogPump {
    /** The most bytes of one line that reach the file. */
    public static final int MAX_LINE_BYTES = 8192;

    private static final Logger LOG = LogManager.getLogger(WorkerLogPump.class);
    /** Room for the longest UTF-8 sequence that can start at the last kept byte. */
    private static final int LINE_BUFFER_BYTES = MAX_LINE_BYTES + 3;

    private static final int READ_BUFFER_BYTES = 64 * 1024;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    private final long pid;
    private final InputStream stderr;
    private final Path file;
    private final LogRolling rolling;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final byte[] line = new byte[LINE_BUFFER_BYTES];
    private int lineLength;
    private long bytesBeyondBuffer;
    private RollingLogFile log;
    private boolean failing;
    private boolean ended;

    private WorkerLogPump(long pid, InputStream stderr, Path file, LogRolling rolling) {
        this.pid = pid;
        this.stderr = stderr;
        this.file = file;
        this.rolling = rolling;
    }

    /**
     * Starts copying the stderr of worker {@code pid} to {@code <logDir>/urom_worker_<pid>_dev.log}.
     *
     * @param stderr the worker's stderr (for a {@link Process}, its {@code getErrorStream()})
     */
    public static WorkerLogPump start(long pid, InputStream stderr, Path logDir, LogRolling rolling) {
        requireNonNull(stderr, "stderr is null");
        requireNonNull(logDir, "logDir is null");
        requireNonNull(rolling, "rolling is null");
        WorkerLogPump pump = new WorkerLogPump(pid, stderr, logDir.resolve(ServiceLogging.workerLogFile(pid)), rolling);
        DaemonThreads.daemon(pump::run, "urom-worker-log-" + pid).start();
        return pump;
    }

    /** The worker's log file. */
    public Path file() {
        return file;
    }

    /**
     * Completes (always normally) once the stream has ended and its last line is in the file and
     * the file is closed; from then on nothing more is written.
     */
    public CompletableFuture<Void> done() {
        return done.copy();
    }

    /**
     * Appends the daemon's line on how the worker ended ({@code how}: "was killed by signal 6
     * (SIGABRT)"), in the layout of the worker's own lines, after everything the worker wrote once
     * its stream has ended (a process the worker left behind may still hold the stream: then at
     * once). A write that fails is reported like any other.
     */
    public synchronized void appendExit(String how) {
        String level = how.startsWith("exited with status 0") ? "INFO " : "WARN ";
        append(LocalDateTime.now().format(TIME) + " " + level + " ["
                + Thread.currentThread().getName() + "] " + WorkerSupervisor.class.getName() + " - worker process "
                + pid + " " + how + "\n");
        if (ended) {
            closeLog();
        }
    }

    private void run() {
        try (InputStream in = stderr) {
            open();
            byte[] buffer = new byte[READ_BUFFER_BYTES];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                take(buffer, n);
            }
        } catch (IOException e) {
            LOG.warn("reading the stderr of worker pid {} failed: {}; its log {} ends here", pid, e.getMessage(), file);
        } catch (RuntimeException e) {
            LOG.error("copying the stderr of worker pid {} to {} failed", pid, file, e);
        } finally {
            synchronized (this) {
                if (lineLength > 0 || bytesBeyondBuffer > 0) {
                    writeLine();
                }
                closeLog();
                ended = true;
            }
            done.complete(null);
        }
    }

    private synchronized void take(byte[] buffer, int length) {
        int start = 0;
        for (int i = 0; i < length; i++) {
            if (buffer[i] == '\n') {
                keep(buffer, start, i);
                writeLine();
                start = i + 1;
            }
        }
        keep(buffer, start, length);
    }

    /** Adds bytes {@code from} to {@code to} of the line, as many as the line buffer takes. */
    private void keep(byte[] buffer, int from, int to) {
        int fits = Math.min(to - from, LINE_BUFFER_BYTES - lineLength);
        System.arraycopy(buffer, from, line, lineLength, fits);
        lineLength += fits;
        bytesBeyondBuffer += to - from - fits;
    }

    private void writeLine() {
        int kept = lineLength;
        long cut = bytesBeyondBuffer;
        if (lineLength > MAX_LINE_BYTES || cut > 0) {
            kept = MAX_LINE_BYTES;
            while (kept > 0 && kept < lineLength && (line[kept] & 0xC0) == 0x80) {
                kept--;
            }
            cut += lineLength - kept;
        }
        String text = new String(line, 0, kept, StandardCharsets.UTF_8);
        lineLength = 0;
        bytesBeyondBuffer = 0;
        append(cut > 0 ? text + cutMarker(cut) + "\n" : text + "\n");
    }

    /** What ends a line that was cut. */
    static String cutMarker(long bytesCut) {
        return " … (" + bytesCut + " more bytes)";
    }

    private synchronized void open() {
        try {
            log = RollingLogFile.open(file, rolling);
        } catch (IOException e) {
            writeFailed(e);
        }
    }

    private void append(String text) {
        try {
            if (log == null) {
                log = RollingLogFile.open(file, rolling);
            }
            log.append(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
            if (failing) {
                failing = false;
                LOG.info("the log {} of worker pid {} is written again", file, pid);
            }
        } catch (IOException e) {
            writeFailed(e);
        }
    }

    private void writeFailed(IOException e) {
        if (!failing) {
            failing = true;
            LOG.warn(
                    "the log {} of worker pid {} cannot be written ({}); its lines are dropped until it can",
                    file,
                    pid,
                    reason(e));
        }
    }

    private void closeLog() {
        if (log == null) {
            return;
        }
        try {
            log.close();
        } catch (IOException e) {
            LOG.warn("closing the log {} of worker pid {} failed: {}", file, pid, reason(e));
        }
        log = null;
    }

    private static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        return e.getMessage() == null
                ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
