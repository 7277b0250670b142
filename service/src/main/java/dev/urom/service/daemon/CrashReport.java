// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
     * (still in the worker's directory when the copy failed, with a WARN line).
     *
     * @param worker names the worker in the WARN line
     */
    static Path keep(Path workerDirectory, Path logDir, long pid, String worker) {
        Path written = WorkerCommandLine.crashReport(workerDirectory, pid);
        Path kept = WorkerCommandLine.crashReport(logDir, pid);
        try {
            if (Files.isRegularFile(written, LinkOption.NOFOLLOW_LINKS)) {
                Files.copy(written, kept, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            LOG.warn("cannot keep the crash report of {} (pid {}) in {}: {}", worker, pid, logDir, e.getMessage());
            return written;
        }
        return kept;
    }

    /** Empty when there is no report. */
    static Optional<Findings> read(Path report) {
        if (!Files.isRegularFile(report)) {
            return Optional.empty();
        }
        try (BufferedReader reader = Files.newBufferedReader(report, StandardCharsets.ISO_8859_1)) {
            String cause = null;
            String frame = null;
            String line;
            for (int i = 0; i < HEAD_LINES && (line = reader.readLine()) != null; i++) {
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
