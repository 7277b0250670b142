// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one end-to-end run, as a text table and as a JSON document, and the latency
 * distributions behind them ({@code latencies}, name → curve, in order; may be empty), which
 * {@link #printRun} draws next to the JSON ({@link LatencyChart}).
 *
 * <p>Immutable. {@link #writeJson} throws {@link IOException} when the file cannot be written.
 */
record Report(Map<String, Object> settings, List<Figure> figures, Map<String, LatencyCurve> latencies) {
    private static final MathContext SIGNIFICANT = new MathContext(6);
    private static final String[] HEADER = {"figure", "value", "baseline", "ratio", "target", "met?"};
    private static final String PARTS_HEADER = "per process";

    Report {
        settings = Map.copyOf(settings);
        figures = List.copyOf(figures);
        latencies = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(latencies));
    }

    /** A report without latency distributions. */
    Report(Map<String, Object> settings, List<Figure> figures) {
        this(settings, figures, Map.of());
    }

    /**
     * The table, one row per figure, columns padded; ends with a line counting the targets met (and
     * those with a target that could not be measured). Without any target, the target columns and
     * that line are left out (they stay when every target is not measured); with any figure that
     * has {@link Figure#parts()}, a last column lists them ({@code host 12.1 + worker 8.30}).
     */
    String table() {
        boolean withTargets = targetsTotal() + targetsUnmeasured() > 0;
        boolean withParts = figures.stream().anyMatch(f -> !f.parts().isEmpty());
        List<String> columns = new ArrayList<>(Arrays.asList(HEADER).subList(0, withTargets ? HEADER.length : 4));
        if (withParts) {
            columns.add(PARTS_HEADER);
        }
        String[] header = columns.toArray(String[]::new);
        List<String[]> rows = new ArrayList<>();
        rows.add(header);
        for (Figure figure : figures) {
            List<String> row = new ArrayList<>(List.of(
                    figure.label(),
                    figure.unmeasured() != null ? figure.unmeasured() : number(figure.value()) + " " + figure.unit(),
                    figure.baselineLabel() == null
                            ? ""
                            : figure.baselineLabel() + " " + number(figure.baselineValue()) + " " + figure.unit(),
                    figure.ratio() == null ? "" : String.format(Locale.ROOT, "%.2fx", figure.ratio())));
            if (withTargets) {
                row.add(figure.target() == null ? "" : figure.target());
                row.add(
                        figure.met() == null
                                ? (figure.unmeasured() != null && figure.target() != null ? "-" : "")
                                : figure.met() ? "met" : "MISSED");
            }
            if (withParts) {
                row.add(String.join(
                        " + ",
                        figure.parts().entrySet().stream()
                                .map(p -> p.getKey() + " " + number(p.getValue()))
                                .toList()));
            }
            rows.add(row.toArray(String[]::new));
        }
        int[] widths = new int[header.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            appendRow(out, rows.get(r), widths);
            if (r == 0) {
                String[] rule = new String[header.length];
                for (int i = 0; i < rule.length; i++) {
                    rule[i] = "-".repeat(widths[i]);
                }
                appendRow(out, rule, widths);
            }
        }
        if (withTargets) {
            out.append(targetsMet()).append(" of ").append(targetsTotal()).append(" targets met");
            long unmeasured = targetsUnmeasured();
            out.append(unmeasured == 0 ? "" : " (" + unmeasured + " more not measured)")
                    .append('\n');
        }
        return out.toString();
    }

    long targetsMet() {
        return figures.stream().filter(f -> Boolean.TRUE.equals(f.met())).count();
    }

    long targetsTotal() {
        return figures.stream().filter(f -> f.met() != null).count();
    }

    /** Figures with a target and no value ({@link Figure#unmeasured()}): not in {@link #targetsTotal()}. */
    long targetsUnmeasured() {
        return figures.stream()
                .filter(f -> f.target() != null && f.unmeasured() != null)
                .count();
    }

    /**
     * The JSON document: {@code {"settings":{...},"figures":[{...}],"targetsMet":n,"targetsTotal":m}}; a
     * figure's value is null when it was not measured ({@code "unmeasured"} says why); a figure with
     * {@link Figure#parts()} has them last, as {@code "parts": {"host": 12.1, "worker": 8.3}}.
     */
    String json() {
        StringBuilder out = new StringBuilder("{\n  \"settings\": {");
        boolean first = true;
        for (Map.Entry<String, Object> setting : new java.util.TreeMap<>(settings).entrySet()) {
            out.append(first ? "" : ",")
                    .append("\n    ")
                    .append(quote(setting.getKey()))
                    .append(": ")
                    .append(value(setting.getValue()));
            first = false;
        }
        out.append("\n  },\n  \"figures\": [");
        for (int i = 0; i < figures.size(); i++) {
            Figure f = figures.get(i);
            out.append(i == 0 ? "" : ",")
                    .append("\n    {")
                    .append("\"id\": ")
                    .append(quote(f.id()))
                    .append(", \"label\": ")
                    .append(quote(f.label()))
                    .append(", \"value\": ")
                    .append(value(f.value()))
                    .append(", \"unit\": ")
                    .append(quote(f.unit()))
                    .append(", \"baseline\": ")
                    .append(value(f.baselineLabel()))
                    .append(", \"baselineValue\": ")
                    .append(value(f.baselineValue()))
                    .append(", \"ratio\": ")
                    .append(value(f.ratio()))
                    .append(", \"target\": ")
                    .append(value(f.target()))
                    .append(", \"met\": ")
                    .append(value(f.met()))
                    .append(", \"unmeasured\": ")
                    .append(value(f.unmeasured()));
            if (!f.parts().isEmpty()) {
                out.append(", \"parts\": {");
                boolean firstPart = true;
                for (Map.Entry<String, Double> part : f.parts().entrySet()) {
                    out.append(firstPart ? "" : ", ")
                            .append(quote(part.getKey()))
                            .append(": ")
                            .append(value(part.getValue()));
                    firstPart = false;
                }
                out.append('}');
            }
            out.append('}');
        }
        out.append("\n  ],\n  \"targetsMet\": ")
                .append(targetsMet())
                .append(",\n  \"targetsTotal\": ")
                .append(targetsTotal())
                .append("\n}\n");
        return out.toString();
    }

    /** Produces the report of one benchmark run. */
    interface Run {
        Report run() throws IOException, InterruptedException;
    }

    /**
     * Runs a benchmark's main: prints the table, writes the JSON when {@code json} is not null and
     * then, with any latencies, their chart next to it ({@link LatencyChart#write}), and returns the
     * exit status (0, or 1 after one line on stderr naming {@code program}). A chart that cannot be
     * drawn is one line on stderr and leaves the status 0: the figures are measured and written.
     */
    static int printRun(String program, Path json, Run run) {
        try {
            Report report = run.run();
            System.out.print(report.table());
            if (json != null) {
                report.writeJson(json);
                System.out.println("JSON written to " + json);
                LatencyChart.write(program, json, report);
            }
            return 0;
        } catch (IOException | java.io.UncheckedIOException | IllegalStateException | IllegalArgumentException e) {
            System.err.println(program + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            System.err.println(program + ": interrupted");
            return 1;
        }
    }

    void writeJson(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, json(), StandardCharsets.UTF_8);
    }

    /** A value for the table: three significant figures at least, no exponent. */
    static String number(double value) {
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (Math.abs(value) >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static void appendRow(StringBuilder out, String[] row, int[] widths) {
        for (int i = 0; i < row.length; i++) {
            out.append(i == 0 ? "" : " | ").append(row[i]).append(" ".repeat(widths[i] - row[i].length()));
        }
        int end = out.length();
        while (end > 0 && out.charAt(end - 1) == ' ') {
            end--;
        }
        out.setLength(end);
        out.append('\n');
    }

    private static String value(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Double d) {
            return Double.isFinite(d)
                    ? new BigDecimal(d).round(SIGNIFICANT).stripTrailingZeros().toPlainString()
                    : "null";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return quote(value.toString());
    }

    private static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
