// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HostProcessTest {
    @Test
    void holdsAPositivePidAndADescriptor() {
        assertThat(new HostProcess(1, 0))
                .extracting(HostProcess::pid, HostProcess::pidfd)
                .containsExactly(1, 0);
    }

    @Test
    void refusesAPidThatIsNotPositiveAndANegativeDescriptor() {
        assertThatThrownBy(() -> new HostProcess(0, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pid 0 is not positive");
        assertThatThrownBy(() -> new HostProcess(7, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pidfd -1 is negative");
    }

    @Test
    void aContextThatTellsNoHostProcessesAnswersNotSupported() {
        WorkerContext context = new WorkerContext() {
            @Override
            public long workerId() {
                return 1;
            }

            @Override
            public long pluginId() {
                return 1;
            }

            @Override
            public DomainLookups domain() {
                return DomainLookups.none();
            }
        };

        assertThatThrownBy(() -> context.hostProcess(1))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_SUPPORTED));
    }
}
