// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The growth verdict on synthetic series: a leak, a flat line, a garbage collector's sawtooth, a level reached after warm-up. */
class GrowthVerdictTest {
    private static final GrowthVerdict.Tolerance RSS = new GrowthVerdict.Tolerance(0.05, 4096);

    @Test
    void aSteadyRiseGrows() {
        double[] leak =
                IntStream.range(0, 30).mapToDouble(i -> 114_000 + 2_200.0 * i).toArray();

        GrowthVerdict.Verdict verdict = GrowthVerdict.trend("daemon_rss_kb", leak, RSS);

        assertThat(verdict.bounded()).isFalse();
        assertThat(verdict.lastMean()).isGreaterThan(verdict.middleMean());
        assertThat(verdict.reason()).startsWith("last third's mean ").contains(" > middle third's ");
    }

    @Test
    void aFlatLineWithNoiseIsBounded() {
        double[] flat = IntStream.range(0, 30)
                .mapToDouble(i -> 120_000 + (i % 3 == 0 ? 900 : -300))
                .toArray();

        assertThat(GrowthVerdict.trend("daemon_rss_kb", flat, RSS).bounded()).isTrue();
    }

    @Test
    void aSawtoothOfCollectionsIsBounded() {
        double[] sawtooth = IntStream.range(0, 60)
                .mapToDouble(i -> 100_000 + 8_000.0 * (i % 7))
                .toArray();

        assertThat(GrowthVerdict.trend("heap", sawtooth, RSS).bounded()).isTrue();
    }

    @Test
    void aSawtoothOnARisingBaseGrows() {
        double[] leakingSawtooth = IntStream.range(0, 60)
                .mapToDouble(i -> 100_000 + 8_000.0 * (i % 7) + 1_000.0 * i)
                .toArray();

        assertThat(GrowthVerdict.trend("heap", leakingSawtooth, RSS).bounded()).isFalse();
    }

    @Test
    void aRiseDuringWarmUpThatLevelsOffIsBounded() {
        double[] warmUp = IntStream.range(0, 30)
                .mapToDouble(i -> i < 10 ? 80_000 + 6_000.0 * i : 140_000)
                .toArray();

        assertThat(GrowthVerdict.trend("worker_rss_kb", warmUp, RSS).bounded()).isTrue();
    }

    @Test
    void aCountThatRisesByMoreThanItsSlackGrows() {
        double[] fds = {16, 17, 16, 18, 19, 19, 21, 22, 23};

        assertThat(GrowthVerdict.trend("daemon_fds", fds, new GrowthVerdict.Tolerance(0, 2))
                        .bounded())
                .isFalse();
        assertThat(GrowthVerdict.trend("daemon_fds", fds, new GrowthVerdict.Tolerance(0, 4))
                        .bounded())
                .isTrue();
    }

    @Test
    void aCappedSeriesFailsAtItsFirstSampleOverItsCap() {
        double[] files = {2, 10, 40, 64, 66, 65, 67};
        double[] caps = {69, 69, 69, 69, 69, 69, 66};

        GrowthVerdict.Verdict over = GrowthVerdict.capped("worker_log_files", files, caps);
        GrowthVerdict.Verdict within =
                GrowthVerdict.capped("worker_log_files", files, new double[] {69, 69, 69, 69, 69, 69, 69});

        assertThat(over.bounded()).isFalse();
        assertThat(over.reason()).isEqualTo("sample 6 is 67, over its cap 66");
        assertThat(within.bounded()).isTrue();
        assertThat(within.lastMean()).isEqualTo(67);
    }

    @Test
    void tooFewSamplesAreNotJudgedBounded() {
        GrowthVerdict.Verdict verdict = GrowthVerdict.trend("daemon_rss_kb", new double[] {1, 1, 1, 1, 1}, RSS);

        assertThat(verdict.bounded()).isFalse();
        assertThat(verdict.reason())
                .isEqualTo("5 samples are too few to judge (at least 6): run longer or sample more often");
    }
}
