// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one run under {@code valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes}
 * counted in the window of {@link CallgrindWindow}, read from its output files (one per thread and
 * dump, {@code thread:}, {@code desc: Trigger:} and {@code totals:} in each).
 *
 * <p>The window's client-request dump holds the thread that opened and closed the window, and only
 * it. Instrumentation is on only between the open and the close, so every other thread's counts,
 * dumped when the program ends, are what it did in the window. The window's own thread also has a
 * part at the end, the few instructions between its dump and the end of instrumentation, which
 * belong to neither.
 *
 * @param windowThread callgrind's number of the thread that opened and closed the window
 * @param windowInstructions that thread's instructions (Ir) in the window
 * @param otherThreads the instructions of every other thread that ran while instrumentation was on,
 *     by callgrind's thread number (those that ran nothing left out)
 */
record CallgrindParts(int windowThread, long windowInstructions, Map<Integer, Long> otherThreads) {
    /** The {@code desc: Trigger:} of the window's dump: the string callgrind_window.c dumps at. */
    static final String WINDOW_TRIGGER = "Client Request: urom_callgrind_window";

    static final String END_TRIGGER = "Program termination";

    CallgrindParts {
        otherThreads = Map.copyOf(otherThreads);
    }

    /** The instructions of all threads but the window's. */
    long otherInstructions() {
        return otherThreads.values().stream().mapToLong(Long::longValue).sum();
    }

    /** One output file's header facts. */
    record Part(int thread, String trigger, long totals) {}

    /**
     * The window of the callgrind output files {@code callgrind.*} in {@code folder}, but for empty
     * ones (with {@code --separate-threads=yes} the file without a thread suffix stays empty).
     */
    static CallgrindParts read(Path folder) throws IOException {
        List<Part> parts = new ArrayList<>();
        try (DirectoryStream<Path> outputs = Files.newDirectoryStream(folder, "callgrind.*")) {
            for (Path file : outputs) {
                if (Files.size(file) == 0) {
                    continue;
                }
                parts.add(part(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString()));
            }
        }
        return of(parts, folder.toString());
    }

    /** The window of {@code parts}, the files of one run in {@code where}. */
    static CallgrindParts of(List<Part> parts, String where) {
        List<Part> windows =
                parts.stream().filter(p -> p.trigger().equals(WINDOW_TRIGGER)).toList();
        if (windows.size() != 1) {
            throw new IllegalStateException(where + ": " + windows.size() + " callgrind dumps at '" + WINDOW_TRIGGER
                    + "', not one: the window was not opened and closed once (or not under --separate-threads=yes)");
        }
        Part window = windows.get(0);
        Map<Integer, Long> others = new TreeMap<>();
        for (Part part : parts) {
            if (!part.trigger().equals(END_TRIGGER)) {
                continue;
            }
            if (part.thread() != window.thread() && part.totals() > 0) {
                others.merge(part.thread(), part.totals(), Long::sum);
            }
        }
        return new CallgrindParts(window.thread(), window.totals(), others);
    }

    /** The {@code thread:}, {@code desc: Trigger:} and {@code totals:} of one callgrind output file. */
    static Part part(List<String> lines, String file) {
        Integer thread = null;
        String trigger = null;
        Long totals = null;
        for (String line : lines) {
            if (line.startsWith("thread:")) {
                thread = (int) number(line, "thread:", file);
            } else if (line.startsWith("desc: Trigger:")) {
                trigger = line.substring("desc: Trigger:".length()).trim();
            } else if (line.startsWith("totals:")) {
                totals = number(line, "totals:", file);
            }
        }
        if (thread == null || trigger == null || totals == null) {
            throw new IllegalStateException(file + " lacks "
                    + (thread == null ? "a 'thread:'" : trigger == null ? "a 'desc: Trigger:'" : "a 'totals:'")
                    + " line: not a finished callgrind output of a run with --separate-threads=yes");
        }
        return new Part(thread, trigger, totals);
    }

    /** The first number after {@code key} on {@code line}: with several events, the first is Ir. */
    private static long number(String line, String key, String file) {
        String[] words = line.substring(key.length()).trim().split(" ");
        try {
            return Long.parseLong(words[0]);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(file + ": '" + line + "' does not start with a count");
        }
    }
}
