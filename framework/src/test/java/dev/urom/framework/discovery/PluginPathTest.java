// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class PluginPathTest {
    @Test
    void keepsOrderAndDropsEmptyEntriesAndDuplicates() {
        assertThat(PluginPath.parse(";/opt/b;;/opt/a; ;/opt/b;")).containsExactly(Path.of("/opt/b"), Path.of("/opt/a"));
    }

    @Test
    void nothingToScan() {
        assertThat(PluginPath.parse(null)).isEmpty();
        assertThat(PluginPath.parse("")).isEmpty();
        assertThat(PluginPath.parse(";;; ;")).isEmpty();
    }

    @Test
    void stripsWhiteSpaceAroundEntries() {
        assertThat(PluginPath.parse(" /opt/a ;\t/opt/b")).containsExactly(Path.of("/opt/a"), Path.of("/opt/b"));
    }

    @Test
    void refusesAnEntryWithANul() {
        assertThatThrownBy(() -> PluginPath.parse("/ok;/bad\0dir"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("UROM_PLUGIN_PATH entry 2 '/bad\\0dir' is not a valid path");
    }

    @Property
    void parsesWhatWasJoined(@ForAll("directoryLists") List<String> entries) {
        String joined = String.join(";", entries);

        List<Path> parsed = PluginPath.parse(joined);

        LinkedHashSet<Path> expected = new LinkedHashSet<>();
        for (String entry : entries) {
            if (!entry.isBlank()) {
                expected.add(Path.of(entry.strip()));
            }
        }
        assertThat(parsed).containsExactlyElementsOf(new ArrayList<>(expected));
    }

    @Property
    void resultHasNoDuplicatesAndNoEmptyPaths(@ForAll("pathStrings") String uromPluginPath) {
        List<Path> parsed = PluginPath.parse(uromPluginPath);

        assertThat(parsed).doesNotHaveDuplicates();
        assertThat(parsed).allSatisfy(p -> assertThat(p.toString()).isNotBlank().doesNotContain(";"));
    }

    @Property
    void extraSeparatorsChangeNothing(@ForAll("directoryLists") @Size(max = 6) List<String> entries) {
        String plain = String.join(";", entries);
        String padded = ";;" + String.join(";;;", entries) + ";";

        assertThat(PluginPath.parse(padded)).isEqualTo(PluginPath.parse(plain));
    }

    @Provide
    Arbitrary<List<String>> directoryLists() {
        Arbitrary<String> segment =
                Arbitraries.strings().withChars("abcxyz09-_. ").ofMinLength(1).ofMaxLength(6);
        Arbitrary<String> directory = segment.list()
                .ofMinSize(1)
                .ofMaxSize(3)
                .map(parts -> "/" + String.join("/", parts).strip());
        Arbitrary<String> blank = Arbitraries.of("", " ", "\t");
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(5, directory),
                        net.jqwik.api.Tuple.of(1, blank),
                        net.jqwik.api.Tuple.of(1, Arbitraries.of("/opt/a", "/opt/b")))
                .list()
                .ofMaxSize(8);
    }

    @Provide
    Arbitrary<String> pathStrings() {
        return Arbitraries.strings().withChars("/ab;. \t").ofMaxLength(30);
    }
}
