// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class BenchCommandTest {
    private static final String USAGE = "usage: Demo [--count N] [--file FILE] [--word W] [--each OPTION]...";

    private static BenchCommand demo() {
        return new BenchCommand("Demo", USAGE)
                .count("--count", 1, 9)
                .path("--file", "FILE")
                .text("--word", "W")
                .repeatable("--each", "OPTION");
    }

    @Test
    void optionsNotGivenGiveTheCallersDefaults() {
        BenchCommand.Parsed line = demo().parse(List.of());

        assertThat(line.<Integer>get("--count", 5)).isEqualTo(5);
        assertThat(line.<Path>get("--file", null)).isNull();
        assertThat(line.has("--word")).isFalse();
        assertThat(line.all("--each")).isEmpty();
    }

    @Test
    void valuesThatLookLikeOptionsAreTakenAsValues() {
        BenchCommand.Parsed line =
                demo().parse(List.of("--word", "-", "--each", "-Xmn2m", "--each", "-Dx=y", "--file", "@args"));

        assertThat(line.<String>get("--word", null)).isEqualTo("-");
        assertThat(line.all("--each")).containsExactly("-Xmn2m", "-Dx=y");
        assertThat(line.<Path>get("--file", null)).isEqualTo(Path.of("@args"));
        assertThatThrownBy(() -> demo().parse(List.of("--count", "-1")))
                .hasMessage("--count '-1' is not a whole number from 1 to 9");
    }

    @Test
    void anOptionGivenTwiceKeepsItsLastValue() {
        assertThat(demo().parse(List.of("--count", "2", "--count", "3")).<Integer>get("--count", 0))
                .isEqualTo(3);
    }

    @Test
    void errorsAreOneLineNamingTheArgument() {
        assertThatThrownBy(() -> demo().parse(List.of("--size", "2")))
                .hasMessage("unknown argument '--size'; " + USAGE);
        assertThatThrownBy(() -> demo().parse(List.of("stray"))).hasMessage("unknown argument 'stray'; " + USAGE);
        assertThatThrownBy(() -> demo().parse(List.of("--file"))).hasMessage("--file needs a value; " + USAGE);
        assertThatThrownBy(() -> demo().parse(List.of("--file", "--count", "2")))
                .hasMessage("--file needs a value; " + USAGE);
        assertThatThrownBy(() -> demo().parse(List.of("--count", "ten")))
                .hasMessage("--count 'ten' is not a whole number from 1 to 9");
    }

    @Test
    void parametersAreReadByPosition() {
        BenchCommand line = new BenchCommand("Child", "usage: Child NAME N")
                .parameter("NAME", Function.identity())
                .parameter("N", value -> BenchCommand.count("N", value, 0, 3));

        BenchCommand.Parsed parsed = line.parse(List.of("x", "2"));
        assertThat(parsed.<String>parameter(0)).isEqualTo("x");
        assertThat(parsed.<Integer>parameter(1)).isEqualTo(2);
        assertThatThrownBy(() -> line.parse(List.of("x"))).hasMessage("N needs a value; usage: Child NAME N");
        assertThatThrownBy(() -> line.parse(List.of("x", "4"))).hasMessage("N '4' is not a whole number from 0 to 3");
        assertThatThrownBy(() -> line.parse(List.of("x", "1", "y")))
                .hasMessage("unknown argument 'y'; usage: Child NAME N");
    }

    @Test
    void everyBenchmarksUsageNamesEachOfItsOptions() {
        Map<String, BenchCommand> commands = Map.of(
                BenchOptions.USAGE, BenchOptions.command(),
                LoadOptions.USAGE, LoadOptions.command(),
                SoakOptions.USAGE, SoakOptions.command(),
                FootprintOptions.USAGE, FootprintOptions.command(),
                SandboxBenchOptions.USAGE, SandboxBenchOptions.command(),
                CollBenchOptions.USAGE, CollBenchOptions.command(),
                OsuBenchOptions.USAGE, OsuBenchOptions.command(),
                DispatchInstructions.USAGE, DispatchInstructions.Options.command(),
                WakeupBench.Options.USAGE, WakeupBench.Options.command());

        commands.forEach((usage, command) -> assertThat(command.optionNames())
                .isNotEmpty()
                .allSatisfy(option -> assertThat(usage).contains(option + " ")));
    }
}
