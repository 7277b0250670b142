package dev.urom.service.daemon;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads the one line that matters out of a worker JVM's fatal error report: the signal and where
 * it struck (for a native plugin that crashed: "SIGSEGV (0xb) at pc=..."). Stateless.
 */
final class CrashReport {
    private static final int HEAD_LINES = 40;

    private CrashReport() {}

    /** "" when there is no report; otherwise "; fatal error: SIGSEGV (0xb) ... (report PATH)". */
    static String summary(Path report) {
        if (!Files.isRegularFile(report)) {
            return "";
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
            return "; fatal error: " + (cause == null ? "see the report" : cause)
                    + (frame == null ? "" : " in " + frame) + " (report " + report + ")";
        } catch (IOException e) {
            return "; fatal error report " + report + " (unreadable: " + e.getMessage() + ")";
        }
    }
}
