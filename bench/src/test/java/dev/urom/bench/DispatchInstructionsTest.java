// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The figures and options of the instruction count, and the dispatch its driver runs, both plugins for real (without valgrind). */
@Timeout(120)
class DispatchInstructionsTest {

    @Test
    void eachRunIsARowAndTheMeansCompareTheJavaPluginWithTheCPlugin() {
        Map<String, List<CallgrindParts>> windows = Map.of(
                "native",
                        List.of(
                                new CallgrindParts(2, 42_900_000, Map.of(13, 37_000L)),
                                new CallgrindParts(2, 42_800_000, Map.of(13, 15_000L))),
                "java",
                        List.of(
                                new CallgrindParts(2, 5_150_000, Map.of()),
                                new CallgrindParts(2, 5_150_000, Map.of())));

        List<Figure> figures = DispatchInstructions.figures(10_000, windows);

        assertThat(figures)
                .extracting(Figure::id, Figure::value, Figure::baselineValue)
                .containsExactly(
                        tuple("instructions_native_run_1", 4290.0, null),
                        tuple("instructions_native_others_run_1", 3.7, null),
                        tuple("instructions_native_run_2", 4280.0, null),
                        tuple("instructions_native_others_run_2", 1.5, null),
                        tuple("instructions_native", 4285.0, null),
                        tuple("instructions_native_spread", 10.0 / 4285.0 * 100, null),
                        tuple("instructions_java_run_1", 515.0, null),
                        tuple("instructions_java_others_run_1", 0.0, null),
                        tuple("instructions_java_run_2", 515.0, null),
                        tuple("instructions_java_others_run_2", 0.0, null),
                        tuple("instructions_java", 515.0, 4285.0),
                        tuple("instructions_java_spread", 0.0, null));
        assertThat(figures.get(0).label()).isEqualTo("instructions per command, C plugin, run 1: dispatching thread");
        assertThat(figures.get(1).label())
                .isEqualTo("instructions per command, C plugin, run 1: the JVM's other threads (1 ran)");
        assertThat(figures.get(10).label())
                .isEqualTo("instructions per command, Java plugin: dispatching thread, mean of 2 runs");
        assertThat(figures.get(10).ratio()).isEqualTo(515.0 / 4285.0);
    }

    @Test
    void optionsNeedTwoRunsAndACommand() {
        DispatchInstructions.Options defaults = DispatchInstructions.Options.parse(List.of());
        assertThat(defaults.warmUp()).isEqualTo(20_000);
        assertThat(defaults.commands()).isEqualTo(10_000);
        assertThat(defaults.runs()).isEqualTo(2);
        DispatchInstructions.Options given =
                DispatchInstructions.Options.parse(List.of("--warm-up", "5", "--commands", "7", "--runs", "3"));
        assertThat(List.of(given.warmUp(), given.commands(), given.runs())).containsExactly(5, 7, 3);
        assertThatThrownBy(() -> DispatchInstructions.Options.parse(List.of("--runs", "1")))
                .hasMessage("--runs '1' is not a whole number from 2 to 100");
        assertThatThrownBy(() -> DispatchInstructions.Options.parse(List.of("--commands", "0")))
                .hasMessage("--commands '0' is not a whole number from 1 to 100000000");
        assertThatThrownBy(() -> DispatchInstructions.Options.parse(List.of("--warm-up", "-1")))
                .hasMessage("--warm-up '-1' is not a whole number from 0 to 100000000");
    }

    @Test
    void bothPluginsAnswerTheLoopbacksTheDriverSends() {
        for (String kind : List.of("native", "java")) {
            try (InProcessDispatch dispatch = InProcessDispatch.open(kind)) {
                for (long data = 1; data <= 100; data++) {
                    assertThat(dispatch.loopback(data).uromContext()).as(kind).isEqualTo(data);
                }
            }
        }
        assertThatThrownBy(() -> InProcessDispatch.open("rust")).hasMessage("plugin 'rust' is neither native nor java");
    }

    @Test
    void driverSendsTheWarmUpAndTheWindowWithoutValgrindToo() throws Exception {
        Process driver = new ProcessBuilder(
                        JavaCommand.java(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        DispatchDriver.class.getName(),
                        "java",
                        "250",
                        "30")
                .redirectErrorStream(true)
                .start();
        driver.getOutputStream().close();
        String output = new String(driver.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(driver.waitFor()).as(output).isZero();
        assertThat(output).endsWith("dispatched 280\n");
    }

    @Test
    void driverRefusesABadCountInOneLine() throws Exception {
        Process driver = new ProcessBuilder(
                        JavaCommand.java(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        DispatchDriver.class.getName(),
                        "native",
                        "10",
                        "many")
                .redirectErrorStream(true)
                .start();
        driver.getOutputStream().close();
        String output = new String(driver.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(driver.waitFor()).isEqualTo(2);
        assertThat(output).isEqualTo("DispatchDriver: COMMANDS 'many' is not a whole number from 0 to 100000000\n");
    }
}
