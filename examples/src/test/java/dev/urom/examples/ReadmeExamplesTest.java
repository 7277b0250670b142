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
 * The README shows the example programs verbatim: each fenced block that follows a line {@code
 * <!-- source: PATH -->} must be the file at PATH (relative to the repository), byte for byte, so
 * the README's code is always the compiled and tested program.
 */
class ReadmeExamplesTest {
    private static final Path REPO = Path.of(System.getProperty("urom.repo", ".."));
    private static final Pattern SOURCE_BLOCK = Pattern.compile("<!-- source: (\\S+) -->\\n```\\w*\\n(.*?)```\\n", Pattern.DOTALL);

    @Test
    void everySourceBlockOfTheReadmeIsItsFile() throws IOException {
        List<String> checked = new ArrayList<>();
        Matcher block = SOURCE_BLOCK.matcher(Files.readString(REPO.resolve("README.md")));
        while (block.find()) {
            Path file = REPO.resolve(block.group(1));
            assertThat(block.group(2)).as("README block for %s", block.group(1)).isEqualTo(Files.readString(file));
            checked.add(block.group(1));
        }
        assertThat(checked).contains("examples/src/main/java/dev/urom/examples/GraphLoopback.java");
    }
}
