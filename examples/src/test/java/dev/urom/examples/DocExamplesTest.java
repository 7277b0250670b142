// SPDX-License-Identifier: Apache-2.0
package dev.urom.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.examples.DocExamples.Example;
import dev.urom.examples.DocExamples.Mode;
import dev.urom.examples.DocExamples.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How {@link DocExamples} reads a page: which blocks are shell examples, their markers, transcripts and wildcards. */
class DocExamplesTest {
    @Test
    void onlyShellBlocksAreExamplesAndEachTakesTheMarkerJustBeforeIt() {
        String page = """
                Text.

                <!-- example: not run (needs a DPU) -->
                ```
                sudo reboot
                ```

                ```java
                class A {}
                ```

                <!-- example: run with a daemon -->
                ```sh
                bin/urom workers
                ```

                ```text
                not a command
                ```

                ```console
                bin/urom plugins --scan
                ```
                """;

        List<Example> examples = DocExamples.of("p.md", page);

        assertThat(examples).extracting(Example::mode).containsExactly(Mode.NOT_RUN, Mode.WITH_DAEMON, Mode.ALONE);
        assertThat(examples.get(0).reason()).isEqualTo("needs a DPU");
        assertThat(examples.get(0).where()).isEqualTo("p.md:4");
        assertThat(examples.get(2).text()).isEqualTo("bin/urom plugins --scan\n");
    }

    @Test
    void aMarkerSeparatedFromItsBlockByTextDoesNotCount() {
        String page = "<!-- example: not run (far away) -->\nSome prose.\n```\nls\n```\n";

        assertThat(DocExamples.of("p.md", page))
                .singleElement()
                .extracting(Example::mode)
                .isEqualTo(Mode.ALONE);
    }

    @Test
    void aMisspelledMarkerOrAMissingReasonIsAnError() {
        assertThatThrownBy(() -> DocExamples.of("p.md", "<!-- example: skip -->\n```\nls\n```\n"))
                .hasMessage("p.md:2: unknown example marker 'skip' (write 'not run (REASON)' or 'run with a daemon')");
        assertThatThrownBy(() -> DocExamples.of("p.md", "<!-- example: not run () -->\n```\nls\n```\n"))
                .hasMessageStartingWith("p.md:2: unknown example marker 'not run ()'");
    }

    @Test
    void aTranscriptSplitsIntoCommandsWithContinuationLinesAndTheirOutput() {
        String page =
                "```\n$ java -cp a \\\n     Main 42\nloopback 42\n$ bin/urom exec\nstatus: SUCCESS (0)\npayload: 00\n```\n";

        Example example = DocExamples.of("p.md", page).get(0);

        assertThat(example.isTranscript()).isTrue();
        assertThat(example.steps())
                .containsExactly(
                        new Step("java -cp a \\\n     Main 42", List.of("loopback 42")),
                        new Step("bin/urom exec", List.of("status: SUCCESS (0)", "payload: 00")));
    }

    @Test
    void aBlockWithTextBeforeItsFirstPromptIsAScript() {
        Example example =
                DocExamples.of("p.md", "```\nexport A=1\n$ echo $A\n```\n").get(0);

        assertThat(example.isTranscript()).isFalse();
    }

    @Test
    void outputMatchesWithDotsAsWildcardsAndLineByLine() {
        Step step = new Step(
                "bin/urom loopback --value 42", List.of("loopback 42 -> 42 via worker_graph on worker ... in ... us"));

        assertThat(step.matches(List.of("loopback 42 -> 42 via worker_graph on worker 3 in 812 us")))
                .isTrue();
        assertThat(step.matches(List.of("loopback 42 -> 43 via worker_graph on worker 3 in 812 us")))
                .isFalse();
        assertThat(step.matches(List.of("loopback 42 -> 42 via worker_graph on worker 3 in 812 us", "extra")))
                .isFalse();
        assertThat(new Step("x", List.of("a.b")).matches(List.of("axb")))
                .as("a lone dot is literal")
                .isFalse();
    }

    @Test
    void anUnclosedFenceIsAnError() {
        assertThatThrownBy(() -> DocExamples.of("p.md", "```\nls\n"))
                .hasMessage("p.md:1: a fenced block that is never closed");
    }
}
