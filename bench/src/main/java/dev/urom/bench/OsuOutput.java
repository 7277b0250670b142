// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The table an OSU Micro-Benchmarks non-blocking collective test prints ({@code osu_iallreduce}
 * and its kin, version 7): {@code #} lines (title, datatype, header), then one row per message
 * size: size, overall, compute, pure communication (µs), overlap (%), and with {@code -c} the
 * validation ({@code Pass} or {@code Fail}). Other lines (an MPI library's warnings, ours) are
 * skipped. Immutable.
 *
 * @param title the first {@code #} line, without its {@code # }
 * @param rows the rows in the order printed
 */
record OsuOutput(String title, List<Row> rows) {
    /** One message size's figures; {@code validated} is null without {@code -c}. */
    record Row(long bytes, double overallUs, double computeUs, double pureUs, double overlapPct, Boolean validated) {}

    OsuOutput {
        rows = List.copyOf(rows);
    }

    /** Reads the benchmark's output; a row it cannot read is skipped, not guessed. */
    static OsuOutput parse(String output) {
        String title = "";
        List<Row> rows = new ArrayList<>();
        for (String raw : output.split("\n", -1)) {
            String line = raw.strip();
            if (line.startsWith("#")) {
                if (title.isEmpty() && line.length() > 1) {
                    title = line.substring(1).strip();
                }
                continue;
            }
            Row row = row(line.split("\\s+"));
            if (row != null) {
                rows.add(row);
            }
        }
        return new OsuOutput(title, rows);
    }

    private static Row row(String[] fields) {
        if (fields.length != 5 && fields.length != 6) {
            return null;
        }
        try {
            long bytes = Long.parseLong(fields[0]);
            double[] figures = new double[4];
            for (int i = 0; i < 4; i++) {
                figures[i] = Double.parseDouble(fields[i + 1]);
                if (!Double.isFinite(figures[i]) || figures[i] < 0) {
                    return null;
                }
            }
            Boolean validated = null;
            if (fields.length == 6) {
                switch (fields[5]) {
                    case "Pass" -> validated = true;
                    case "Fail" -> validated = false;
                    default -> {
                        return null;
                    }
                }
            }
            return bytes < 0 ? null : new Row(bytes, figures[0], figures[1], figures[2], figures[3], validated);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The row of {@code bytes}, or null. */
    Row row(long bytes) {
        return rows.stream().filter(r -> r.bytes() == bytes).findFirst().orElse(null);
    }
}
