// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of the end-to-end report: a measured value, optionally set against a baseline and a
 * target.
 *
 * @param id stable key for the JSON ({@code round_trip_p50_native})
 * @param label what was measured, for the table
 * @param value the measurement, in {@code unit}
 * @param unit {@code us}, {@code ms} or {@code ops/s}
 * @param baselineLabel the figure compared against, or null
 * @param baselineValue its value in the same unit, or null
 * @param target the target as text ({@code ratio <= 1.5}), or null when the figure has none
 * @param met whether the target was met, or null when there is none or nothing was measured
 * @param unmeasured why there is no value ({@code not supported}), or null when there is one; the
 *     value is then NaN
 * @param parts what the value is the sum of, in {@code unit}, by part in order (a CPU cost by
 *     process: {@code host}, {@code worker}); empty when it is not a sum
 */
record Figure(
        String id,
        String label,
        double value,
        String unit,
        String baselineLabel,
        Double baselineValue,
        String target,
        Boolean met,
        String unmeasured,
        Map<String, Double> parts) {

    Figure {
        parts = Collections.unmodifiableMap(new LinkedHashMap<>(parts));
    }

    /** A figure with neither baseline nor target. */
    static Figure plain(String id, String label, double value, String unit) {
        return new Figure(id, label, value, unit, null, null, null, null, null, Map.of());
    }

    /** A figure compared with a baseline, without a target. */
    static Figure compared(
            String id, String label, double value, String unit, String baselineLabel, double baselineValue) {
        return new Figure(id, label, value, unit, baselineLabel, baselineValue, null, null, null, Map.of());
    }

    /** A figure whose value over the baseline must be at most {@code maxRatio}. */
    static Figure atMostTimes(
            String id,
            String label,
            double value,
            String unit,
            String baselineLabel,
            double baselineValue,
            double maxRatio) {
        return new Figure(
                id,
                label,
                value,
                unit,
                baselineLabel,
                baselineValue,
                atMostTarget(maxRatio),
                value / baselineValue <= maxRatio,
                null,
                Map.of());
    }

    /** A figure whose value over the baseline must be at least {@code minRatio}. */
    static Figure atLeastTimes(
            String id,
            String label,
            double value,
            String unit,
            String baselineLabel,
            double baselineValue,
            double minRatio) {
        return new Figure(
                id,
                label,
                value,
                unit,
                baselineLabel,
                baselineValue,
                atLeastTarget(minRatio),
                value / baselineValue >= minRatio,
                null,
                Map.of());
    }

    /** A figure that must be at most {@code limit} (in its own unit). */
    static Figure atMost(String id, String label, double value, String unit, double limit) {
        return new Figure(
                id,
                label,
                value,
                unit,
                null,
                null,
                "<= " + Report.number(limit) + " " + unit,
                value <= limit,
                null,
                Map.of());
    }

    /** A figure that must be at least {@code limit} (in its own unit). */
    static Figure atLeast(String id, String label, double value, String unit, double limit) {
        return new Figure(
                id,
                label,
                value,
                unit,
                null,
                null,
                ">= " + Report.number(limit) + " " + unit,
                value >= limit,
                null,
                Map.of());
    }

    /**
     * A figure without a value, for the reason {@code why}, and without a baseline either; {@code
     * target} (or null) is what it would have been held to: neither met nor missed.
     */
    static Figure missing(String id, String label, String unit, String target, String why) {
        return new Figure(id, label, Double.NaN, unit, null, null, target, null, why, Map.of());
    }

    /**
     * A figure with a baseline and a target ({@link #atMostTarget}, {@link #atLeastTarget}) that
     * could not be measured, for the reason {@code why}: neither met nor missed.
     */
    static Figure unmeasured(
            String id,
            String label,
            String unit,
            String baselineLabel,
            double baselineValue,
            String target,
            String why) {
        return new Figure(id, label, Double.NaN, unit, baselineLabel, baselineValue, target, null, why, Map.of());
    }

    /**
     * The CPU time per operation of {@code cost}, in microseconds, with its processes as parts,
     * compared with that of {@code baseline} (measured the same way), or standing alone when
     * {@code baseline} is null.
     */
    static Figure cpuPerOp(String id, String label, CpuCost cost, String baselineLabel, CpuCost baseline) {
        return new Figure(
                id,
                label,
                cost.totalNanosPerOp() / 1000.0,
                "us",
                baseline == null ? null : baselineLabel,
                baseline == null ? null : baseline.totalNanosPerOp() / 1000.0,
                null,
                null,
                null,
                cost.microsPerOpByProcess());
    }

    static String atMostTarget(double maxRatio) {
        return "ratio <= " + maxRatio;
    }

    static String atLeastTarget(double minRatio) {
        return "ratio >= " + minRatio;
    }

    /** value / baseline value, or null without a baseline or without a value. */
    Double ratio() {
        return baselineValue == null || unmeasured != null ? null : value / baselineValue;
    }
}
