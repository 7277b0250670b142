// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuCostTest {

    @Test
    void perOperationFiguresAreNanosecondsOverOperationsByRoleAndInTotal() {
        Map<String, Long> nanos = new LinkedHashMap<>();
        nanos.put("host", 3_000_000L);
        nanos.put("worker", 1_500_000L);
        CpuCost cost = new CpuCost(nanos, 1000);

        assertThat(cost.nanosPerOp("host")).isEqualTo(3000.0);
        assertThat(cost.nanosPerOp("worker")).isEqualTo(1500.0);
        assertThat(cost.totalNanosPerOp()).isEqualTo(4500.0);
        assertThat(cost.microsPerOpByProcess()).containsExactly(entry("host", 3.0), entry("worker", 1.5));
        assertThatThrownBy(() -> cost.nanosPerOp("daemon")).hasMessage("no daemon among [host, worker]");
        assertThatThrownBy(() -> new CpuCost(nanos, 0)).hasMessage("a CPU cost over 0 operations");
    }

    @Test
    void snapshotsOfRealProcessesGiveEachRoleItsOwnTime() throws Exception {
        Process idle = new ProcessBuilder("sleep", "30").start();
        try {
            Map<String, Long> path = new LinkedHashMap<>();
            path.put("host", ProcessHandle.current().pid());
            path.put("worker", idle.pid());
            CpuCost.Snapshot before = CpuCost.snapshot(path);
            long spun = 0;
            for (int i = 0; i < 2_000_000; i++) {
                spun += Long.numberOfTrailingZeros(i * 31L + spun);
            }
            CpuCost cost = CpuCost.between(before, CpuCost.snapshot(path), 10);

            assertThat(spun).isPositive();
            assertThat(cost.nanosByProcess()).containsOnlyKeys("host", "worker");
            assertThat(cost.nanosByProcess().get("host")).isPositive();
            assertThat(cost.nanosByProcess().get("worker"))
                    .isLessThan(cost.nanosByProcess().get("host"));
            assertThat(cost.operations()).isEqualTo(10);
        } finally {
            idle.destroyForcibly().waitFor();
        }
    }
}
