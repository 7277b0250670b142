// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class SandboxBenchOptionsTest {

    @Test
    void noArgumentsGiveTheDefaults() {
        assertThat(SandboxBenchOptions.parse(List.of()))
                .isEqualTo(new SandboxBenchOptions(
                        null,
                        SandboxBenchOptions.DEFAULT_ROUNDS,
                        SandboxBenchOptions.DEFAULT_MESSAGES,
                        SandboxBenchOptions.DEFAULT_REGIONS,
                        SandboxBenchOptions.DEFAULT_BOUNCES,
                        null));
    }

    @Test
    void everyOptionIsRead() {
        assertThat(SandboxBenchOptions.parse(List.of(
                        "--regions",
                        "7",
                        "--json",
                        "out/s.json",
                        "--rounds",
                        "100",
                        "--messages",
                        "3",
                        "--worker-user",
                        "nobody",
                        "--bounces",
                        "9")))
                .isEqualTo(new SandboxBenchOptions(Path.of("out/s.json"), 100, 3, 7, 9, "nobody"));
    }

    @Property
    void anyCountInRangeIsTaken(@ForAll @IntRange(min = 1, max = SandboxBenchOptions.MAX_COUNT) int count) {
        assertThat(SandboxBenchOptions.parse(List.of("--messages", Integer.toString(count)))
                        .messages())
                .isEqualTo(count);
    }

    @Test
    void countsOutsideTheRangeOrNotNumbersAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> SandboxBenchOptions.parse(List.of("--rounds", "0")))
                .hasMessage("--rounds '0' is not a whole number from 1 to 10000000");
        assertThatThrownBy(() -> SandboxBenchOptions.parse(List.of("--regions", "10000001")))
                .hasMessage("--regions '10000001' is not a whole number from 1 to 10000000");
        assertThatThrownBy(() -> SandboxBenchOptions.parse(List.of("--messages", "many")))
                .hasMessage("--messages 'many' is not a whole number from 1 to 10000000");
        assertThatThrownBy(() -> SandboxBenchOptions.parse(List.of("--bounces", "1000001")))
                .hasMessage("--bounces '1000001' is not a whole number from 1 to 1000000");
        assertThatThrownBy(() -> SandboxBenchOptions.parse(List.of("--bounces", "0")))
                .hasMessage("--bounces '0' is not a whole number from 1 to 1000000");
    }

    @Test
    void unknownArgumentsAndMissingValuesAreRefusedWithTheUsage() {
        assertThatThrownBy(() -> SandboxBenchOptions.parse(List.of("--starts", "3")))
                .hasMessage("unknown argument '--starts'; " + SandboxBenchOptions.USAGE);
        assertThatThrownBy(() -> SandboxBenchOptions.parse(List.of("--json")))
                .hasMessage("--json needs a value; " + SandboxBenchOptions.USAGE);
    }

    @Test
    void warmUpIsATenthAndAtLeastOne() {
        assertThat(SandboxBenchOptions.warmUp(1)).isEqualTo(1);
        assertThat(SandboxBenchOptions.warmUp(500)).isEqualTo(50);
    }
}
