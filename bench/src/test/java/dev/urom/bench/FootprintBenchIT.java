// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.testkit.TestWorkers;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small real footprint run: the distribution's daemon (cli/target/urom), one worker of each kind,
 * two single starts and four workers at once, the workers as the test's own user (as root: root,
 * since another user may not read the checkout). It checks that every figure was measured and holds
 * together (a proportional set within its resident set, every kind present), never how small or
 * fast, and that no worker outlives the run.
 */
@Timeout(300)
class FootprintBenchIT {
    @TempDir
    Path dir;

    @Test
    void everyKindOfWorkerIsMeasuredAloneAndAtOnceAndNothingIsLeft() throws Exception {
        List<String> args = new ArrayList<>(List.of("--workers", "4", "--starts", "2"));
        String workerUser = TestWorkers.security().workerUser();
        if (workerUser != null) {
            args.addAll(List.of("--worker-user", workerUser));
        }
        FootprintOptions options = FootprintOptions.parse(args);
        List<String> progress = new ArrayList<>();

        FootprintBench.Result result = FootprintBench.run(options, progress::add);

        assertThat(result.alone()).containsOnlyKeys(FootprintBench.Kind.values());
        assertThat(result.alone().values()).allSatisfy(FootprintBenchIT::measured);
        measured(result.floor());
        assertThat(result.atOnce().workers()).isEqualTo(4);
        assertThat(result.atOnce().byKind()).containsOnlyKeys(FootprintBench.Kind.C, FootprintBench.Kind.JAVA);
        assertThat(result.atOnce().byKind().values()).allSatisfy(FootprintBenchIT::measured);
        assertThat(result.atOnce().totalPssKb())
                .isGreaterThanOrEqualTo(4
                        * Math.min(
                                result.atOnce()
                                        .byKind()
                                        .get(FootprintBench.Kind.C)
                                        .memory()
                                        .pssKb(),
                                result.atOnce()
                                        .byKind()
                                        .get(FootprintBench.Kind.JAVA)
                                        .memory()
                                        .pssKb()));
        assertThat(result.atOnce().toRunningMs()).isPositive();
        assertThat(result.atOnce().daemonRssKb()).isPositive();
        assertThat(result.workerStarts().count()).isEqualTo(2);
        assertThat(result.workerStarts().wallP50Ms()).isPositive();
        assertThat(result.floorStarts().wallP50Ms()).isPositive();
        assertThat(FootprintBench.table(result)).contains("4 workers at once to RUNNING");
        assertThat(FootprintBench.json(result)).contains("\"at_once\": {\"workers\": 4");
        assertThat(result.atOnce().toRunningNs()).hasSize(4);
        for (long ns : result.atOnce().toRunningNs()) {
            assertThat(ns)
                    .isPositive()
                    .isLessThanOrEqualTo(Math.round(result.atOnce().toRunningMs() * 1e6));
        }
        assertThat(FootprintBench.writeChart(dir.resolve("footprint.json"), result))
                .isTrue();
        BufferedImage chart =
                ImageIO.read(LatencyChart.pathFor(dir.resolve("footprint.json")).toFile());
        assertThat(chart.getWidth()).isEqualTo(Plots.LATENCY_WIDTH);
        assertThat(progress).anyMatch(line -> line.startsWith("daemon pid "));
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive))
                .as("no daemon or worker outlives the run")
                .isEmpty();
    }

    private static void measured(FootprintBench.Measured process) {
        assertThat(process.memory().pssKb())
                .isPositive()
                .isLessThanOrEqualTo(process.memory().rssKb());
        assertThat(process.memory().pssAnonKb())
                .isPositive()
                .isLessThanOrEqualTo(process.memory().pssKb());
    }
}
