// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WorkerLogRetentionTest {
    @Test
    void theDefaultKeeps64EndedWorkersLogsForAWeek() {
        assertThat(WorkerLogRetention.DEFAULT).isEqualTo(new WorkerLogRetention(64, Duration.ofDays(7)));
    }

    @Test
    void aCountOutsideItsRangeOrANonPositiveAgeIsOneLine() {
        assertThat(new WorkerLogRetention(0, Duration.ofSeconds(1)).maxEndedWorkers())
                .isZero();
        assertThat(new WorkerLogRetention(100_000, Duration.ofSeconds(1)).maxEndedWorkers())
                .isEqualTo(100_000);
        assertThatThrownBy(() -> new WorkerLogRetention(-1, Duration.ofDays(1)))
                .hasMessage("--worker-log-count -1 is not between 0 and 100000");
        assertThatThrownBy(() -> new WorkerLogRetention(100_001, Duration.ofDays(1)))
                .hasMessage("--worker-log-count 100001 is not between 0 and 100000");
        assertThatThrownBy(() -> new WorkerLogRetention(1, Duration.ZERO))
                .hasMessage("--worker-log-max-age 0s is not positive");
        assertThatThrownBy(() -> new WorkerLogRetention(1, null)).hasMessage("--worker-log-max-age is missing");
    }

    @Test
    void anAgeIsSecondsOrANumberWithAUnit() {
        assertThat(WorkerLogRetention.parseAge("90")).isEqualTo(Duration.ofSeconds(90));
        assertThat(WorkerLogRetention.parseAge("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(WorkerLogRetention.parseAge("30m")).isEqualTo(Duration.ofMinutes(30));
        assertThat(WorkerLogRetention.parseAge("12H")).isEqualTo(Duration.ofHours(12));
        assertThat(WorkerLogRetention.parseAge("7d")).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void anAgeThatIsNotOneIsOneLine() {
        for (String bad : new String[] {"", "7w", "-5", "1.5h", "d", "9999999999"}) {
            assertThatThrownBy(() -> WorkerLogRetention.parseAge(bad))
                    .as(bad)
                    .hasMessage("--worker-log-max-age '" + bad + "' is not a duration (N seconds, or Ns, Nm, Nh, Nd)");
        }
    }
}
