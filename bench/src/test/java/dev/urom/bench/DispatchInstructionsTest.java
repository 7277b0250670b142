package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The arithmetic and parsing of the instruction count, and the dispatch its driver runs, both plugins for real (without valgrind). */
@Timeout(120)
class DispatchInstructionsTest {

    @Test
    void startUpCancelsOutOfTheDifferenceBetweenRuns() {
        List<Integer> commands = List.of(1000, 3000, 5000);
        Map<String, List<Long>> counted = Map.of(
                "native", List.of(900_000_000L + 1000 * 4_000L, 900_000_000L + 3000 * 4_000L, 900_000_000L + 5000 * 4_000L),
                "java", List.of(950_000_000L + 1000 * 6_000L, 950_000_000L + 3000 * 6_000L, 950_000_000L + 5000 * 6_100L));

        assertThat(DispatchInstructions.figures(commands, counted))
                .extracting(Figure::id, Figure::value, Figure::baselineValue, Figure::ratio)
                .containsExactly(
                        tuple("instructions_native", 4000.0, null, null),
                        tuple("instructions_java", 6000.0, 4000.0, 1.5),
                        tuple("instructions_native_2", 4000.0, null, null),
                        tuple("instructions_java_2", 6250.0, 4000.0, 1.5625));
        assertThat(DispatchInstructions.figures(commands, counted).get(1).label())
                .isEqualTo("instructions per command, Java plugin (1000 to 3000)");
    }

    @Test
    void callgrindSummaryLineGivesTheInstructions() {
        List<String> output = List.of("# callgrind format", "version: 1", "events: Ir", "fl=(1) a.c", "fn=(1) main", "16 3",
                "summary: 123456789", "totals: 123456789");

        assertThat(DispatchInstructions.summary(output, "cg.out")).isEqualTo(123_456_789L);
        assertThatThrownBy(() -> DispatchInstructions.summary(List.of("events: Ir", "16 3"), "cg.out"))
                .hasMessage("cg.out has no 'summary:' line: not a finished callgrind output");
        assertThatThrownBy(() -> DispatchInstructions.summary(List.of("summary: lots"), "cg.out"))
                .hasMessage("cg.out: 'summary: lots' does not count instructions");
    }

    @Test
    void optionsNeedGrowingCounts() {
        DispatchInstructions.Options defaults = DispatchInstructions.Options.parse(List.of());
        assertThat(defaults.warmUp()).isEqualTo(20_000);
        assertThat(defaults.commands()).containsExactly(10_000, 30_000);
        assertThat(DispatchInstructions.Options.parse(List.of("--warm-up", "5", "--commands", "1,2,4")).commands()).containsExactly(1, 2, 4);
        assertThatThrownBy(() -> DispatchInstructions.Options.parse(List.of("--commands", "10")))
                .hasMessage("--commands '10' needs two counts at least");
        assertThatThrownBy(() -> DispatchInstructions.Options.parse(List.of("--commands", "10,10")))
                .hasMessage("--commands '10,10' does not grow from count to count");
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
    void driverRefusesABadCountInOneLine() throws Exception {
        Process driver = new ProcessBuilder(JavaCommand.java(), "-cp", System.getProperty("java.class.path"), DispatchDriver.class.getName(),
                "native", "10", "many").redirectErrorStream(true).start();
        driver.getOutputStream().close();
        String output = new String(driver.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(driver.waitFor()).isEqualTo(2);
        assertThat(output).isEqualTo("DispatchDriver: COMMANDS 'many' is not a whole number from 0 to 100000000\n");
    }
}
