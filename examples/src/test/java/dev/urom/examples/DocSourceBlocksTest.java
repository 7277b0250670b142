// SPDX-License-Identifier: Apache-2.0
package dev.urom.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README and the pages of {@code docs/} show example programs verbatim: each fenced block that
 * follows a line {@code <!-- source: PATH -->} must be the file at PATH (relative to the
 * repository), byte for byte, so the code a reader copies is the program that its test compiles
 * and runs. Only the file's licence line ({@code // SPDX-License-Identifier: Apache-2.0} as its
 * first line) is not shown: code a reader copies into their program is theirs to license.
 */
class DocSourceBlocksTest {
    private static final Path REPO = Path.of(System.getProperty("urom.repo", ".."));
    private static final Pattern SOURCE_BLOCK =
            Pattern.compile("<!-- source: (\\S+) -->\\n```\\w*\\n(.*?)```\\n", Pattern.DOTALL);
    private static final String LICENCE_LINE = "// SPDX-License-Identifier: Apache-2.0\n";

    /** What a page shows of a source file: the file less its licence line. */
    static String shown(String file) {
        return file.startsWith(LICENCE_LINE) ? file.substring(LICENCE_LINE.length()) : file;
    }

    @Test
    void everySourceBlockOfTheReadmeAndTheDocsIsItsFile() throws IOException {
        List<String> checked = new ArrayList<>();
        for (Path page : DocExamples.pages(REPO)) {
            Matcher block = SOURCE_BLOCK.matcher(Files.readString(page));
            while (block.find()) {
                assertThat(block.group(2))
                        .as("%s: the block of %s", REPO.relativize(page), block.group(1))
                        .isEqualTo(shown(Files.readString(REPO.resolve(block.group(1)))));
                checked.add(block.group(1));
            }
        }
        assertThat(checked)
                .contains(
                        "examples/src/main/java/dev/urom/examples/GraphLoopback.java",
                        "plugins/graph/src/test/java/dev/urom/plugins/graph/embedding/EmbeddingExample.java");
    }

    @Test
    void aBlockThatDiffersFromItsFileByOneCharacterIsCaught() throws IOException {
        String page = Files.readString(REPO.resolve("docs/host-api.md"));
        Matcher block = SOURCE_BLOCK.matcher(page.replaceFirst("worker.start\\(\\)", "worker.stArt()"));
        assertThat(block.find()).isTrue();
        assertThat(block.group(2)).isNotEqualTo(Files.readString(REPO.resolve(block.group(1))));
    }

    @Test
    void theLicenceLineAloneIsLeftOutOfWhatIsShown() {
        assertThat(shown(LICENCE_LINE + "package a;\n")).isEqualTo("package a;\n");
        assertThat(shown("package a;\n")).isEqualTo("package a;\n");
        assertThat(shown("// SPDX-License-Identifier: MIT\npackage a;\n"))
                .as("another line is shown")
                .startsWith("// SPDX");
        assertThat(shown("package a;\n" + LICENCE_LINE))
                .as("the line elsewhere is shown")
                .endsWith(LICENCE_LINE);
    }
}
