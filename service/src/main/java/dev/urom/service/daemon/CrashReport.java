// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads the one line that matters out of a worker JVM's fatal error report: the signal and where
 * it struck (for a native plugin that crashed: "SIGSEGV (0xb) at pc=..."). Stateless.
 */
final class CrashReport {
    private static final int HEAD_LINES = 40;
    private static final String UNKNOWN_SIGNAL = "unknown";

    private CrashReport() {}

    /**
     * What a report says: its summary for the log ("; fatal error: SIGSEGV (0xb) ... (report
     * PATH)") and the signal it names ("SIGSEGV"; "unknown" when it names none).
     */
    record Findings(String summary, String signal) {}

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
            return Optional.of(new Findings("; fatal error report " + report + " (unreadable: " + e.getMessage() + ")", UNKNOWN_SIGNAL));
        }
    }

}
