// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A process of a cross-host test whose output (stdout and stderr together) is read on another thread
 * as it comes; every wait is bounded by {@link #LIMIT_SECONDS}.
 */
record RunningCommand(Process process, List<String> lines, CompletableFuture<Void> ended) {
    static final long LIMIT_SECONDS = 120;

    static RunningCommand start(List<String> command, List<String> env) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("UROM_AUTH_KEY_FILE");
        builder.environment().remove("SERVICE_ARGS");
        for (String entry : env) {
            builder.environment().put(entry.substring(0, entry.indexOf('=')), entry.substring(entry.indexOf('=') + 1));
        }
        Process process = builder.start();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        BufferedReader reader =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Void> ended = CompletableFuture.runAsync(() -> {
            try {
                String line;
                while ((line = reader.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("(output unreadable: " + e.getMessage() + ")");
            }
        });
        return new RunningCommand(process, lines, ended);
    }

    /** Waits (bounded) for a line containing {@code text} and returns it. */
    String awaitLine(String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (true) {
            boolean over = ended.isDone() || System.nanoTime() - deadline >= 0;
            synchronized (lines) {
                for (String line : lines) {
                    if (line.contains(text)) {
                        return line;
                    }
                }
            }
            assertThat(over)
                    .as("the process ended or %d s passed before '%s'; its output: %s", LIMIT_SECONDS, text, lines)
                    .isFalse();
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** Ends the process: politely, then by force once {@link #LIMIT_SECONDS} have passed. */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    /** Waits (bounded) for the process to end with status 0 and returns its output. */
    String awaitExit() throws Exception {
        boolean exited = process.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
        }
        ended.get(LIMIT_SECONDS, TimeUnit.SECONDS);
        String output = String.join("\n", lines);
        assertThat(exited).as("ended within %d s: %s", LIMIT_SECONDS, output).isTrue();
        assertThat(process.exitValue()).as("exit status; output: %s", output).isZero();
        return output;
    }
}
