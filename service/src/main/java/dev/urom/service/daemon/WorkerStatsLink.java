// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.service.metrics.WorkerStatsBook;
import dev.urom.service.process.PipeLineReader;
import dev.urom.service.process.WorkerLine;
import dev.urom.service.process.WorkerLines;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The daemon's side of a running worker's counts, over the pipes it already holds: requests go to
 * the worker's stdin as STATS requests ({@link WorkerLine}), answers come back on its stdout (after its READY line)
 * and land in the {@link WorkerStatsBook}. At end of file (the worker has ended) the worker's
 * latest counts, normally its final ones, are retired in the book.
 *
 * <p>It also tells whether the worker still takes hosts ({@link #liveness}): a worker writes
 * ENDING on the same stdout when it decides to end, before any host can learn
 * that its STOP was taken, and this link reads the lines in the order they were written. So when the
 * answer to a request arrives with no ENDING (and no end of file) before it, the worker had not
 * decided to end when it answered.
 *
 * <p>Thread-safe. One daemon thread per link reads the worker's stdout until it ends, a line at a
 * time and each line bounded ({@link WorkerLines#MAX_LINE_LENGTH} bytes); a line that cannot be
 * read is logged at WARN and skipped.
 */
final class WorkerStatsLink {
    private static final Logger LOG = LogManager.getLogger(WorkerStatsLink.class);

    private final String name;
    private final long key;
    private final OutputStream stdin;
    private final WorkerStatsBook book;
    private final AtomicLong requests = new AtomicLong();
    private final Map<Long, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();
    /** Completes when the worker has said ENDING, or its stdout has ended: before any answer read after that. */
    private final CompletableFuture<Void> ending = new CompletableFuture<>();

    private volatile boolean ended;

    /** Whether a worker takes hosts, as {@link #liveness} found. */
    enum Liveness {
        /** It answered a request without having said ENDING before. */
        SERVING,
        /** It has said ENDING, or it has ended. */
        ENDING,
        /** It has neither answered nor said ENDING in time. */
        SILENT
    }

    private WorkerStatsLink(String name, long key, OutputStream stdin, WorkerStatsBook book) {
        this.name = name;
        this.key = key;
        this.stdin = stdin;
        this.book = book;
    }

    /**
     * Starts reading {@code stdout} (positioned after the worker's READY line) for worker {@code key}.
     *
     * @param name names the worker in log lines
     */
    static WorkerStatsLink start(String name, long key, InputStream stdout, OutputStream stdin, WorkerStatsBook book) {
        WorkerStatsLink link = new WorkerStatsLink(name, key, stdin, book);
        DaemonThreads.daemon(() -> link.read(stdout), "urom-worker-stats-" + key)
                .start();
        return link;
    }

    /** Asks the worker for its counts; completes when they are in the book, exceptionally when the worker cannot answer. */
    CompletableFuture<Void> request() {
        CompletableFuture<Void> answered = new CompletableFuture<>();
        if (ended) {
            answered.completeExceptionally(new IOException(name + " has ended"));
            return answered;
        }
        long n = requests.incrementAndGet();
        pending.put(n, answered);
        byte[] line = (WorkerLines.encode(new WorkerLine.StatsRequest(n)) + "\n").getBytes(StandardCharsets.US_ASCII);
        try {
            synchronized (stdin) {
                stdin.write(line);
                stdin.flush();
            }
        } catch (IOException e) {
            pending.remove(n);
            answered.completeExceptionally(e);
        }
        if (ended && pending.remove(n) != null) {
            answered.completeExceptionally(new IOException(name + " has ended"));
        }
        return answered;
    }

    /**
     * Asks the worker for its counts and waits, at most {@code timeout}, for its answer or its
     * ENDING, whichever it wrote first; blocks the caller.
     */
    Liveness liveness(Duration timeout) {
        CompletableFuture<Void> answered = request();
        try {
            CompletableFuture.anyOf(answered, ending).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            return Liveness.ENDING;
        } catch (TimeoutException e) {
            return Liveness.SILENT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Liveness.SILENT;
        }
        // the reader completes ending before it reads any later answer: an answer seen without it came first
        return ending.isDone() || answered.isCompletedExceptionally() ? Liveness.ENDING : Liveness.SERVING;
    }

    private void read(InputStream stdout) {
        try (stdout) {
            PipeLineReader lines = new PipeLineReader(stdout, WorkerLines.MAX_LINE_LENGTH);
            byte[] line;
            while ((line = lines.next()) != null) {
                accept(new String(line, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            LOG.debug("{}: reading its counts ended: {}", name, e.getMessage());
        } finally {
            ended = true;
            ending.complete(null);
            book.retire(key);
            pending.values().forEach(f -> f.completeExceptionally(new IOException(name + " has ended")));
            pending.clear();
        }
    }

    private void accept(String line) {
        WorkerLine said;
        try {
            said = WorkerLines.decode(line);
        } catch (IllegalArgumentException e) {
            LOG.warn("{}: a line on its stdout was skipped: {}", name, e.getMessage());
            return;
        }
        if (said instanceof WorkerLine.Ending) {
            LOG.debug("{}: ending", name);
            ending.complete(null);
        } else if (said instanceof WorkerLine.Stats stats) {
            book.update(key, stats.snapshot());
            CompletableFuture<Void> answered = stats.isFinal() ? null : pending.remove(stats.request());
            if (answered != null) {
                answered.complete(null);
            }
        } else {
            LOG.warn(
                    "{}: a line on its stdout was skipped: {} after READY",
                    name,
                    said.getClass().getSimpleName());
        }
    }
}
