// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Ellipse2D;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTitleAnnotation;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.Plot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The PNG charts of the benchmarks, drawn with JFreeChart without a display: a percentile chart of
 * latency distributions ({@link #latency}) and panels of curves over time sharing their x axis
 * ({@link #overTime}) or message size ({@link #bySize}). A chart goes next to the JSON it draws ({@link #nextTo}).
 *
 * <p>Loading this class sets {@code java.awt.headless=true} before anything draws: the charts are
 * only ever files, and a machine without a display (CI, a server) then draws them too. Text needs
 * a font the JDK finds through fontconfig (DejaVu, as .ci/run installs).
 *
 * <p>Stateless and thread-safe. {@link #latency}, {@link #overTime} and {@link #bySize} throw {@link IOException}
 * when the file cannot be written; {@link #render} turns any failure into one line on stderr.
 */
final class Plots {
    static final int LATENCY_WIDTH = 1000;
    static final int LATENCY_HEIGHT = 620;
    static final int OVER_TIME_WIDTH = 1000;
    static final int PANEL_HEIGHT = 190;
    static final int BY_SIZE_PANEL_HEIGHT = 260;
    /** Points per curve over time, at most: every sample up to this, else each bucket's lowest and highest. */
    static final int MAX_TIME_POINTS = 2000;

    private static final Color GRID = new Color(0xd0, 0xd0, 0xd0);
    /** Room above a panel's curves, as a share of their range, where its legend goes. */
    private static final double PANEL_LEGEND_MARGIN = 0.35;
    /** Series colours, in order: distinct from each other and from the grey of axes, grid and text. */
    private static final Color[] PALETTE = {
        new Color(0x1f77b4),
        new Color(0xd62728),
        new Color(0x2ca02c),
        new Color(0xff7f0e),
        new Color(0x9467bd),
        new Color(0x8c564b),
        new Color(0xe377c2),
        new Color(0x17becf),
        new Color(0xbcbd22)
    };

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Plots() {}

    /** One curve of a panel: {@code y[i]} at {@code x[i]}, x rising. */
    record Line(String name, double[] x, double[] y) {
        Line {
            if (x.length != y.length) {
                throw new IllegalArgumentException(
                        "line " + name + " has " + x.length + " x values and " + y.length + " y values");
            }
        }
    }

    /** One panel of {@link #overTime}: its y axis label (what and unit) and its curves. */
    record Panel(String axisLabel, List<Line> lines) {
        Panel {
            lines = List.copyOf(lines);
        }
    }

    /** Draws a chart into a file; may fail in any way the graphics stack does. */
    interface Drawing {
        void draw() throws IOException;
    }

    /**
     * {@code json} with its {@code .json} ending (if any) replaced by {@code suffix}, in the same
     * folder: {@code out/e2e.json} and {@code -latency.png} give {@code out/e2e-latency.png}.
     */
    static Path nextTo(Path json, String suffix) {
        String name = json.getFileName().toString();
        String stem = name.endsWith(".json") && name.length() > ".json".length()
                ? name.substring(0, name.length() - ".json".length())
                : name;
        return json.resolveSibling(stem + suffix);
    }

    /**
     * Runs {@code drawing} of {@code png} and says so on stdout; a failure of any kind (no font, no
     * graphics, no room) is one line on stderr naming {@code program} and the file, and false.
     */
    static boolean render(String program, Path png, Drawing drawing) {
        try {
            drawing.draw();
            System.out.println("chart written to " + png);
            return true;
        } catch (IOException | RuntimeException | LinkageError | InternalError | java.awt.AWTError e) {
            String why = e.getMessage() == null
                    ? e.getClass().getSimpleName()
                    : e.getMessage().lines().findFirst().orElse("");
            System.err.println(program + ": no chart " + png + ": " + why);
            return false;
        }
    }

    /**
     * A percentile chart of {@code curves} (name → distribution), in that order: x the fraction of
     * round trips on a "nines" scale (0, 90, 99, 99.9 ... percent, p50 marked), y the latency in
     * µs on a log scale. A sampled curve is a line; one known by a few percentiles only, marks.
     */
    static void latency(Path png, String title, String subtitle, Map<String, LatencyCurve> curves) throws IOException {
        latency(png, title, subtitle, "round trip", curves);
    }

    /** The same chart of what {@code measured} names ("round trip", "command", "start to RUNNING"), in its axis labels. */
    static void latency(Path png, String title, String subtitle, String measured, Map<String, LatencyCurve> curves)
            throws IOException {
        if (curves.isEmpty()) {
            throw new IllegalArgumentException("no latency curves to draw");
        }
        XYSeriesCollection data = new XYSeriesCollection();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer();
        double topNines = 1;
        int series = 0;
        for (Map.Entry<String, LatencyCurve> curve : curves.entrySet()) {
            XYSeries points = new XYSeries(curve.getKey(), false, true);
            for (LatencyCurve.Point point : curve.getValue().points()) {
                double nines = nines(point.fraction());
                topNines = Math.max(topNines, nines);
                points.add(nines, Math.max(1, point.ns()) / 1000.0);
            }
            data.addSeries(points);
            boolean sampled = curve.getValue().sampled();
            renderer.setSeriesLinesVisible(series, sampled);
            renderer.setSeriesShapesVisible(series, !sampled);
            renderer.setSeriesStroke(series, new BasicStroke(2f));
            renderer.setSeriesPaint(series, PALETTE[series % PALETTE.length]);
            renderer.setSeriesShape(series, new Ellipse2D.Double(-5, -5, 10, 10));
            series++;
        }
        NumberAxis x = new NumberAxis("share at most this long, %");
        x.setRange(0, Math.ceil(topNines * 10) / 10 + 0.05);
        x.setTickUnit(new NumberTickUnit(1, new NinesFormat()));
        LogAxis y = new LogAxis(measured + ", µs (log scale)");
        y.setBase(10);
        y.setSmallestValue(0.001);
        y.setNumberFormatOverride(new SignificantFormat());
        XYPlot plot = plot(data, x, y, renderer);
        ValueMarker median = new ValueMarker(
                nines(0.5),
                Color.GRAY,
                new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 4f}, 0f));
        median.setLabel("p50");
        median.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        median.setLabelTextAnchor(TextAnchor.TOP_LEFT);
        plot.addDomainMarker(median);
        write(png, chart(title, subtitle, plot), LATENCY_WIDTH, LATENCY_HEIGHT);
    }

    /** One chart of {@code panels}, one above the other, each with its legend inside, all against the same x axis ({@code xLabel}). */
    static void overTime(Path png, String title, String subtitle, String xLabel, List<Panel> panels)
            throws IOException {
        if (panels.isEmpty()) {
            throw new IllegalArgumentException("no panels to draw");
        }
        CombinedDomainXYPlot combined = new CombinedDomainXYPlot(new NumberAxis(xLabel));
        combined.setGap(12);
        for (Panel panel : panels) {
            XYSeriesCollection data = new XYSeriesCollection();
            for (Line line : panel.lines()) {
                XYSeries points = new XYSeries(line.name(), false, true);
                for (int i : keptIndices(line.y(), MAX_TIME_POINTS)) {
                    points.add(line.x()[i], line.y()[i]);
                }
                data.addSeries(points);
            }
            XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
            for (int i = 0; i < panel.lines().size(); i++) {
                renderer.setSeriesStroke(i, new BasicStroke(2f));
                renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            }
            NumberAxis y = new NumberAxis(panel.axisLabel());
            y.setAutoRangeIncludesZero(true);
            y.setLabelFont(y.getLabelFont().deriveFont(Font.PLAIN, 11f));
            y.setUpperMargin(PANEL_LEGEND_MARGIN);
            XYPlot plot = plot(data, null, y, renderer);
            LegendTitle legend = new LegendTitle(plot);
            legend.setBackgroundPaint(new Color(255, 255, 255, 220));
            legend.setFrame(new BlockBorder(GRID));
            XYTitleAnnotation inside = new XYTitleAnnotation(0.005, 0.99, legend, RectangleAnchor.TOP_LEFT);
            inside.setMaxWidth(0.9);
            plot.addAnnotation(inside);
            combined.add(plot, 1);
        }
        JFreeChart chart = chart(title, subtitle, combined);
        chart.removeLegend();
        write(png, chart, OVER_TIME_WIDTH, PANEL_HEIGHT * panels.size() + 160);
    }

    /**
     * One chart of {@code panels} (one per collective, say), one above the other, each with its
     * legend inside, all against the message size in bytes on a log scale (ticks every fourfold: 8
     * B, 32 B, ... 1 MiB, 4 MiB); y on a log scale when {@code logY}, else linear from zero; a dashed
     * line at {@code targetY} on each panel when it is not null. Each line keeps its colour across
     * panels when every panel has the same lines.
     */
    static void bySize(Path png, String title, String subtitle, List<Panel> panels, boolean logY, Double targetY)
            throws IOException {
        if (panels.isEmpty()) {
            throw new IllegalArgumentException("no panels to draw");
        }
        LogAxis x = new LogAxis("message size, bytes (log scale)");
        x.setBase(2);
        double smallest = panels.stream()
                .flatMap(p -> p.lines().stream())
                .flatMapToDouble(l -> java.util.Arrays.stream(l.x()))
                .min()
                .orElse(1);
        double largest = panels.stream()
                .flatMap(p -> p.lines().stream())
                .flatMapToDouble(l -> java.util.Arrays.stream(l.x()))
                .max()
                .orElse(1);
        // Every doubling labelled over a dozen of them at most, else every fourfold.
        x.setTickUnit(new NumberTickUnit(Math.log(largest / smallest) / Math.log(2) <= 12 ? 1 : 2));
        x.setNumberFormatOverride(new BytesFormat());
        CombinedDomainXYPlot combined = new CombinedDomainXYPlot(x);
        combined.setGap(12);
        for (Panel panel : panels) {
            XYSeriesCollection data = new XYSeriesCollection();
            for (Line line : panel.lines()) {
                XYSeries points = new XYSeries(line.name(), false, true);
                for (int i = 0; i < line.x().length; i++) {
                    points.add(line.x()[i], logY ? Math.max(line.y()[i], 1e-3) : line.y()[i]);
                }
                data.addSeries(points);
            }
            XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
            for (int i = 0; i < panel.lines().size(); i++) {
                renderer.setSeriesStroke(i, new BasicStroke(2f));
                renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
                renderer.setSeriesShape(i, new Ellipse2D.Double(-3, -3, 6, 6));
            }
            ValueAxis y;
            if (logY) {
                LogAxis log = new LogAxis(panel.axisLabel() + " (log scale)");
                log.setBase(10);
                log.setSmallestValue(1e-3);
                log.setNumberFormatOverride(new SignificantFormat());
                y = log;
            } else {
                NumberAxis linear = new NumberAxis(panel.axisLabel());
                double top = panel.lines().stream()
                        .flatMapToDouble(l -> java.util.Arrays.stream(l.y()))
                        .max()
                        .orElse(0);
                linear.setRange(0, Math.max(1, Math.max(top, targetY == null ? 0 : targetY)) * 1.08);
                y = linear;
            }
            y.setLabelFont(y.getLabelFont().deriveFont(Font.PLAIN, 11f));
            XYPlot plot = plot(data, null, y, renderer);
            if (targetY != null) {
                ValueMarker target = new ValueMarker(
                        targetY,
                        Color.GRAY,
                        new BasicStroke(
                                1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 4f}, 0f));
                target.setLabel("target " + decimal("0.#").format(targetY));
                target.setLabelAnchor(RectangleAnchor.BOTTOM_RIGHT);
                target.setLabelTextAnchor(TextAnchor.TOP_RIGHT);
                plot.addRangeMarker(target);
            }
            combined.add(plot, 1);
        }
        JFreeChart chart = chart(title, subtitle, combined);
        chart.removeLegend();
        LegendTitle legend = new LegendTitle((XYPlot) combined.getSubplots().get(0));
        legend.setFrame(new BlockBorder(GRID));
        legend.setPosition(org.jfree.chart.ui.RectangleEdge.TOP);
        chart.addSubtitle(legend);
        write(png, chart, OVER_TIME_WIDTH, BY_SIZE_PANEL_HEIGHT * panels.size() + 160);
    }

    /**
     * The indices of {@code values} a curve keeps, at most {@code maxPoints} (at least 4), in rising
     * order: all of them when they fit; else the first, the last, and the lowest and the highest of
     * each of (maxPoints - 2) / 2 equal buckets in between, so every peak and trough stays.
     */
    static int[] keptIndices(double[] values, int maxPoints) {
        if (maxPoints < 4) {
            throw new IllegalArgumentException("a curve needs room for 4 points, not " + maxPoints);
        }
        int n = values.length;
        if (n <= maxPoints) {
            return IntStream.range(0, n).toArray();
        }
        TreeSet<Integer> kept = new TreeSet<>(List.of(0, n - 1));
        int buckets = (maxPoints - 2) / 2;
        int inner = n - 2;
        for (int b = 0; b < buckets; b++) {
            int from = 1 + (int) ((long) inner * b / buckets);
            int to = 1 + (int) ((long) inner * (b + 1) / buckets);
            int low = from;
            int high = from;
            for (int i = from; i < to; i++) {
                if (values[i] < values[low]) {
                    low = i;
                }
                if (values[i] > values[high]) {
                    high = i;
                }
            }
            if (from < to) {
                kept.add(low);
                kept.add(high);
            }
        }
        return kept.stream().mapToInt(Integer::intValue).toArray();
    }

    private static DecimalFormat decimal(String pattern) {
        return new DecimalFormat(pattern, DecimalFormatSymbols.getInstance(Locale.ROOT));
    }

    /** -log10(1 - fraction): 1 at p90, 2 at p99, 3 at p99.9. */
    static double nines(double fraction) {
        return -Math.log10(1 - fraction);
    }

    private static XYPlot plot(XYSeriesCollection data, NumberAxis x, ValueAxis y, XYLineAndShapeRenderer renderer) {
        XYPlot plot = new XYPlot(data, x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(GRID);
        plot.setRangeGridlinePaint(GRID);
        return plot;
    }

    private static JFreeChart chart(String title, String subtitle, Plot plot) {
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        if (subtitle != null) {
            chart.addSubtitle(new TextTitle(subtitle));
        }
        return chart;
    }

    /** Writes the PNG beside its final name and moves it there, so a failure leaves no half-written chart. */
    private static void write(Path png, JFreeChart chart, int width, int height) throws IOException {
        Path parent = png.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path partial = parent.resolve(png.getFileName() + ".partial");
        try {
            ChartUtils.saveChartAsPNG(partial.toFile(), chart, width, height);
            Files.move(partial, png, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /** The tick labels of a log axis: two significant digits, no exponent (158489.3 → 160,000; 6.31 → 6.3). */
    private static final class SignificantFormat extends NumberFormat {
        private static final MathContext TWO_DIGITS = new MathContext(2);
        private final DecimalFormat plain = decimal("#,##0.###");

        @Override
        public StringBuffer format(double value, StringBuffer to, FieldPosition position) {
            return to.append(plain.format(
                    value == 0 || !Double.isFinite(value)
                            ? value
                            : new BigDecimal(value).round(TWO_DIGITS).doubleValue()));
        }

        @Override
        public StringBuffer format(long value, StringBuffer to, FieldPosition position) {
            return format((double) value, to, position);
        }

        @Override
        public Number parse(String text, ParsePosition position) {
            throw new UnsupportedOperationException("a log axis only formats");
        }
    }

    /** The tick labels of a bytes axis: 8 B, 512 B, 2 KiB, 4 MiB (whole KiB and MiB where they are). */
    private static final class BytesFormat extends NumberFormat {
        @Override
        public StringBuffer format(double bytes, StringBuffer to, FieldPosition position) {
            long whole = Math.round(bytes);
            return to.append(
                    Math.abs(bytes - whole) > 1e-6 * Math.max(1, bytes)
                            ? decimal("0.##").format(bytes) + " B"
                            : CollBench.size(whole));
        }

        @Override
        public StringBuffer format(long bytes, StringBuffer to, FieldPosition position) {
            return format((double) bytes, to, position);
        }

        @Override
        public Number parse(String text, ParsePosition position) {
            throw new UnsupportedOperationException("a bytes axis only formats");
        }
    }

    /** The tick labels of a nines axis: the percentile a number of nines stands for (2 → 99). */
    private static final class NinesFormat extends NumberFormat {
        private final DecimalFormat percent = decimal("0.####");

        @Override
        public StringBuffer format(double nines, StringBuffer to, FieldPosition position) {
            return to.append(percent.format(100 * (1 - Math.pow(10, -nines))));
        }

        @Override
        public StringBuffer format(long nines, StringBuffer to, FieldPosition position) {
            return format((double) nines, to, position);
        }

        @Override
        public Number parse(String text, ParsePosition position) {
            throw new UnsupportedOperationException("a nines axis only formats");
        }
    }
}
