// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static dev.urom.service.worker.DataSocketProbes.assertEchoed;
import static dev.urom.service.worker.DataSocketProbes.awaitOneNewLogLine;
import static dev.urom.service.worker.DataSocketProbes.logLines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Anyone who can reach a worker's port can connect and go: connections that close before their
 * handshake ends are not logged one by one at the worker's usual level (INFO), so a flood of them
 * leaves at most a burst of rate-limited refusals in the log.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerConnectionFloodLogTest {
    private static final long ECHO_ID = 0x4;
    private static final int FLOOD = 300;
    /** The refusal lines DataPlane logs in each of its windows before it counts the rest. */
    private static final int RATE_LIMITED_BURST = 20;

    private static final Duration RATE_LIMIT_WINDOW = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private WorkerProcess worker;

    @AfterEach
    void destroyTheWorker() throws InterruptedException {
        if (worker != null) {
            worker.destroy();
        }
    }

    @Test
    void connectionsThatCloseBeforeTheirHandshakeEndsAreNotLoggedOneByOne() throws Exception {
        Path echo = WorkerFixtures.echo(dir.resolve("plugins"), "echo.so");
        List<String> args = WorkerProcess.args(
                ServiceAddress.tcp("127.0.0.1", 0), 4096, List.of("--log-level", "50", echo + ":" + ECHO_ID));
        worker = WorkerProcess.start(dir.resolve("log"), List.of(), args, WorkerProcess.KEY_ACCESS);
        Connected owner = worker.connect(Optional.of(WorkerProcess.TEST_KEY));
        String opened = "opened by " + WorkerProcess.TEST_KEY.principal().text();
        // The owner's own line may reach the log after its handshake ended: wait for it before counting.
        awaitOneNewLogLine(worker, 0, opened);
        int openedBefore = logLines(worker, opened);
        int linesBefore =
                Files.readAllLines(worker.logFile, StandardCharsets.UTF_8).size();
        ByteBuffer hello = FrameCodec.encode(0, Hello.of(Role.HOST, ""));
        long floodStarted = System.nanoTime();

        for (int i = 0; i < FLOOD; i++) {
            try (SocketChannel silent = worker.readyAddress().connect();
                    SocketChannel half = worker.readyAddress().connect()) {
                half.write(hello.duplicate().limit(hello.remaining() / 2));
            }
        }
        connectOnceTheCapAllows();
        awaitOneNewLogLine(worker, openedBefore, opened);
        long windows = 1 + (System.nanoTime() - floodStarted) / RATE_LIMIT_WINDOW.toNanos();

        List<String> lines = Files.readAllLines(worker.logFile, StandardCharsets.UTF_8);
        List<String> added = lines.subList(linesBefore, lines.size());
        assertThat(added)
                .as(
                        "log lines added by %d connections that closed before their handshake ended, and one owner's",
                        2 * FLOOD)
                .noneMatch(line -> line.matches(".* INFO .* host connection [0-9]+ (accepted|closed).*"));
        // a flood faster than the worker reads its closes meets the connection cap: those refusals are rate-limited
        List<String> refusals = added.stream()
                .filter(line -> line.contains("connections over the limit") || line.contains("host connection refused"))
                .toList();
        assertThat(refusals)
                .as("refusal lines over %d rate-limit windows", windows)
                .hasSizeLessThanOrEqualTo((int) windows * (RATE_LIMITED_BURST + 1));
        assertThat(added).as("log lines other than refusals").hasSizeLessThanOrEqualTo(refusals.size() + 2);
        assertEchoed(owner, ECHO_ID, "after the flood");
    }

    /**
     * Connects the owner again, retrying while the worker still counts connections of the flood
     * whose close it has not read yet (it refuses with FULL until then).
     */
    private void connectOnceTheCapAllows() throws Exception {
        long deadline = System.nanoTime() + DataSocketProbes.PATIENCE.toNanos();
        long pauseMillis = 10;
        while (true) {
            try {
                worker.connect(Optional.of(WorkerProcess.TEST_KEY));
                return;
            } catch (UromException refused) {
                if (refused.status() != UromStatus.FULL || System.nanoTime() - deadline >= 0) {
                    throw refused;
                }
            }
            TimeUnit.MILLISECONDS.sleep(pauseMillis);
            pauseMillis = Math.min(2 * pauseMillis, 500);
        }
    }
}
