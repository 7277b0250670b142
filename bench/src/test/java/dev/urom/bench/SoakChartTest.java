// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SoakChartTest {
    @TempDir
    Path dir;

    /** A sample at minute {@code i / 6}; the daemon's RSS grows by 1 MiB a sample, everything else stays. */
    private static SoakBench.Sample sample(int i) {
        return new SoakBench.Sample(
                i * 10.0,
                i,
                i * 100L,
                0,
                80_000 + 1024L * i,
                40,
                30,
                0,
                1,
                60_000,
                25,
                20,
                3,
                10,
                50_000,
                6,
                30_000,
                20_000,
                9);
    }

    @Test
    void everySeriesGroupIsAPanelAgainstMinutes() {
        List<SoakBench.Sample> samples =
                IntStream.range(0, 30).mapToObj(SoakChartTest::sample).toList();

        List<Plots.Panel> panels = SoakChart.panels(samples);

        assertThat(panels)
                .extracting(Plots.Panel::axisLabel)
                .containsExactly(
                        "resident set, MiB",
                        "descriptors, threads",
                        "daemon's children",
                        "temp files",
                        "log files",
                        "log size, KiB");
        Plots.Line daemonRss = panels.get(0).lines().get(0);
        assertThat(daemonRss.name()).isEqualTo("daemon RSS");
        assertThat(daemonRss.x()[6]).isEqualTo(1.0);
        assertThat(daemonRss.y()[29] - daemonRss.y()[0]).isEqualTo(29.0);
        assertThat(panels.get(4).lines())
                .extracting(Plots.Line::name)
                .containsExactly("log files", "worker log files", "worker log files' cap");
        assertThat(panels.stream().mapToInt(p -> p.lines().size()).sum()).isEqualTo(15);
    }

    @Test
    void theChartGoesBesideTheJsonWithOnePanelPerGroup() throws IOException {
        List<SoakBench.Sample> samples =
                IntStream.range(0, 30).mapToObj(SoakChartTest::sample).toList();
        SoakBench.Result result = new SoakBench.Result(
                SoakOptions.parse(List.of()),
                samples,
                SoakBench.SERIES.stream().map(s -> s.judge(samples)).toList(),
                30,
                120,
                3000,
                0,
                List.of());

        assertThat(SoakChart.write("SoakBench", dir.resolve("soak.json"), result))
                .isTrue();

        BufferedImage image = ImageIO.read(dir.resolve("soak-soak.png").toFile());
        assertThat(image.getWidth()).isEqualTo(Plots.OVER_TIME_WIDTH);
        assertThat(image.getHeight()).isEqualTo(Plots.PANEL_HEIGHT * 6 + 160);
        assertThat(PlotsTest.differentFromCorner(image)).isGreaterThan(image.getWidth() * image.getHeight() / 200);
        assertThat(PlotsTest.coloured(image)).isGreaterThan(3_000);
    }
}
