package dev.urom.plugins.graph.embedding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * docs/embedding.md shows {@link EmbeddingExample} as it is: the fenced java block between the
 * begin and end markers is the example's source file, byte for byte, so the page cannot drift
 * from the program that {@link EmbeddingExampleIT} runs.
 */
class EmbeddingDocTest {
    static final String BEGIN = "<!-- embedding-example:begin -->";
    static final String END = "<!-- embedding-example:end -->";
    static final String FENCE_OPEN = "```java\n";
    static final String FENCE_CLOSE = "```\n";

    @Test
    void theDocsExampleIsTheExampleSource() throws IOException {
        String doc = Files.readString(NativeFixtures.builtFile("embedding.doc"), StandardCharsets.UTF_8);
        String source = Files.readString(NativeFixtures.builtFile("embedding.example.source"), StandardCharsets.UTF_8);

        assertThat(codeBlock(doc)).isEqualTo(source);
    }

    @Test
    void aDocWhoseBlockDiffersFromTheSourceByOneCharacterIsCaught() throws IOException {
        String doc = Files.readString(NativeFixtures.builtFile("embedding.doc"), StandardCharsets.UTF_8);
        String source = Files.readString(NativeFixtures.builtFile("embedding.example.source"), StandardCharsets.UTF_8);
        int inBlock = doc.indexOf("openInProcess(", doc.indexOf(BEGIN));
        assertThat(inBlock).as("openInProcess( in the block").isGreaterThan(doc.indexOf(BEGIN));
        String changed = doc.substring(0, inBlock) + "openInProcesz(" + doc.substring(inBlock + "openInProcess(".length());

        assertThat(codeBlock(changed)).isNotEqualTo(source);
    }

    /** The one fenced java block between the markers, without its fences. */
    static String codeBlock(String doc) {
        int begin = doc.indexOf(BEGIN);
        int end = doc.indexOf(END);
        assertThat(begin).as("the begin marker %s", BEGIN).isNotNegative();
        assertThat(doc.indexOf(BEGIN, begin + 1)).as("a second begin marker").isNegative();
        assertThat(end).as("the end marker %s after the begin marker", END).isGreaterThan(begin);
        String between = doc.substring(begin + BEGIN.length(), end).strip() + "\n";
        assertThat(between).as("what lies between the markers").startsWith(FENCE_OPEN).endsWith("\n" + FENCE_CLOSE);
        return between.substring(FENCE_OPEN.length(), between.length() - FENCE_CLOSE.length());
    }
}
