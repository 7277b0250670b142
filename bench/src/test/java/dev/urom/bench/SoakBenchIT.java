// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.testkit.TestWorkers;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short real soak: a daemon process, its long-lived worker under load and cycles of four
 * workers, sampled every second; the samples are real and the verdicts are drawn from them. Needs
 * plugins/graph built (see {@link GraphPluginFiles}).
 */
@Timeout(300)
class SoakBenchIT {
    private static final int KEPT_LOGS = 2;

    @Test
    void aShortSoakSamplesEveryProcessAndJudgesEachSeries(@TempDir Path out) throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        long runFoldersBefore = runFolders(tmp);
        SoakOptions options = SoakOptions.parse(
                List.of("--seconds", "40", "--sample-seconds", "1", "--worker-log-count", Integer.toString(KEPT_LOGS)));
        String workerUser = TestWorkers.security().workerUser();
        options = new SoakOptions(
                options.duration(),
                options.sampleInterval(),
                options.workerLogCount(),
                options.daemonJavaOptions(),
                null,
                null,
                workerUser);
        List<String> progress = new ArrayList<>();

        SoakBench.Result result = SoakBench.run(options, progress::add);

        assertThat(result.failures()).isEmpty();
        assertThat(result.errors()).isZero();
        assertThat(result.cycles()).isGreaterThanOrEqualTo(3);
        assertThat(result.workersStarted()).isEqualTo(result.cycles() * SoakBench.WORKERS_PER_CYCLE);
        List<SoakBench.Sample> samples = result.samples();
        assertThat(samples).hasSizeGreaterThanOrEqualTo(GrowthVerdict.MIN_SAMPLES);
        assertThat(progress).hasSize(samples.size() + 1);
        assertThat(samples).allSatisfy(s -> {
            assertThat(s.daemonRssKb()).isGreaterThan(10_000);
            assertThat(s.daemonFds()).isGreaterThan(3);
            assertThat(s.daemonThreads()).isGreaterThan(3);
            assertThat(s.workerRssKb()).isGreaterThan(10_000);
            assertThat(s.workerThreads()).isGreaterThan(3);
            assertThat(s.liveWorkers())
                    .as("at a sample only the long-lived worker runs")
                    .isEqualTo(1);
            assertThat(s.zombies()).isZero();
            assertThat(s.workerLogFiles()).isLessThanOrEqualTo(s.workerLogCap());
            assertThat(s.logFiles()).isGreaterThan(s.workerLogFiles());
        });
        for (int i = 1; i < samples.size(); i++) {
            assertThat(samples.get(i).seconds())
                    .isGreaterThanOrEqualTo(samples.get(i - 1).seconds() + 1);
            assertThat(samples.get(i).commands())
                    .isGreaterThan(samples.get(i - 1).commands());
        }
        SoakBench.Sample last = samples.get(samples.size() - 1);
        assertThat(last.workerLogFiles())
                .as(
                        "%d workers ended, %d logs kept, the running one's, one cycle's not yet pruned",
                        result.workersStarted(), KEPT_LOGS)
                .isLessThanOrEqualTo(KEPT_LOGS + 1 + SoakBench.WORKERS_PER_CYCLE)
                .isLessThan((int) result.workersStarted());
        assertThat(result.verdicts())
                .extracting(GrowthVerdict.Verdict::series)
                .containsExactlyElementsOf(
                        SoakBench.SERIES.stream().map(SoakBench.Series::name).toList());
        assertThat(result.verdicts())
                .filteredOn(v -> List.of("worker_log_files", "zombies", "live_workers", "daemon_log_bytes")
                        .contains(v.series()))
                .hasSize(4)
                .allSatisfy(v -> assertThat(v.bounded()).as(v.reason()).isTrue());

        double[] fds = samples.stream().mapToDouble(SoakBench.Sample::daemonFds).toArray();
        double[] leakingFds = IntStream.range(0, fds.length)
                .mapToDouble(i -> fds[i] + 3.0 * i)
                .toArray();
        assertThat(GrowthVerdict.trend("daemon_fds", leakingFds, new GrowthVerdict.Tolerance(0, 2))
                        .bounded())
                .isFalse();
        assertThat(GrowthVerdict.trend("daemon_fds", fds, new GrowthVerdict.Tolerance(0, 1000))
                        .bounded())
                .isTrue();

        List<String> csv = SoakBench.csv(samples).lines().toList();
        assertThat(csv).hasSize(samples.size() + 1);
        assertThat(csv.get(0).split(",")).containsExactlyElementsOf(SoakBench.COLUMNS);
        assertThat(csv.subList(1, csv.size()))
                .allSatisfy(row -> assertThat(row.split(",")).hasSameSizeAs(SoakBench.COLUMNS));
        assertThat(SoakBench.json(result))
                .contains("\"samples\": [", "\"verdicts\": [", "\"series\": \"daemon_rss_kb\"");
        assertThat(SoakChart.write("SoakBench", out.resolve("soak.json"), result))
                .isTrue();
        BufferedImage chart = ImageIO.read(out.resolve("soak-soak.png").toFile());
        assertThat(chart.getHeight())
                .isEqualTo(Plots.PANEL_HEIGHT * SoakChart.panels(samples).size() + 160);
        assertThat(PlotsTest.coloured(chart)).as("the real samples' curves").isGreaterThan(1_000);
        assertThat(runFolders(tmp)).isEqualTo(runFoldersBefore);
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive))
                .isEmpty();
    }

    private static long runFolders(Path tmp) throws Exception {
        try (Stream<Path> entries = Files.list(tmp)) {
            return entries.filter(p -> p.getFileName().toString().startsWith(RunFolder.namePrefix("urom-soak")))
                    .count();
        }
    }
}
