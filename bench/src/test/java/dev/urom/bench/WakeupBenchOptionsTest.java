// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class WakeupBenchOptionsTest {
    @Test
    void noArgumentsGiveTheDefaults() {
        assertThat(WakeupBench.Options.parse(List.of())).isEqualTo(new WakeupBench.Options(5, 200, null));
    }

    @Test
    void everyOptionIsRead() {
        assertThat(WakeupBench.Options.parse(List.of("--wakes", "20", "--json", "w.json", "--seconds", "2")))
                .isEqualTo(new WakeupBench.Options(2, 20, Path.of("w.json")));
    }

    @Test
    void badArgumentsAreOneLineNamingTheOption() {
        assertThatThrownBy(() -> WakeupBench.Options.parse(List.of("--seconds", "0")))
                .hasMessage("--seconds '0' is not a whole number from 1 to 3600");
        assertThatThrownBy(() -> WakeupBench.Options.parse(List.of("--wakes", "x")))
                .hasMessage("--wakes 'x' is not a whole number from 1 to 1000000");
        assertThatThrownBy(() -> WakeupBench.Options.parse(List.of("--json")))
                .hasMessage("--json needs a value; " + WakeupBench.Options.USAGE);
        assertThatThrownBy(() -> WakeupBench.Options.parse(List.of("--fast")))
                .hasMessage("unknown argument '--fast'; " + WakeupBench.Options.USAGE);
    }
}
