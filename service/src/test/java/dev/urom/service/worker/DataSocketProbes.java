// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Proofs;
import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * What the worker security tests do on a real worker's data socket below the host library: raw
 * connections, the refusal a connection ends with, the lines of the worker's log, and the worker's
 * resident memory. Every wait is bounded by {@link #PATIENCE}; a wait that runs out fails the test.
 * Stateless; channels opened here are closed by {@link WorkerProcess#destroy()}.
 */
final class DataSocketProbes {
    static final Duration PATIENCE = Duration.ofSeconds(30);
    /** A line as the worker's log layout starts it: date, time, level. */
    private static final Pattern LOG_LINE =
            Pattern.compile("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} [A-Z]+ .*");

    private DataSocketProbes() {}

    /** A connection to the worker on which nothing has been sent yet. */
    static FrameChannel raw(WorkerProcess worker) throws IOException {
        FrameChannel channel = new FrameChannel(worker.readyAddress().connect(), Protocol.CONTROL_FRAME_LIMIT);
        worker.channels.add(channel);
        return channel;
    }

    /**
     * Runs the host side of the handshake with {@code key}, proved for {@code channel}, and returns
     * the worker's refusal, after checking that the worker closed the connection. Fails the test when
     * the worker lets the host in.
     */
    static UromException refusedHandshake(WorkerProcess worker, Optional<AuthKey> key, Proofs.Channel channel)
            throws Exception {
        FrameChannel connection = raw(worker);
        try {
            HelloOk ok = Handshake.client(connection, Role.HOST, channel, key, PATIENCE);
            throw new AssertionError("the worker let the host in as " + ok.principal());
        } catch (UromException refused) {
            assertEndOfStream(connection);
            return refused;
        }
    }

    /** The ERROR the worker sends on {@code channel}, after which it closes the connection. */
    static ErrorReply refusal(FrameChannel channel) throws Exception {
        Message message = channel.receiveWithin(PATIENCE).message();
        assertThat(message).as("the worker's answer").isInstanceOf(ErrorReply.class);
        assertEndOfStream(channel);
        return (ErrorReply) message;
    }

    /** The worker closes {@code channel} without sending anything more. */
    static void assertEndOfStream(FrameChannel channel) throws Exception {
        try {
            Frame frame = channel.receiveWithin(PATIENCE);
            fail("expected the worker to close the connection, got " + frame.message());
        } catch (EOFException expected) {
            // closed by the worker
        }
    }

    /** The worker's native echo plugin {@code pluginId} answers {@code host} at once. */
    static void assertEchoed(Connected host, long pluginId, String text) throws Exception {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        host.channel().send(0, new Command(pluginId, 4242, payload));
        assertThat(host.channel().receiveWithin(PATIENCE).message())
                .isEqualTo(new Notify(pluginId, 4242, UromStatus.SUCCESS, payload));
    }

    /** How many lines of the worker's log contain {@code text}. */
    static int logLines(WorkerProcess worker, String text) throws IOException {
        return (int) Files.readAllLines(worker.logFile, StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains(text))
                .count();
    }

    /**
     * Waits until the worker's log holds one more line containing {@code text} than the {@code before}
     * it held, checks that it is exactly one more, a whole log line followed by another log line or by
     * nothing (no stack trace), and returns it.
     */
    static String awaitOneNewLogLine(WorkerProcess worker, int before, String text) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            List<String> lines = Files.readAllLines(worker.logFile, StandardCharsets.UTF_8);
            List<Integer> matching = IntStream.range(0, lines.size())
                    .filter(i -> lines.get(i).contains(text))
                    .boxed()
                    .toList();
            if (matching.size() > before) {
                assertThat(matching)
                        .as("lines of the worker's log with '%s'", text)
                        .hasSize(before + 1);
                int at = matching.get(before);
                assertThat(lines.get(at)).matches(LOG_LINE);
                if (at + 1 < lines.size()) {
                    assertThat(lines.get(at + 1))
                            .as("the line after the refusal")
                            .matches(LOG_LINE);
                }
                return lines.get(at);
            }
            assertThat(System.nanoTime())
                    .as("the worker logged '%s' within %s", text, PATIENCE)
                    .isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    /** The resident memory of process {@code pid} ({@code VmRSS} of {@code /proc/<pid>/status}), in bytes. */
    static long residentBytes(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                String[] words = line.substring("VmRSS:".length()).trim().split("\\s+");
                assertThat(words[1]).isEqualTo("kB");
                return Long.parseLong(words[0]) * 1024;
            }
        }
        throw new AssertionError("/proc/" + pid + "/status has no VmRSS line");
    }
}
