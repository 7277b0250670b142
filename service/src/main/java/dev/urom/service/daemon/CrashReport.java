// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.service.process.PipeLineReader;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * A worker JVM's fatal error report; stateless. It keeps the report in the log directory ({@link
 * #keep}) and reads the one line that matters out of it ({@link #read}): the signal and where it
 * struck (for a native plugin that crashed: "SIGSEGV (0xb) at pc=...").
 */
final class CrashReport {
    /** Under the supervisor's name, as the daemon's log has always shown these lines. */
    private static final Logger LOG = LogManager.getLogger(WorkerSupervisor.class);

    private static final int HEAD_LINES = 40;
    /** More than HotSpot writes for a worker (tens to hundreds of KiB); a bound on what a principal can make the daemon copy. */
    static final int MAX_KEPT_BYTES = 4 << 20;
    /** The report's lines that matter are short; this bounds what one line can make the daemon hold and log. */
    static final int MAX_LINE_BYTES = 1024;

    private static final String UNKNOWN_SIGNAL = "unknown";

    private CrashReport() {}

    /**
     * What a report says: its summary for the log ("; fatal error: SIGSEGV (0xb) ... (report
     * PATH)") and the signal it names ("SIGSEGV"; "unknown" when it names none).
     */
    record Findings(String summary, String signal) {}

    /**
     * Copies the report that worker process {@code pid} wrote, if it wrote one, from its directory
     * into the log directory (as {@code urom_worker_<pid>_crash.log}), and says where it is now
     * (still in the worker's directory when the copy failed, with a WARN line). The worker's
     * directory is its principal's: the report is opened without following a link, and at most
     * {@value #MAX_KEPT_BYTES} bytes of it are kept, the copy then ending in a line that says so.
     *
     * @param worker names the worker in the WARN line
     */
    static Path keep(Path workerDirectory, Path logDir, long pid, String worker) {
        Path written = WorkerCommandLine.crashReport(workerDirectory, pid);
        Path kept = WorkerCommandLine.crashReport(logDir, pid);
        if (!Files.isRegularFile(written, LinkOption.NOFOLLOW_LINKS)) {
            return kept;
        }
        try (InputStream in = Files.newInputStream(written, LinkOption.NOFOLLOW_LINKS);
                OutputStream out = Files.newOutputStream(kept)) {
            out.write(in.readNBytes(MAX_KEPT_BYTES));
            if (in.read() >= 0) {
                out.write(("\n[urom: the report was cut at " + MAX_KEPT_BYTES + " bytes]\n")
                        .getBytes(StandardCharsets.US_ASCII));
            }
        } catch (IOException e) {
            LOG.warn("cannot keep the crash report of {} (pid {}) in {}: {}", worker, pid, logDir, e.getMessage());
            return written;
        }
        return kept;
    }

    /**
     * Empty when there is no report. Reads its first {@value #HEAD_LINES} lines, each cut to
     * {@value #MAX_LINE_BYTES} bytes, without following a link.
     */
    static Optional<Findings> read(Path report) {
        if (!Files.isRegularFile(report, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try (InputStream in = new BufferedInputStream(Files.newInputStream(report, LinkOption.NOFOLLOW_LINKS))) {
            PipeLineReader lines = new PipeLineReader(in, MAX_LINE_BYTES);
            String cause = null;
            String frame = null;
            byte[] bytes;
            for (int i = 0; i < HEAD_LINES && (bytes = lines.next()) != null; i++) {
                String line = new String(bytes, StandardCharsets.ISO_8859_1);
                String text = line.startsWith("#") ? line.substring(1).strip() : "";
                if (cause == null && text.startsWith("SIG")) {
                    cause = text;
                } else if (frame == null && text.startsWith("C  [")) {
                    frame = text;
                }
            }
            String summary = "; fatal error: " + (cause == null ? "see the report" : cause)
                    + (frame == null ? "" : " in " + frame) + " (report " + report + ")";
            return Optional.of(new Findings(summary, cause == null ? UNKNOWN_SIGNAL : cause.split("[\\s(]", 2)[0]));
        } catch (IOException e) {
            return Optional.of(new Findings(
                    "; fatal error report " + report + " (unreadable: " + e.getMessage() + ")", UNKNOWN_SIGNAL));
        }
    }
}
