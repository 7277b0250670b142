// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link SandboxChild} JVM with one sandbox plugin and an environment of the test's choosing
 * ({@code UROM_OWNER_UID} above all; {@code TMPDIR} and {@code java.io.tmpdir} are the test's
 * directory). Every failure of the child (it died, it stopped answering) is an {@link
 * AssertionError} that quotes the rest of the child's stdout (where a JVM that crashes writes its
 * report) and the end of its stderr. Driven from one thread; {@link #close}
 * ends the child, forcibly if it does not exit by itself.
 */
final class SandboxChildProcess implements AutoCloseable {
    /** Generous: starting a JVM on the shared build machine is slow. */
    private static final Duration TIMEOUT = SandboxChild.TIMEOUT.plusSeconds(30);

    private static final long PLUGIN_ID = 1L << 7;
    private static final String END = "\0end";
    private static final HexFormat HEX = HexFormat.of();

    /** One answer: the notification's status and payload, and the plugin's packing of it. */
    record Answer(long uromContext, UromStatus status, byte[] payload, byte[] packed) {
        /** As the worker host handed it out. */
        WorkerNotification notification() {
            return new WorkerNotification(5, PLUGIN_ID, uromContext, status, payload);
        }

        /** The answer as one comparable line. */
        String line() {
            return "context=" + uromContext + " status=" + status + " packed=" + HEX.formatHex(packed);
        }
    }

    private final Process process;
    private final Path stderr;
    private final Writer toChild;
    private final BlockingQueue<String> fromChild = new LinkedBlockingQueue<>();
    private final String openResult;

    private SandboxChildProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.toChild = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::readLines, "sandbox-child-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        this.openResult = nextLine("the open result");
    }

    /**
     * Starts a child whose plugin is {@code plugin}; the environment is the test JVM's less {@code
     * UROM_OWNER_UID}, plus {@code environment}.
     */
    static SandboxChildProcess start(Path plugin, Map<String, String> environment, Path dir) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-Djava.io.tmpdir=" + dir,
                "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"),
                "-cp",
                System.getProperty("java.class.path"),
                SandboxChild.class.getName(),
                plugin.toString(),
                Long.toString(PLUGIN_ID)));
        try {
            Path stderr = Files.createTempFile(dir, "sandbox-child-", ".stderr");
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(stderr.toFile());
            builder.environment().remove(FileOwners.VARIABLE);
            builder.environment().put("TMPDIR", dir.toString());
            // UCX logs to stdout by default, which is the child's answer channel.
            builder.environment().put("UCX_LOG_FILE", "stderr");
            builder.environment().putAll(environment);
            return new SandboxChildProcess(builder.start(), stderr);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a sandbox child JVM", e);
        }
    }

    /** {@code opened}, or {@code open-failed <STATUS>}. */
    String openResult() {
        return openResult;
    }

    void submit(long uromContext, byte[] payload) {
        send("submit " + uromContext + " " + HEX.formatHex(payload));
    }

    /** The answer to {@code uromContext}, once the child has it. */
    Answer await(long uromContext) {
        send("await " + uromContext);
        String line = nextLine("the answer to context " + uromContext);
        String[] words = line.split(" ");
        if (!words[0].equals("answer") || words.length != 5 || Long.parseLong(words[1]) != uromContext) {
            throw failure("the child answered '" + line + "' to await " + uromContext + ", then:\n" + restOfOutput());
        }
        return new Answer(uromContext, UromStatus.valueOf(words[2]), bytes(words[3]), bytes(words[4]));
    }

    /** The plugin's address. */
    byte[] address() {
        send("address 0");
        String line = nextLine("the address");
        String[] words = line.split(" ");
        if (!words[0].equals("address") || words.length != 2) {
            throw failure("the child answered '" + line + "' to address, then:\n" + restOfOutput());
        }
        return bytes(words[1]);
    }

    /** Makes {@code domainId} (not 0) the child's peer with {@code address}. */
    void peer(long domainId, byte[] address) {
        send("peer " + domainId + " " + HEX.formatHex(address));
    }

    /** Ends the child with SIGKILL (a worker that dies) and waits until it is gone. */
    void kill() {
        close();
        if (process.isAlive()) {
            throw failure("the child outlived SIGKILL for " + TIMEOUT);
        }
    }

    /** Submits {@code payload} and waits for its answer. */
    Answer call(long uromContext, byte[] payload) {
        submit(uromContext, payload);
        return await(uromContext);
    }

    /** Submits {@code command} with its context as the {@code uromContext}. */
    void submit(SandboxCommand command) {
        submit(command.context(), command.encode());
    }

    /** Submits {@code command} with its context as the {@code uromContext} and waits for its answer. */
    Answer call(SandboxCommand command) {
        return call(command.context(), command.encode());
    }

    /** Makes {@code address} the one of domain id 1 in the child's domain. */
    void peer(byte[] address) {
        peer(1, address);
    }

    /** Closes the child's input and waits for it to exit; its exit status. */
    int finish() {
        try {
            toChild.close();
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw failure("the child did not exit within " + TIMEOUT + " after its input ended");
            }
            return process.exitValue();
        } catch (IOException e) {
            throw failure("cannot close the child's input: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure("interrupted while waiting for the child to exit");
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void send(String line) {
        try {
            toChild.write(line + "\n");
            toChild.flush();
        } catch (IOException e) {
            throw failure("cannot write to the child (" + e.getMessage() + ")");
        }
    }

    private String nextLine(String what) {
        String line;
        try {
            line = fromChild.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure("interrupted while waiting for " + what);
        }
        if (line == null) {
            throw failure("no " + what + " within " + TIMEOUT);
        }
        if (line.equals(END)) {
            fromChild.add(END);
            throw failure("the child ended before " + what);
        }
        return line;
    }

    /** What the child still writes until it ends (or the timeout passes). */
    private String restOfOutput() {
        StringBuilder rest = new StringBuilder();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try {
            for (String line;
                    (line = fromChild.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) != null
                            && !line.equals(END); ) {
                rest.append(line).append('\n');
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return rest.toString();
    }

    private void readLines() {
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = lines.readLine()) != null; ) {
                fromChild.add(line);
            }
        } catch (IOException ignored) {
            // the child is gone: END says so
        }
        fromChild.add(END);
    }

    private AssertionError failure(String what) {
        String status = process.isAlive() ? "still running" : "exited with status " + exitValueAfterDeath();
        return new AssertionError("sandbox child " + process.pid() + ": " + what + " (" + status
                + "); end of its stderr:\n" + stderrTail());
    }

    private int exitValueAfterDeath() {
        try {
            process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return process.isAlive() ? -1 : process.exitValue();
    }

    private String stderrTail() {
        try {
            String text = Files.readString(stderr, StandardCharsets.UTF_8);
            return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static byte[] bytes(String hex) {
        return hex.equals("-") ? new byte[0] : HEX.parseHex(hex);
    }
}
