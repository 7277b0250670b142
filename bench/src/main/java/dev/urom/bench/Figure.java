package dev.urom.bench;

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
 * @param met whether the target was met, or null when there is none
 */
record Figure(String id, String label, double value, String unit, String baselineLabel, Double baselineValue,
        String target, Boolean met) {

    /** A figure with neither baseline nor target. */
    static Figure plain(String id, String label, double value, String unit) {
        return new Figure(id, label, value, unit, null, null, null, null);
    }

    /** A figure compared with a baseline, without a target. */
    static Figure compared(String id, String label, double value, String unit, String baselineLabel, double baselineValue) {
        return new Figure(id, label, value, unit, baselineLabel, baselineValue, null, null);
    }

    /** A figure whose value over the baseline must be at most {@code maxRatio}. */
    static Figure atMostTimes(String id, String label, double value, String unit, String baselineLabel, double baselineValue,
            double maxRatio) {
        return new Figure(id, label, value, unit, baselineLabel, baselineValue, "ratio <= " + maxRatio,
                value / baselineValue <= maxRatio);
    }

    /** A figure whose value over the baseline must be at least {@code minRatio}. */
    static Figure atLeastTimes(String id, String label, double value, String unit, String baselineLabel, double baselineValue,
            double minRatio) {
        return new Figure(id, label, value, unit, baselineLabel, baselineValue, "ratio >= " + minRatio,
                value / baselineValue >= minRatio);
    }

    /** A figure that must be at most {@code limit} (in its own unit). */
    static Figure atMost(String id, String label, double value, String unit, double limit) {
        return new Figure(id, label, value, unit, null, null, "<= " + Report.number(limit) + " " + unit, value <= limit);
    }

    /** value / baseline value, or null without a baseline. */
    Double ratio() {
        return baselineValue == null ? null : value / baselineValue;
    }
}
