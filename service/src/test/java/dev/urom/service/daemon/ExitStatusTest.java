// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExitStatusTest {
    @Test
    void describesExitsAndSignals() {
        assertThat(ExitStatus.describe(0)).isEqualTo("exited with status 0");
        assertThat(ExitStatus.describe(1)).isEqualTo("exited with status 1");
        assertThat(ExitStatus.describe(128)).isEqualTo("exited with status 128");
        assertThat(ExitStatus.describe(128 + 11)).isEqualTo("was killed by signal 11 (SIGSEGV)");
        assertThat(ExitStatus.describe(128 + 9)).isEqualTo("was killed by signal 9 (SIGKILL)");
        assertThat(ExitStatus.describe(128 + 15)).isEqualTo("was killed by signal 15 (SIGTERM)");
        assertThat(ExitStatus.describe(128 + 6)).isEqualTo("was killed by signal 6 (SIGABRT)");
        assertThat(ExitStatus.describe(128 + 35)).isEqualTo("was killed by signal 35 (SIGRTMIN+1)");
        assertThat(ExitStatus.describe(255)).isEqualTo("exited with status 255");
    }
}
