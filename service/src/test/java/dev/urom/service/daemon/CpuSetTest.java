// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CpuSetTest {
    @Test
    void parsesTheKernelListForm() {
        CpuSet set = CpuSet.parse(" 0-2,5,8-9\n");
        assertThat(set.toString()).isEqualTo("0-2,5,8-9");
        assertThat(set.contains(0)).isTrue();
        assertThat(set.contains(2)).isTrue();
        assertThat(set.contains(3)).isFalse();
        assertThat(set.contains(5)).isTrue();
        assertThat(set.contains(9)).isTrue();
        assertThat(set.contains(10)).isFalse();
        assertThat(set.contains(-1)).isFalse();
    }

    @Test
    void refusesBadItems() {
        assertThatThrownBy(() -> CpuSet.parse("0-1,x")).hasMessage("cpu list '0-1,x' has an invalid item 'x'");
        assertThatThrownBy(() -> CpuSet.parse("3-1")).hasMessage("cpu list '3-1' has an invalid item '3-1'");
    }

    @Test
    void thisProcessMayRunOnAtLeastOneCpu() {
        CpuSet own = CpuSet.ofThisProcess();
        assertThat(own.toString()).isNotEmpty();
        int count = 0;
        for (int cpu = 0; cpu < 4096; cpu++) {
            count += own.contains(cpu) ? 1 : 0;
        }
        assertThat(count).isEqualTo(Runtime.getRuntime().availableProcessors());
    }
}
