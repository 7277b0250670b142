// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlotsTest {
    @TempDir
    Path dir;

    @Test
    void aChartGoesNextToItsJsonWithTheSuffixForTheJsonEnding() {
        assertThat(Plots.nextTo(Path.of("out", "e2e.json"), "-latency.png"))
                .isEqualTo(Path.of("out", "e2e-latency.png"));
        assertThat(Plots.nextTo(Path.of("soak.json"), "-soak.png")).isEqualTo(Path.of("soak-soak.png"));
        assertThat(Plots.nextTo(Path.of("out", "run.txt"), "-soak.png")).isEqualTo(Path.of("out", "run.txt-soak.png"));
        assertThat(Plots.nextTo(Path.of("out", ".json"), "-latency.png"))
                .isEqualTo(Path.of("out", ".json-latency.png"));
        assertThat(LatencyChart.pathFor(Path.of("b", "e2e.json"))).isEqualTo(Path.of("b", "e2e-latency.png"));
        assertThat(SoakChart.pathFor(Path.of("b", "soak.json"))).isEqualTo(Path.of("b", "soak-soak.png"));
    }

    @Test
    void theLatencyChartIsAPngOfItsSizeWithTheCurvesDrawnInColour() throws IOException {
        Random random = new Random(5);
        Map<String, LatencyCurve> curves = new LinkedHashMap<>();
        curves.put(
                "service",
                LatencySummary.of(LatencyCurveTest.heavyTailed(50_000, random)).curve());
        curves.put(
                "peer",
                LatencySummary.of(Arrays.stream(LatencyCurveTest.heavyTailed(50_000, random))
                                .map(ns -> 4 * ns)
                                .toArray())
                        .curve());
        curves.put("floor (p50, p99)", LatencyCurve.known(8_000, 14_000));
        Path png = dir.resolve("nested").resolve("e2e-latency.png");

        Plots.latency(png, "round trips", "lines and marks", curves);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).as("a PNG ImageIO reads").isNotNull();
        assertThat(image.getWidth()).isEqualTo(Plots.LATENCY_WIDTH);
        assertThat(image.getHeight()).isEqualTo(Plots.LATENCY_HEIGHT);
        assertThat(differentFromCorner(image))
                .as("pixels other than the background")
                .isGreaterThan(image.getWidth() * image.getHeight() / 200);
        assertThat(coloured(image))
                .as("pixels of the curves' colours (axes and text are grey)")
                .isGreaterThan(2_000);
        assertThat(System.getProperty("java.awt.headless")).isEqualTo("true");
        try (var left = Files.list(png.getParent())) {
            assertThat(left).containsExactly(png);
        }
    }

    @Test
    void theCurvesOverTimeAreOnePanelEachInOnePng() throws IOException {
        int n = 9_000;
        double[] minutes = IntStream.range(0, n).mapToDouble(i -> i / 6.0).toArray();
        double[] rss = IntStream.range(0, n)
                .mapToDouble(i -> 60 + 5 * Math.sin(i / 50.0))
                .toArray();
        double[] fds = IntStream.range(0, n).mapToDouble(i -> 20 + i % 3).toArray();
        List<Plots.Panel> panels = List.of(
                new Plots.Panel("resident set, MiB", List.of(new Plots.Line("daemon", minutes, rss))),
                new Plots.Panel(
                        "descriptors",
                        List.of(
                                new Plots.Line("daemon fds", minutes, fds),
                                new Plots.Line("worker fds", minutes, rss))),
                new Plots.Panel("zombies", List.of(new Plots.Line("zombies", minutes, new double[n]))));
        Path png = dir.resolve("soak-soak.png");

        Plots.overTime(png, "soak", "bounded", "minutes since start", panels);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(Plots.OVER_TIME_WIDTH);
        assertThat(image.getHeight()).isEqualTo(Plots.PANEL_HEIGHT * 3 + 160);
        assertThat(differentFromCorner(image)).isGreaterThan(image.getWidth() * image.getHeight() / 200);
        assertThat(coloured(image)).isGreaterThan(2_000);
    }

    @Test
    void aLongCurveKeepsItsEndsAndEveryBucketsLowestAndHighest() {
        int n = 100_000;
        double[] values =
                IntStream.range(0, n).mapToDouble(i -> Math.sin(i / 777.0)).toArray();
        values[31_337] = 50;
        values[77_777] = -50;

        int[] kept = Plots.keptIndices(values, 1000);

        assertThat(kept.length).isLessThanOrEqualTo(1000).isGreaterThan(900);
        assertThat(kept).contains(0, n - 1, 31_337, 77_777);
        assertThat(kept).isSorted().doesNotHaveDuplicates();
        assertThat(Plots.keptIndices(new double[] {3, 1, 2}, 4)).containsExactly(0, 1, 2);
        assertThatThrownBy(() -> Plots.keptIndices(values, 3)).hasMessage("a curve needs room for 4 points, not 3");
    }

    @Test
    void aChartThatCannotBeWrittenIsOneLineOnStderrAndNoFile() throws IOException {
        Path notAFolder = Files.writeString(dir.resolve("plain-file"), "x");
        Path png = notAFolder.resolve("chart.png");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream original = System.err;
        boolean written;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            written = Plots.render(
                    "SomeBench", png, () -> Plots.latency(png, "t", null, Map.of("a", LatencyCurve.known(1, 2))));
        } finally {
            System.setErr(original);
        }

        assertThat(written).isFalse();
        assertThat(Files.exists(png)).isFalse();
        assertThat(err.toString(StandardCharsets.UTF_8).lines().toList())
                .singleElement()
                .asString()
                .startsWith("SomeBench: no chart " + png + ": ");
    }

    @Test
    void theCurvesBySizeAreOnePanelEachOnLogScalesInOnePng() throws IOException {
        double[] bytes = IntStream.range(3, 23).mapToDouble(i -> Math.pow(2, i)).toArray();
        double[] fast = Arrays.stream(bytes).map(b -> 2 + b / 1000).toArray();
        double[] slow = Arrays.stream(bytes).map(b -> 40 + b / 300).toArray();
        List<Plots.Panel> latency = List.of(
                new Plots.Panel(
                        "allreduce: pure latency, µs",
                        List.of(new Plots.Line("offload-c", bytes, slow), new Plots.Line("mpi", bytes, fast))),
                new Plots.Panel(
                        "bcast: pure latency, µs",
                        List.of(new Plots.Line("offload-c", bytes, fast), new Plots.Line("mpi", bytes, slow))));
        Path png = dir.resolve("coll-latency-by-size.png");

        Plots.bySize(png, "latency", "2 ranks", latency, true, null);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(Plots.OVER_TIME_WIDTH);
        assertThat(image.getHeight()).isEqualTo(Plots.BY_SIZE_PANEL_HEIGHT * 2 + 160);
        assertThat(coloured(image)).isGreaterThan(2_000);

        double[] overlap = Arrays.stream(bytes).map(b -> Math.min(99, b / 1000)).toArray();
        Path overlapPng = dir.resolve("coll-overlap-by-size.png");
        Plots.bySize(
                overlapPng,
                "overlap",
                null,
                List.of(new Plots.Panel("bcast: overlap, %", List.of(new Plots.Line("offload-c", bytes, overlap)))),
                false,
                90.0);
        assertThat(coloured(ImageIO.read(overlapPng.toFile()))).isGreaterThan(1_000);
        assertThatThrownBy(() -> Plots.bySize(dir.resolve("a.png"), "t", null, List.of(), true, null))
                .hasMessage("no panels to draw");
    }

    @Test
    void nothingToDrawIsRefused() {
        assertThatThrownBy(() -> Plots.latency(dir.resolve("a.png"), "t", null, Map.of()))
                .hasMessage("no latency curves to draw");
        assertThatThrownBy(() -> Plots.overTime(dir.resolve("a.png"), "t", null, "x", List.of()))
                .hasMessage("no panels to draw");
        assertThatThrownBy(() -> new Plots.Line("rss", new double[2], new double[3]))
                .hasMessage("line rss has 2 x values and 3 y values");
    }

    static long differentFromCorner(BufferedImage image) {
        int background = image.getRGB(0, 0);
        return pixels(image).filter(rgb -> rgb != background).count();
    }

    /** Pixels whose channels differ by more than 80: not black, white or grey. */
    static long coloured(BufferedImage image) {
        return pixels(image)
                .filter(rgb -> {
                    int r = (rgb >> 16) & 0xff;
                    int g = (rgb >> 8) & 0xff;
                    int b = rgb & 0xff;
                    return Math.max(r, Math.max(g, b)) - Math.min(r, Math.min(g, b)) > 80;
                })
                .count();
    }

    private static java.util.stream.IntStream pixels(BufferedImage image) {
        return IntStream.range(0, image.getHeight())
                .flatMap(y -> IntStream.range(0, image.getWidth()).map(x -> image.getRGB(x, y)));
    }
}
