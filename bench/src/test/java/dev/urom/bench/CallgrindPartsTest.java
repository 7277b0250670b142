// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CallgrindParts}: its reading of callgrind's per-thread output files, and the window of
 * {@code libcallgrind_window.so} counted for real, a small C program under valgrind (needs {@code cc}
 * and valgrind).
 */
@Timeout(120)
class CallgrindPartsTest {
    /** The most instructions by which blocking or not on a lock moves a thread's count. */
    private static final long WAITING = 2_000;

    @TempDir
    Path temp;

    @Test
    void headerGivesThreadTriggerAndTotals() {
        List<String> lines = List.of(
                "# callgrind format",
                "version: 1",
                "creator: callgrind-3.19.0",
                "pid: 13723",
                "cmd:  java -cp x",
                "part: 1",
                "thread: 2",
                "desc: I1 cache: ",
                "desc: Timerange: Basic block 0 - 189117074",
                "desc: Trigger: Client Request: urom_callgrind_window",
                "events: Ir",
                "summary: 18446744073709486263",
                "fn=(0) urom_callgrind_window_open",
                "16 3",
                "totals: 1054247807");

        assertThat(CallgrindParts.part(lines, "cg.out-02"))
                .isEqualTo(new CallgrindParts.Part(2, "Client Request: urom_callgrind_window", 1_054_247_807L));
        assertThatThrownBy(() -> CallgrindParts.part(List.of("thread: 1", "totals: 5"), "cg.out-01"))
                .hasMessage(
                        "cg.out-01 lacks a 'desc: Trigger:' line: not a finished callgrind output of a run with --separate-threads=yes");
        assertThatThrownBy(() -> CallgrindParts.part(
                        List.of("thread: one", "desc: Trigger: Program termination", "totals: 5"), "cg.out-01"))
                .hasMessage("cg.out-01: 'thread: one' does not start with a count");
    }

    @Test
    void theWindowIsTheClientRequestDumpAndTheOthersTheirCountsAtTheEnd() {
        List<CallgrindParts.Part> parts = List.of(
                new CallgrindParts.Part(1, CallgrindParts.END_TRIGGER, 0),
                new CallgrindParts.Part(2, CallgrindParts.END_TRIGGER, 11),
                new CallgrindParts.Part(9, CallgrindParts.END_TRIGGER, 26_553_920),
                new CallgrindParts.Part(13, CallgrindParts.END_TRIGGER, 37_799),
                new CallgrindParts.Part(2, CallgrindParts.WINDOW_TRIGGER, 80_594_731));

        CallgrindParts window = CallgrindParts.of(parts, "run");

        assertThat(window.windowThread()).isEqualTo(2);
        assertThat(window.windowInstructions()).isEqualTo(80_594_731L);
        assertThat(window.otherThreads()).isEqualTo(Map.of(9, 26_553_920L, 13, 37_799L));
        assertThat(window.otherInstructions()).isEqualTo(26_591_719L);
        assertThatThrownBy(() -> CallgrindParts.of(parts.subList(0, 4), "run"))
                .hasMessage(
                        "run: 0 callgrind dumps at 'Client Request: urom_callgrind_window', not one: the window was not opened"
                                + " and closed once (or not under --separate-threads=yes)");
    }

    @Test
    void aRealWindowCountsItsThreadInItAloneAndTheOtherThreadApart() throws Exception {
        Path program = compileWindowProgram();

        CallgrindParts small = countUnderCallgrind(program, 20_000, "small-1");
        CallgrindParts again = countUnderCallgrind(program, 20_000, "small-2");
        CallgrindParts twice = countUnderCallgrind(program, 40_000, "twice");
        CallgrindParts thrice = countUnderCallgrind(program, 60_000, "thrice");

        // Whether a thread had to block on the other (a futex wait or not) moves a count by a few hundred
        // instructions from run to run; the additions themselves count exactly the same.
        assertThat(again.windowThread()).isEqualTo(small.windowThread());
        assertThat(again.windowInstructions())
                .as("the same run counts the same, but for waiting")
                .isCloseTo(small.windowInstructions(), within(WAITING));
        assertThat(again.otherInstructions()).isCloseTo(small.otherInstructions(), within(WAITING));
        long perStep = twice.windowInstructions() - small.windowInstructions();
        assertThat(thrice.windowInstructions() - twice.windowInstructions())
                .as("each 20000 more additions in the window")
                .isCloseTo(perStep, within(2 * WAITING));
        // Before and after the window the program adds as much again each, uncounted: only starting the thread comes on
        // top.
        assertThat(small.windowInstructions()).isBetween(perStep, perStep + 20_000);
        assertThat(small.otherThreads()).hasSize(1);
        assertThat(small.otherInstructions())
                .as("5000 additions of the background thread")
                .isBetween(perStep * 5000 / 20_000, perStep * 5000 / 20_000 + 20_000);
        assertThat(twice.otherInstructions()).isCloseTo(small.otherInstructions(), within(WAITING));
    }

    private Path compileWindowProgram() throws Exception {
        Path source = temp.resolve("window_program.c");
        try (InputStream in = CallgrindPartsTest.class.getResourceAsStream("/callgrind/window_program.c")) {
            Files.copy(in, source);
        }
        Path library = NativePrograms.locate(CallgrindWindow.LIBRARY_FILE, CallgrindWindow.LIBRARY_PROPERTY);
        Path program = temp.resolve("window_program");
        run(
                List.of(
                        "cc",
                        "-O1",
                        "-o",
                        program.toString(),
                        source.toString(),
                        library.toString(),
                        "-Wl,-rpath," + library.getParent(),
                        "-pthread"),
                "cc");
        return program;
    }

    private CallgrindParts countUnderCallgrind(Path program, int additions, String name) throws Exception {
        Path folder = Files.createDirectories(temp.resolve(name));
        List<String> command = new ArrayList<>(DispatchInstructions.callgrind(folder));
        command.addAll(List.of(program.toString(), Integer.toString(additions)));
        assertThat(run(command, "valgrind")).contains("added " + (3L * additions + 5000));
        return CallgrindParts.read(folder);
    }

    /** Runs {@code command} with its temporary files (valgrind has some) in the test's folder. */
    private String run(List<String> command, String what) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("TMPDIR", temp.toString());
        Process process = builder.start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(what + ": " + output).isZero();
        return output;
    }
}
