// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.daemon.WorkerStatsLink.Liveness;
import dev.urom.service.metrics.WorkerStatsBook;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.service.process.WorkerLine;
import dev.urom.service.process.WorkerLines;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link WorkerStatsLink#liveness} against a stand-in worker on two pipes, which answers as each test says. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WorkerStatsLinkTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final Pipe toWorker;
    private final BufferedReader requestLines;
    private final OutputStream stdout;
    private final WorkerStatsLink link;

    WorkerStatsLinkTest() throws IOException {
        toWorker = Pipe.open();
        Pipe fromWorker = Pipe.open();
        requestLines = new BufferedReader(
                new InputStreamReader(Channels.newInputStream(toWorker.source()), StandardCharsets.US_ASCII));
        stdout = Channels.newOutputStream(fromWorker.sink());
        link = WorkerStatsLink.start(
                "worker 1 (pid 1)",
                1,
                Channels.newInputStream(fromWorker.source()),
                Channels.newOutputStream(toWorker.sink()),
                new WorkerStatsBook());
    }

    @AfterEach
    void closePipes() throws IOException {
        stdout.close();
        toWorker.source().close();
        toWorker.sink().close();
    }

    @Test
    void anAnswerWithoutEndingBeforeItIsServing() throws Exception {
        CompletableFuture<Liveness> found = CompletableFuture.supplyAsync(() -> link.liveness(PATIENCE));
        answer(n -> WorkerLines.encode(new WorkerLine.Stats(n, WorkerStatsSnapshot.EMPTY)));
        assertThat(found.get()).isEqualTo(Liveness.SERVING);
    }

    @Test
    void endingBeforeTheAnswerIsEndingAndStaysSo() throws Exception {
        CompletableFuture<Liveness> found = CompletableFuture.supplyAsync(() -> link.liveness(PATIENCE));
        answer(n -> WorkerLines.encode(new WorkerLine.Ending()) + "\n"
                + WorkerLines.encode(new WorkerLine.Stats(n, WorkerStatsSnapshot.EMPTY)));
        assertThat(found.get()).isEqualTo(Liveness.ENDING);

        CompletableFuture<Liveness> again = CompletableFuture.supplyAsync(() -> link.liveness(PATIENCE));
        answer(n -> WorkerLines.encode(new WorkerLine.Stats(n, WorkerStatsSnapshot.EMPTY)));
        assertThat(again.get()).as("an answer after ENDING").isEqualTo(Liveness.ENDING);
    }

    @Test
    void theEndOfTheWorkersStdoutIsEnding() throws Exception {
        CompletableFuture<Liveness> found = CompletableFuture.supplyAsync(() -> link.liveness(PATIENCE));
        requestLines.readLine();
        stdout.close();
        assertThat(found.get()).isEqualTo(Liveness.ENDING);
        assertThat(link.liveness(PATIENCE)).as("asked after the end").isEqualTo(Liveness.ENDING);
    }

    @Test
    void aLineOverTheBoundIsSkippedAndTheAnswerAfterItCounts() throws Exception {
        CompletableFuture<Liveness> found = CompletableFuture.supplyAsync(() -> link.liveness(PATIENCE));
        answer(n -> "STATS ".repeat(WorkerLines.MAX_LINE_LENGTH / 6 + 100) + "\n"
                + WorkerLines.encode(new WorkerLine.Stats(n, WorkerStatsSnapshot.EMPTY)));
        assertThat(found.get()).isEqualTo(Liveness.SERVING);
    }

    @Test
    void noAnswerInTimeIsSilent() {
        assertThat(link.liveness(Duration.ofMillis(200))).isEqualTo(Liveness.SILENT);
    }

    /** Reads one request and writes {@code reply} of its number as the worker's lines. */
    private void answer(Function<Long, String> reply) throws IOException {
        String request = requestLines.readLine();
        long n = WorkerLines.decode(request) instanceof WorkerLine.StatsRequest r ? r.number() : -1;
        assertThat(n).as("the request '%s'", request).isNotNegative();
        stdout.write((reply.apply(n) + "\n").getBytes(StandardCharsets.UTF_8));
        stdout.flush();
    }
}
