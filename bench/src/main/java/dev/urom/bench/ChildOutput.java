// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child process's stdout, line by line, read on a daemon thread of its own from the start, so
 * that a benchmark can wait for the line it expects with a deadline ({@link #expect}) and report
 * the last line of the child's stderr file when the child ends first.
 *
 * <p>Thread-safe.
 */
final class ChildOutput {
    private static final String EOF = "\u0000EOF";

    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Process process;
    private final String name;
    private final Path stderr;

    ChildOutput(Process process, String name, Path stderr) {
        this.process = process;
        this.name = name;
        this.stderr = stderr;
        Thread reader = new Thread(this::read, "urom-bench-" + name.replace(' ', '-'));
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException e) {
            // the process has gone: said as EOF
        }
        lines.add(EOF);
    }

    /**
     * What follows {@code prefix} on the next line, waiting at most {@code wait}.
     *
     * @throws IllegalStateException when the line is another, the process ends first, or the wait ends
     */
    String expect(String prefix, Duration wait) throws InterruptedException {
        String line = lines.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
        if (line == null) {
            throw new IllegalStateException(name + " said no " + prefix.strip() + " within " + wait.toSeconds() + " s");
        }
        if (line.equals(EOF)) {
            process.waitFor(5, TimeUnit.SECONDS);
            throw new IllegalStateException(
                    name + " ended" + (process.isAlive() ? "" : " with status " + process.exitValue()) + " before "
                            + prefix.strip() + ": " + lastError());
        }
        if (!line.startsWith(prefix)) {
            throw new IllegalStateException(name + " said '" + line + "' instead of " + prefix.strip());
        }
        return line.substring(prefix.length());
    }

    /** The last line of the process's stderr, or a note that it has none. */
    String lastError() {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.isBlank())
                    .toList();
            return all.isEmpty()
                    ? "(nothing on stderr)"
                    : all.get(all.size() - 1).strip();
        } catch (IOException e) {
            return "(its stderr cannot be read: " + e.getMessage() + ")";
        }
    }
}
