// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.Arrays;

/**
 * Whether a series of soak samples grows without bound. A series judged by trend is bounded when
 * the mean of its last third is at most the mean of its middle third times {@code 1 + relative},
 * plus {@code absolute}: a leak shows as a last third above the middle one, whereas a level that
 * settles after warm-up (the first third is left out) or a sawtooth of garbage collections does
 * not. A series judged by a cap is bounded when no sample exceeds its cap. Fewer than {@value
 * #MIN_SAMPLES} samples are too few to judge, which counts as not bounded.
 *
 * <p>Stateless; thread-safe.
 */
final class GrowthVerdict {
    /** Two samples in each third. */
    static final int MIN_SAMPLES = 6;

    private GrowthVerdict() {}

    /**
     * How much a series may rise from its middle third to its last.
     *
     * @param relative the allowed rise as a fraction of the middle third's mean
     * @param absolute the allowed rise in the series' unit, on top of {@code relative}
     */
    record Tolerance(double relative, double absolute) {}

    /**
     * What was decided about one series.
     *
     * @param middleMean the mean of the middle third (for a capped series: the cap)
     * @param lastMean the mean of the last third (for a capped series: the largest sample)
     * @param reason one line: why it is or is not bounded
     */
    record Verdict(String series, boolean bounded, double middleMean, double lastMean, String reason) {}

    /** The trend verdict on {@code values}, in sample order. */
    static Verdict trend(String series, double[] values, Tolerance tolerance) {
        if (values.length < MIN_SAMPLES) {
            return tooFew(series, values.length);
        }
        int third = values.length / 3;
        double middle = mean(values, third, 2 * third);
        double last = mean(values, values.length - third, values.length);
        double allowed = middle * (1 + tolerance.relative()) + tolerance.absolute();
        boolean bounded = last <= allowed;
        String reason = String.format(
                java.util.Locale.ROOT,
                "last third's mean %.1f %s middle third's %.1f + %.0f%% + %.1f = %.1f",
                last,
                bounded ? "<=" : ">",
                middle,
                tolerance.relative() * 100,
                tolerance.absolute(),
                allowed);
        return new Verdict(series, bounded, middle, last, reason);
    }

    /** The cap verdict on {@code values}: each sample at most the cap given with it. */
    static Verdict capped(String series, double[] values, double[] caps) {
        if (values.length < MIN_SAMPLES) {
            return tooFew(series, values.length);
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] > caps[i]) {
                return new Verdict(
                        series,
                        false,
                        caps[i],
                        values[i],
                        String.format(
                                java.util.Locale.ROOT, "sample %d is %.0f, over its cap %.0f", i, values[i], caps[i]));
            }
        }
        double largest = Arrays.stream(values).max().orElse(0);
        return new Verdict(
                series,
                true,
                Arrays.stream(caps).min().orElse(0),
                largest,
                String.format(
                        java.util.Locale.ROOT,
                        "every sample within its cap (largest %.0f, smallest cap %.0f)",
                        largest,
                        Arrays.stream(caps).min().orElse(0)));
    }

    private static Verdict tooFew(String series, int samples) {
        return new Verdict(
                series,
                false,
                Double.NaN,
                Double.NaN,
                samples + " samples are too few to judge (at least " + MIN_SAMPLES
                        + "): run longer or sample more often");
    }

    private static double mean(double[] values, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += values[i];
        }
        return sum / (to - from);
    }
}
