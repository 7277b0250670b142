// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The charts of {@link CollBench}: {@code FILE.json} gets {@code FILE-latency-by-size.png} (the pure
 * latency by message size, log-log) and {@code FILE-overlap-by-size.png} (the overlap by size, the
 * 90 % target marked) beside it ({@link Plots#bySize}), one panel per collective, one line per
 * implementation, in {@link CollBenchOptions#IMPLS}' order.
 *
 * <p>Stateless. {@link #write} never throws: a chart that cannot be drawn is one line on stderr.
 */
final class CollCharts {
    static final String LATENCY_SUFFIX = "-latency-by-size.png";
    static final String OVERLAP_SUFFIX = "-overlap-by-size.png";

    private CollCharts() {}

    /** Draws both charts of {@code results} next to {@code json}; false when there is nothing to draw or one failed. */
    static boolean write(String program, Path json, CollResults results, CollBenchOptions options) {
        if (results.rows().isEmpty()) {
            return false;
        }
        String subtitle = options.ranks() + " ranks; " + options.placement().describe();
        Path latency = Plots.nextTo(json, LATENCY_SUFFIX);
        Path overlap = Plots.nextTo(json, OVERLAP_SUFFIX);
        boolean drawn = Plots.render(
                program,
                latency,
                () -> Plots.bySize(
                        latency,
                        "bench coll: pure latency by message size",
                        subtitle,
                        panels(results, options.colls(), true),
                        true,
                        null));
        return Plots.render(
                        program,
                        overlap,
                        () -> Plots.bySize(
                                overlap,
                                "bench coll: overlap by message size (computation as long as the" + " pure latency)",
                                subtitle,
                                panels(results, options.colls(), false),
                                false,
                                CollBench.OVERLAP_MIN_PCT))
                && drawn;
    }

    /** One panel per collective with rows: a line per implementation, pure latency (µs) or overlap (%) by bytes. */
    static List<Plots.Panel> panels(CollResults results, List<String> colls, boolean latency) {
        List<Plots.Panel> panels = new ArrayList<>();
        for (String coll : colls) {
            List<Plots.Line> lines = new ArrayList<>();
            for (String impl : CollBenchOptions.IMPLS) {
                List<CollResults.Row> rows = results.rows().stream()
                        .filter(r -> r.collective().equals(coll) && r.impl().equals(impl))
                        .sorted(java.util.Comparator.comparingLong(CollResults.Row::bytes))
                        .toList();
                if (!rows.isEmpty()) {
                    lines.add(new Plots.Line(
                            impl,
                            rows.stream().mapToDouble(CollResults.Row::bytes).toArray(),
                            rows.stream()
                                    .mapToDouble(r -> latency ? r.pureUs() : r.overlapPct())
                                    .toArray()));
                }
            }
            if (!lines.isEmpty()) {
                panels.add(new Plots.Panel(coll + (latency ? ": pure latency, µs" : ": overlap, %"), lines));
            }
        }
        return panels;
    }
}
