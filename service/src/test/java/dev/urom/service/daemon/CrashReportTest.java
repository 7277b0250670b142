// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CrashReport} against reports a worker's principal could leave in its directory: a link, a
 * huge file, an endless line; and an ordinary one.
 */
class CrashReportTest {
    private static final long PID = 4242;
    private static final String HEAD = "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n"
            + "#  SIGSEGV (0xb) at pc=0x00007f, pid=4242, tid=4243\n#\n# Problematic frame:\n"
            + "# C  [worker_graph.so+0x1234]  graph_cmd+0x10\n";

    @TempDir
    Path dir;

    private Path workerDirectory;
    private Path logDir;

    @BeforeEach
    void directories() throws IOException {
        workerDirectory = Files.createDirectory(dir.resolve("worker"));
        logDir = Files.createDirectory(dir.resolve("log"));
    }

    @Test
    void anOrdinaryReportIsKeptWholeAndNamesItsSignalAndFrame() throws IOException {
        Files.writeString(WorkerCommandLine.crashReport(workerDirectory, PID), HEAD);

        Path kept = CrashReport.keep(workerDirectory, logDir, PID, "worker 1");

        assertThat(kept).isEqualTo(WorkerCommandLine.crashReport(logDir, PID)).hasContent(HEAD);
        CrashReport.Findings findings = CrashReport.read(kept).orElseThrow();
        assertThat(findings.signal()).isEqualTo("SIGSEGV");
        assertThat(findings.summary()).contains("SIGSEGV (0xb)", "in C  [worker_graph.so+0x1234]");
    }

    @Test
    void aReportThatIsALinkIsNeitherCopiedNorRead() throws IOException {
        Path secret = Files.writeString(dir.resolve("secret"), "#  SIGSECRET the daemon's own file\n");
        Files.createSymbolicLink(WorkerCommandLine.crashReport(workerDirectory, PID), secret);

        Path kept = CrashReport.keep(workerDirectory, logDir, PID, "worker 1");

        assertThat(kept).doesNotExist();
        assertThat(CrashReport.read(kept)).isEmpty();
        assertThat(CrashReport.read(WorkerCommandLine.crashReport(workerDirectory, PID)))
                .isEmpty();
    }

    @Test
    void aReportOverTheBoundIsKeptCutWithALineThatSaysSo() throws IOException {
        try (OutputStream out = Files.newOutputStream(WorkerCommandLine.crashReport(workerDirectory, PID))) {
            out.write(HEAD.getBytes(StandardCharsets.US_ASCII));
            byte[] filler = new byte[1 << 20];
            Arrays.fill(filler, (byte) 'x');
            for (int i = 0; i < 6; i++) {
                out.write(filler);
            }
        }

        Path kept = CrashReport.keep(workerDirectory, logDir, PID, "worker 1");

        assertThat(Files.size(kept)).isBetween((long) CrashReport.MAX_KEPT_BYTES, CrashReport.MAX_KEPT_BYTES + 100L);
        assertThat(Files.readString(kept, StandardCharsets.ISO_8859_1))
                .endsWith("\n[urom: the report was cut at " + CrashReport.MAX_KEPT_BYTES + " bytes]\n");
        assertThat(CrashReport.read(kept).orElseThrow().signal()).isEqualTo("SIGSEGV");
    }

    @Test
    void anEndlessLineIsCutBeforeItReachesTheSummary() throws IOException {
        String endless = "#  SIG" + "A".repeat(3 << 20) + "\n";
        Files.writeString(WorkerCommandLine.crashReport(logDir, PID), endless);

        CrashReport.Findings findings =
                CrashReport.read(WorkerCommandLine.crashReport(logDir, PID)).orElseThrow();

        assertThat(findings.summary().length()).isLessThan(CrashReport.MAX_LINE_BYTES + 200);
        assertThat(findings.signal()).startsWith("SIGAAA");
    }
}
