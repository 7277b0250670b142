// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProcFactsTest {
    @Test
    void theMemoryOfAnSmapsRollupIsItsRssAndPssLines() {
        List<String> rollup = List.of(
                "55d0c0000000-7ffd5a1f2000 ---p 00000000 00:00 0                          [rollup]",
                "Rss:               64124 kB",
                "Pss:               39097 kB",
                "Pss_Dirty:         33826 kB",
                "Pss_Anon:          28884 kB",
                "Pss_File:          10213 kB",
                "Pss_Shmem:             0 kB",
                "Shared_Clean:      27000 kB");

        assertThat(ProcFacts.memory(rollup)).isEqualTo(new ProcFacts.Memory(64124, 39097, 28884, 10213));
    }

    @Test
    void aLineAnOlderKernelLacksCountsZero() {
        assertThat(ProcFacts.memory(List.of("Rss: 100 kB", "Pss: 80 kB")))
                .isEqualTo(new ProcFacts.Memory(100, 80, 0, 0));
    }

    @Test
    void thisProcessHasAMemoryWhosePssIsAtMostItsRss() {
        ProcFacts.Memory memory =
                ProcFacts.memory(ProcessHandle.current().pid()).orElseThrow();

        assertThat(memory.pssKb()).isPositive().isLessThanOrEqualTo(memory.rssKb());
        assertThat(memory.pssAnonKb() + memory.pssFileKb()).isLessThanOrEqualTo(memory.pssKb());
    }

    @Test
    void aProcessThatIsGoneHasNoMemory() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();

        assertThat(ProcFacts.memory(gone.pid())).isEmpty();
    }
}
