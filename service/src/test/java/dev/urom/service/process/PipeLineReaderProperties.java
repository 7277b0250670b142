// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** {@link PipeLineReader}: whole lines, each cut to the bound, and nothing lost after a cut line. */
class PipeLineReaderProperties {
    @Property
    void everyWholeLineComesBackCutToTheBound(
            @ForAll("lines") List<byte[]> lines,
            @ForAll @IntRange(min = 1, max = 600) int bound,
            @ForAll boolean unterminatedTail)
            throws IOException {
        ByteArrayOutputStream pipe = new ByteArrayOutputStream();
        for (byte[] line : lines) {
            pipe.write(line);
            pipe.write('\n');
        }
        if (unterminatedTail) {
            pipe.write(new byte[] {'t', 'a', 'i', 'l'});
        }

        List<byte[]> read = readAll(new PipeLineReader(new ByteArrayInputStream(pipe.toByteArray()), bound));

        assertThat(read).hasSameSizeAs(lines);
        for (int i = 0; i < lines.size(); i++) {
            byte[] expected = Arrays.copyOf(lines.get(i), Math.min(bound, lines.get(i).length));
            assertThat(read.get(i)).as("line %d", i).isEqualTo(expected);
        }
    }

    @Example
    void aLineOfAMebibyteOverTheBoundIsReadThroughAndTheNextIsWhole() throws IOException {
        byte[] pipe = ("x".repeat(2 << 20) + "\nSTATS 2\n").getBytes(StandardCharsets.US_ASCII);

        List<byte[]> read = readAll(new PipeLineReader(new ByteArrayInputStream(pipe), 1 << 20));

        assertThat(read).hasSize(2);
        assertThat(read.get(0)).hasSize(1 << 20);
        assertThat(new String(read.get(1), StandardCharsets.US_ASCII)).isEqualTo("STATS 2");
    }

    @Example
    void aBoundThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> new PipeLineReader(new ByteArrayInputStream(new byte[0]), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a line bound of 0 bytes is not positive");
    }

    @Provide
    Arbitrary<List<byte[]>> lines() {
        Arbitrary<byte[]> line =
                Arbitraries.bytes().filter(b -> b != '\n').array(byte[].class).ofMaxSize(1500);
        return line.list().ofMaxSize(8);
    }

    private static List<byte[]> readAll(PipeLineReader reader) throws IOException {
        List<byte[]> read = new ArrayList<>();
        byte[] line;
        while ((line = reader.next()) != null) {
            read.add(line);
        }
        return read;
    }
}
