// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.UromStatus;
import org.junit.jupiter.api.Test;

class FailureMessageTest {
    @Test
    void aReasonFollowsTheStatus() {
        assertThat(FailureMessage.describe(UromStatus.NOT_FOUND, "no node 7 — try één"))
                .isEqualTo("NOT_FOUND: no node 7 — try één");
    }

    @Test
    void aBlankReasonLeavesTheStatusAlone() {
        assertThat(FailureMessage.describe(UromStatus.INVALID_VALUE, "")).isEqualTo("INVALID_VALUE");
        assertThat(FailureMessage.describe(UromStatus.INVALID_VALUE, "  \t ")).isEqualTo("INVALID_VALUE");
    }

    @Test
    void controlCharactersOfAWorkersReasonNeverReachTheTerminal() {
        assertThat(FailureMessage.describe(UromStatus.UNEXPECTED, "two\nlines \u001b[2J\u2028end"))
                .isEqualTo("UNEXPECTED: two lines  [2J end");
    }
}
