// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LogRollingTest {
    @Test
    void theDefaultIsTenMibAndFiveFiles() {
        assertThat(LogRolling.DEFAULT).isEqualTo(new LogRolling(10 * 1024 * 1024, 5));
    }

    @Test
    void theLimitsAreAccepted() {
        assertThat(new LogRolling(4096, 2).maxFiles()).isEqualTo(2);
        assertThat(new LogRolling(Long.MAX_VALUE, 100).maxFileBytes()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aSizeOrCountOutsideTheLimitsIsRefusedWithOneLine() {
        assertThatThrownBy(() -> new LogRolling(4095, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--log-file-size 4095 is below the minimum of 4096 bytes");
        assertThatThrownBy(() -> new LogRolling(-1, 5))
                .hasMessage("--log-file-size -1 is below the minimum of 4096 bytes");
        assertThatThrownBy(() -> new LogRolling(4096, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--log-file-count 1 is not between 2 and 100 (the current file and the rolled ones)");
        assertThatThrownBy(() -> new LogRolling(4096, 101))
                .hasMessage("--log-file-count 101 is not between 2 and 100 (the current file and the rolled ones)");
    }

    @Test
    void rolledFilesAreNumberedAfterTheName() {
        assertThat(LogRolling.rolledName("urom_daemon_dev.log", 1)).isEqualTo("urom_daemon_dev.log.1");
    }
}
