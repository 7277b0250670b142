// SPDX-License-Identifier: Apache-2.0
package dev.urom.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The shell examples of one Markdown page: every fenced block whose info string is empty, {@code sh},
 * {@code bash}, {@code shell} or {@code console}, with how the line just before it says to treat it.
 * {@code <!-- example: not run (REASON) -->} exempts a block (the reason is required); {@code <!--
 * example: run with a daemon -->} runs it with a daemon at the default address; no marker runs it
 * alone. A block whose lines start with {@code $ } is a transcript: each such line (and the lines
 * it continues with a trailing backslash) is a command, and the lines up to the next command are
 * its expected standard output, where {@code ...} stands for any text; any other block is one
 * script whose exit status must be 0.
 */
final class DocExamples {
    private static final Set<String> SHELL_INFO = Set.of("", "sh", "bash", "shell", "console");
    private static final Pattern MARKER = Pattern.compile("<!-- example: (.*?) -->");
    private static final Pattern NOT_RUN = Pattern.compile("not run \\((.+)\\)");
    private static final String WITH_DAEMON = "run with a daemon";

    enum Mode {
        ALONE,
        WITH_DAEMON,
        NOT_RUN
    }

    /** One command of a transcript and the standard output the page shows for it. */
    record Step(String command, List<String> expectedOutput) {
        /** Whether {@code actual} (the output's lines) is what the page shows, {@code ...} matching any text. */
        boolean matches(List<String> actual) {
            List<String> shown =
                    expectedOutput.stream().map(String::stripTrailing).toList();
            List<String> got = actual.stream().map(String::stripTrailing).toList();
            if (shown.size() != got.size()) {
                return false;
            }
            for (int i = 0; i < shown.size(); i++) {
                if (!wildcard(shown.get(i)).matcher(got.get(i)).matches()) {
                    return false;
                }
            }
            return true;
        }

        private static Pattern wildcard(String line) {
            StringBuilder regex = new StringBuilder();
            String[] parts = line.split("\\.\\.\\.", -1);
            for (int i = 0; i < parts.length; i++) {
                if (i > 0) {
                    regex.append(".*");
                }
                regex.append(Pattern.quote(parts[i]));
            }
            return Pattern.compile(regex.toString());
        }
    }

    /**
     * One shell block: where it is, how to treat it, and either its transcript steps or (when it has
     * no {@code $ } lines) its text as one script.
     */
    record Example(String page, int line, Mode mode, String reason, String text, List<Step> steps) {
        boolean isTranscript() {
            return !steps.isEmpty();
        }

        String where() {
            return page + ":" + line;
        }
    }

    private DocExamples() {}

    /** The pages whose examples the tests hold to the code: the README, then docs/*.md in name order. */
    static List<Path> pages(Path repo) throws IOException {
        List<Path> pages = new ArrayList<>(List.of(repo.resolve("README.md")));
        try (Stream<Path> docs = Files.list(repo.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The shell blocks of {@code markdown}, the page named {@code page}; a marker it cannot read is an error. */
    static List<Example> of(String page, String markdown) {
        List<Example> examples = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        String before = "";
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (!line.startsWith("```")) {
                if (!line.isBlank()) {
                    before = line;
                }
                continue;
            }
            String info = line.substring(3).strip();
            int start = i;
            StringBuilder text = new StringBuilder();
            for (i++; i < lines.length && !lines[i].startsWith("```"); i++) {
                text.append(lines[i]).append('\n');
            }
            if (i == lines.length) {
                throw new IllegalArgumentException(page + ":" + (start + 1) + ": a fenced block that is never closed");
            }
            if (SHELL_INFO.contains(info)) {
                examples.add(example(page, start + 1, before, text.toString()));
            }
            before = "";
        }
        return examples;
    }

    private static Example example(String page, int line, String before, String text) {
        Mode mode = Mode.ALONE;
        String reason = "";
        Matcher marker = MARKER.matcher(before);
        if (marker.matches()) {
            Matcher notRun = NOT_RUN.matcher(marker.group(1));
            if (notRun.matches()) {
                mode = Mode.NOT_RUN;
                reason = notRun.group(1);
            } else if (marker.group(1).equals(WITH_DAEMON)) {
                mode = Mode.WITH_DAEMON;
            } else {
                throw new IllegalArgumentException(page + ":" + line + ": unknown example marker '" + marker.group(1)
                        + "' (write 'not run (REASON)' or '" + WITH_DAEMON + "')");
            }
        }
        return new Example(page, line, mode, reason, text, steps(text));
    }

    private static List<Step> steps(String text) {
        List<Step> steps = new ArrayList<>();
        String[] lines = text.split("\n");
        int i = 0;
        while (i < lines.length && !lines[i].startsWith("$ ")) {
            if (!lines[i].isBlank()) {
                return List.of(); // text before any "$ ": a script, not a transcript
            }
            i++;
        }
        while (i < lines.length) {
            StringBuilder command = new StringBuilder(lines[i].substring(2));
            while (lines[i].endsWith("\\") && i + 1 < lines.length) {
                i++;
                command.append('\n').append(lines[i]);
            }
            List<String> output = new ArrayList<>();
            for (i++; i < lines.length && !lines[i].startsWith("$ "); i++) {
                output.add(lines[i]);
            }
            steps.add(new Step(command.toString(), output));
        }
        return steps;
    }
}
