// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    @Test
    void defaultsWithoutArguments() {
        assertThat(BenchOptions.parse(List.of()))
                .isEqualTo(new BenchOptions(null, 20_000, 5, null, CHostBaseline.Wait.EVENT));
        assertThat(BenchOptions.parse(List.of("--c-host-wait", "event")).cHostWait())
                .isEqualTo(CHostBaseline.Wait.EVENT);
    }

    @Test
    void everyOptionIsRead() {
        BenchOptions options = BenchOptions.parse(List.of(
                "--rounds",
                "500",
                "--json",
                "out/e2e.json",
                "--starts",
                "3",
                "--worker-user",
                "nobody",
                "--c-host-wait",
                "spin"));

        assertThat(options)
                .isEqualTo(new BenchOptions(Path.of("out/e2e.json"), 500, 3, "nobody", CHostBaseline.Wait.SPIN));
        assertThat(options.throughputRounds()).isEqualTo(2500);
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--rounds", "ten")))
                .hasMessage("--rounds 'ten' is not a whole number from 100 to 10000000");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--starts", "0")))
                .hasMessage("--starts '0' is not a whole number from 1 to 1000");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--json")))
                .hasMessageStartingWith("--json needs a value; usage:");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--fast")))
                .hasMessageStartingWith("unknown argument '--fast'; usage:");
        assertThatThrownBy(() -> BenchOptions.parse(List.of("--c-host-wait", "busy")))
                .hasMessage("--c-host-wait 'busy' is neither spin nor event");
    }
}
