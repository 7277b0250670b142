// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;

/**
 * Probes a native plugin in a child process ({@code urom-probe}, see {@link NativeArtifacts}), so
 * that a plugin whose constructor crashes, exits or hangs only gets itself rejected.
 *
 * <p>The child loads the file {@code RTLD_NOW | RTLD_LOCAL}, as a worker does, so a plugin that
 * calls a function no library defines is rejected here, naming the symbol, instead of killing its
 * worker at the first command. It checks both entry points and the API version, and prints one
 * result line. Every rejection reason is one line naming the file.
 *
 * <p>Stateless and thread-safe: each call runs its own child process, started without a shell.
 */
public final class NativeProbe {
    private static final int MAX_RESULT_BYTES = 8192;
    /** How the probe's line starts when dlopen fails; the loader's reason follows. */
    private static final String NOT_LOADABLE = "not a loadable shared object: ";

    private static final Map<Integer, String> SIGNAL_NAMES = Map.ofEntries(
            Map.entry(1, "SIGHUP"),
            Map.entry(2, "SIGINT"),
            Map.entry(3, "SIGQUIT"),
            Map.entry(4, "SIGILL"),
            Map.entry(5, "SIGTRAP"),
            Map.entry(6, "SIGABRT"),
            Map.entry(7, "SIGBUS"),
            Map.entry(8, "SIGFPE"),
            Map.entry(9, "SIGKILL"),
            Map.entry(10, "SIGUSR1"),
            Map.entry(11, "SIGSEGV"),
            Map.entry(12, "SIGUSR2"),
            Map.entry(13, "SIGPIPE"),
            Map.entry(14, "SIGALRM"),
            Map.entry(15, "SIGTERM"),
            Map.entry(24, "SIGXCPU"),
            Map.entry(25, "SIGXFSZ"),
            Map.entry(31, "SIGSYS"));

    private NativeProbe() {}

    /**
     * Probes {@code so} (made absolute first), waiting at most {@code timeout} for the answer; a
     * probe that takes longer is killed and waited for.
     *
     * @return accepted with the plugin's version, or rejected with the reason
     * @throws IllegalStateException when the probe itself cannot be found or started (nothing is
     *     said about the plugin then)
     * @throws CancellationException when the calling thread is interrupted; the child is killed
     *     and the interrupt flag stays set
     */
    public static ProbeOutcome probe(Path so, Duration timeout) {
        requireNonNull(so, "so is null");
        requireNonNull(timeout, "timeout is null");
        Path file = so.toAbsolutePath();
        Path probe = NativeArtifacts.probeExecutable();
        Process process;
        try {
            process = new ProcessBuilder(List.of(probe.toString(), file.toString()))
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + probe + " to probe " + file + ": " + e.getMessage(), e);
        }
        closeQuietly(process.getOutputStream());
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
                return ProbeOutcome.rejected(file + " did not finish loading within " + timeout.toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            kill(process);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while probing " + file);
        }
        return interpret(file, firstLine(process), process.exitValue());
    }

    static ProbeOutcome interpret(Path file, String line, int exitValue) {
        if (line == null) {
            if (exitValue > 128 && exitValue <= 128 + 64) {
                int signal = exitValue - 128;
                return ProbeOutcome.rejected("probe crashed while loading " + file + ": signal " + signal + " ("
                        + SIGNAL_NAMES.getOrDefault(signal, "SIG" + signal) + ")");
            }
            return ProbeOutcome.rejected(
                    file + " ended the probe process with exit status " + exitValue + " while loading");
        }
        if (line.startsWith("ok ")) {
            String version = field(line, "version=");
            if (version != null) {
                try {
                    return ProbeOutcome.accepted(Long.parseUnsignedLong(version));
                } catch (NumberFormatException e) {
                    // falls through to the unexpected-line rejection
                }
            }
        } else if (line.startsWith("rejected " + NOT_LOADABLE)) {
            return ProbeOutcome.rejected(
                    file + ": " + LoaderReason.explain(line.substring(("rejected " + NOT_LOADABLE).length())));
        } else if (line.startsWith("rejected ")) {
            return ProbeOutcome.rejected(file + ": " + line.substring("rejected ".length()));
        }
        return ProbeOutcome.rejected(file + ": the probe answered an unexpected line: " + line);
    }

    private static String field(String line, String prefix) {
        for (String word : line.split(" ")) {
            if (word.startsWith(prefix)) {
                return word.substring(prefix.length());
            }
        }
        return null;
    }

    /**
     * The result line, read without blocking: the child has exited, so everything it wrote is
     * already in the pipe, while a descendant that kept the pipe open must not hold us up.
     */
    private static String firstLine(Process process) {
        try (InputStream in = process.getInputStream()) {
            byte[] bytes = in.readNBytes(Math.min(in.available(), MAX_RESULT_BYTES));
            String text = new String(bytes, StandardCharsets.UTF_8);
            int end = text.indexOf('\n');
            return end < 0 ? null : text.substring(0, end);
        } catch (IOException e) {
            return null;
        }
    }

    private static void closeQuietly(java.io.OutputStream stdin) {
        try {
            stdin.close();
        } catch (IOException e) {
            // the child already went away; its exit status tells the rest
        }
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        boolean interrupted = false;
        while (true) {
            try {
                process.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
