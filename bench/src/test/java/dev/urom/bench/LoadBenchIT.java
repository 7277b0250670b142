// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.testkit.TestWorkers;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A small real load: a daemon process and two host processes of two workers each (C and Java graph
 * plugins mixed), 2,000 LOOPBACKs per worker with 4 in flight; every answer is checked, and the
 * figures must have been measured (never how fast). Needs plugins/graph built (see {@link
 * GraphPluginFiles}).
 */
@Timeout(300)
class LoadBenchIT {
    @Test
    void everyCommandIsAnsweredOnceAndMeasured() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        long runFoldersBefore = runFolders(tmp);
        LoadOptions parsed = LoadOptions.parse(
                List.of("--hosts", "2", "--workers-per-host", "2", "--commands", "2000", "--in-flight", "4"));
        LoadOptions options = new LoadOptions(
                parsed.hosts(),
                parsed.workersPerHost(),
                parsed.commands(),
                parsed.inFlight(),
                null,
                TestWorkers.security().workerUser());
        List<String> progress = new ArrayList<>();

        LoadBench.Result result = LoadBench.run(options, progress::add);

        assertThat(result.failures()).isEmpty();
        assertThat(result.passed()).isTrue();
        assertThat(result.asked()).isEqualTo(8000);
        assertThat(result.answered()).isEqualTo(8000);
        assertThat(result.errors()).isZero();
        assertThat(result.tallies()).extracting(LoadTally::host).containsExactly(0, 1);
        assertThat(result.workers()).hasSize(4).allSatisfy(w -> {
            assertThat(w.clean()).isTrue();
            assertThat(w.answered()).isEqualTo(2000);
        });
        assertThat(result.workers())
                .extracting(LoadTally.Worker::plugin)
                .containsExactly("worker_graph", "worker_graph_java", "worker_graph_java", "worker_graph");
        assertThat(result.latency(null).count()).isEqualTo(8000);
        assertThat(result.latency("worker_graph").count()).isEqualTo(4000);
        assertThat(result.latency(null).percentileNs(0.99))
                .isPositive()
                .isGreaterThanOrEqualTo(result.latency(null).percentileNs(0.5));
        assertThat(result.cpuByRole()).containsOnlyKeys("host", "daemon", "worker_graph", "worker_graph_java");
        assertThat(result.cpuMicrosPerCommand("host")).isPositive();
        assertThat(result.cpuMicrosPerCommand("worker_graph")).isPositive();
        assertThat(result.cpuMicrosPerCommand("worker_graph_java")).isPositive();
        assertThat(result.commandsPerSecond()).isPositive();
        assertThat(LoadBench.javaOverNative(result))
                .containsOnlyKeys("worker CPU/command", "p99", "commands/s per worker");
        assertThat(LoadBench.table(result))
                .contains("commands 8000, answered 8000, errors 0")
                .doesNotContain("DIFFERENT", "FAILED");
        assertThat(LoadBench.json(result)).contains("\"passed\" : true", "\"p999\"");
        Path json = Files.createTempDirectory("urom-load-chart").resolve("load.json");
        try {
            assertThat(LoadBench.writeChart(json, result)).isTrue();
            BufferedImage chart = ImageIO.read(LatencyChart.pathFor(json).toFile());
            assertThat(chart.getWidth()).isEqualTo(Plots.LATENCY_WIDTH);
            assertThat(chart.getHeight()).isEqualTo(Plots.LATENCY_HEIGHT);
        } finally {
            Files.deleteIfExists(LatencyChart.pathFor(json));
            Files.delete(json.getParent());
        }
        assertThat(progress).anyMatch(l -> l.startsWith("every host has its result"));
        assertThat(runFolders(tmp)).isEqualTo(runFoldersBefore);
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive))
                .isEmpty();
    }

    private static long runFolders(Path tmp) throws Exception {
        try (Stream<Path> entries = Files.list(tmp)) {
            return entries.filter(p -> p.getFileName().toString().startsWith(RunFolder.namePrefix("urom-load")))
                    .count();
        }
    }
}
