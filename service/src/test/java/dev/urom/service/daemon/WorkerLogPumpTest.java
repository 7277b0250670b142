// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.logging.LogRolling;
import dev.urom.service.logging.ServiceLogging;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pump with real child processes' stderr (sh) or fixed bytes, and real files. */
class WorkerLogPumpTest {
    private static final long PATIENCE_SECONDS = 30;

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void endProcesses() {
        processes.forEach(Process::destroyForcibly);
    }

    private Process sh(String script) throws IOException {
        Process process = new ProcessBuilder("sh", "-c", script)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        processes.add(process);
        return process;
    }

    private static void awaitDone(WorkerLogPump pump) throws Exception {
        pump.done().get(PATIENCE_SECONDS, TimeUnit.SECONDS);
    }

    private WorkerLogPump pumpBytes(long pid, byte[] bytes, LogRolling rolling) throws Exception {
        WorkerLogPump pump = WorkerLogPump.start(pid, new ByteArrayInputStream(bytes), dir, rolling);
        awaitDone(pump);
        return pump;
    }

    @Test
    void aWorkersLinesLandInItsFileInOrder() throws Exception {
        Process worker = sh("i=1; while [ $i -le 2000 ]; do echo \"line $i\" >&2; i=$((i+1)); done");

        WorkerLogPump pump = WorkerLogPump.start(worker.pid(), worker.getErrorStream(), dir, LogRolling.DEFAULT);
        awaitDone(pump);

        assertThat(pump.file()).isEqualTo(dir.resolve("urom_worker_" + worker.pid() + "_dev.log"));
        assertThat(Files.readAllLines(pump.file()))
                .containsExactlyElementsOf(IntStream.rangeClosed(1, 2000)
                        .mapToObj(i -> "line " + i)
                        .toList());
    }

    @Test
    void doneCompletesOnlyAtTheEndOfTheStreamAfterTheLastLine() throws Exception {
        Process worker = sh("echo first >&2; read x; printf 'last, without a newline' >&2");
        WorkerLogPump pump = WorkerLogPump.start(worker.pid(), worker.getErrorStream(), dir, LogRolling.DEFAULT);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (!(Files.exists(pump.file()) && Files.readString(pump.file()).equals("first\n"))) {
            assertThat(System.nanoTime())
                    .as("the first line is written while the worker runs")
                    .isLessThan(deadline);
            Thread.sleep(10);
        }

        assertThat(pump.done()).isNotDone();
        assertThat(Thread.getAllStackTraces().keySet())
                .extracting(Thread::getName)
                .contains("urom-worker-log-" + worker.pid());

        worker.getOutputStream().close();
        awaitDone(pump);

        assertThat(Files.readString(pump.file())).isEqualTo("first\nlast, without a newline\n");
        assertThat(worker.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aHundredKibLineIsCutWithTheCountOfBytesLeftOut() throws Exception {
        byte[] bytes = ("short\n" + "x".repeat(100 * 1024) + "\nafter\n").getBytes(StandardCharsets.US_ASCII);

        WorkerLogPump pump = pumpBytes(11, bytes, LogRolling.DEFAULT);

        List<String> lines = Files.readAllLines(pump.file());
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).isEqualTo("short");
        assertThat(lines.get(1)).isEqualTo("x".repeat(8192) + " … (" + (100 * 1024 - 8192) + " more bytes)");
        assertThat(lines.get(2)).isEqualTo("after");
    }

    @Test
    void aLineIsCutBeforeAUtf8CharacterItWouldSplit() throws Exception {
        String line = "a".repeat(8191) + "é" + "b".repeat(9);

        WorkerLogPump pump = pumpBytes(
                12, (line + "\n" + "a".repeat(8192) + "\n").getBytes(StandardCharsets.UTF_8), LogRolling.DEFAULT);

        assertThat(Files.readAllLines(pump.file()))
                .containsExactly("a".repeat(8191) + " … (11 more bytes)", "a".repeat(8192));
    }

    @Test
    void invalidUtf8BecomesReplacementCharacters() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes("ok ".getBytes(StandardCharsets.UTF_8));
        bytes.writeBytes(new byte[] {(byte) 0xff, (byte) 0xc3});
        bytes.writeBytes(" é end\n".getBytes(StandardCharsets.UTF_8));

        WorkerLogPump pump = pumpBytes(13, bytes.toByteArray(), LogRolling.DEFAULT);

        assertThat(Files.readString(pump.file(), StandardCharsets.UTF_8)).isEqualTo("ok \uFFFD\uFFFD é end\n");
    }

    @Test
    void rollingAtASmallSizeKeepsAtMostTheCountOfFiles() throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            text.append(String.format("line %04d %s%n", i, "p".repeat(90)));
        }

        WorkerLogPump pump = pumpBytes(14, text.toString().getBytes(StandardCharsets.UTF_8), new LogRolling(4096, 3));

        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(
                            "urom_worker_14_dev.log", "urom_worker_14_dev.log.1", "urom_worker_14_dev.log.2");
        }
        List<String> oldest = Files.readAllLines(dir.resolve("urom_worker_14_dev.log.2"));
        List<String> newest = Files.readAllLines(dir.resolve("urom_worker_14_dev.log.1"));
        List<String> current = Files.readAllLines(pump.file());
        List<String> kept = new ArrayList<>(oldest);
        kept.addAll(newest);
        kept.addAll(current);
        List<String> all = text.toString().lines().toList();
        assertThat(kept)
                .as("the files hold the last lines, oldest first")
                .isEqualTo(all.subList(all.size() - kept.size(), all.size()));
        for (Path file : List.of(
                dir.resolve("urom_worker_14_dev.log.2"), dir.resolve("urom_worker_14_dev.log.1"), pump.file())) {
            assertThat(Files.size(file)).isLessThanOrEqualTo(4096);
        }
        assertThat(Files.size(dir.resolve("urom_worker_14_dev.log.1")))
                .as("a rolled file is full")
                .isGreaterThan(4096 - 101);
    }

    @Test
    void twoPumpsForTwoWorkersDoNotMix() throws Exception {
        String script = "i=1; while [ $i -le 1000 ]; do echo \"$TAG $i\" >&2; i=$((i+1)); done";
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", script).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("TAG", "alpha");
        Process alpha = builder.start();
        processes.add(alpha);
        builder.environment().put("TAG", "beta");
        Process beta = builder.start();
        processes.add(beta);

        WorkerLogPump alphaPump = WorkerLogPump.start(alpha.pid(), alpha.getErrorStream(), dir, LogRolling.DEFAULT);
        WorkerLogPump betaPump = WorkerLogPump.start(beta.pid(), beta.getErrorStream(), dir, LogRolling.DEFAULT);
        awaitDone(alphaPump);
        awaitDone(betaPump);

        assertThat(Files.readAllLines(alphaPump.file()))
                .containsExactlyElementsOf(IntStream.rangeClosed(1, 1000)
                        .mapToObj(i -> "alpha " + i)
                        .toList());
        assertThat(Files.readAllLines(betaPump.file()))
                .containsExactlyElementsOf(IntStream.rangeClosed(1, 1000)
                        .mapToObj(i -> "beta " + i)
                        .toList());
    }

    @Test
    void aFileThatCannotBeWrittenStillDrainsTheWorkerToItsEnd() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("not-a-directory"), "");
        Path daemonLog = ServiceLogging.configure(dir.resolve("log"), "daemon.log", 50, 40);
        Process worker = sh("head -c 1048576 /dev/zero | tr '\\0' 'z' >&2; echo done >&2");

        WorkerLogPump pump =
                WorkerLogPump.start(worker.pid(), worker.getErrorStream(), notADirectory, LogRolling.DEFAULT);

        assertThat(worker.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS))
                .as("the worker never blocks on its stderr")
                .isTrue();
        awaitDone(pump);
        Configurator.reconfigure();
        assertThat(Files.exists(pump.file())).isFalse();
        assertThat(Files.readAllLines(daemonLog))
                .filteredOn(line -> line.contains("WARN"))
                .singleElement()
                .asString()
                .endsWith("the log " + pump.file() + " of worker pid " + worker.pid()
                        + " cannot be written (Not a directory); its lines are dropped until it can");
    }
}
