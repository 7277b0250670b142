// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class PluginSpecProperties {
    @Property
    void formattingThenParsingGivesTheSameSpec(
            @ForAll("absolutePaths") String path, @ForAll @IntRange(min = 0, max = 63) int bit) {
        PluginSpec spec = new PluginSpec(Path.of(path), 1L << bit);
        PluginSpec again = PluginSpec.parse(spec.toString());
        assertThat(again).isEqualTo(spec);
        assertThat(again.toString()).isEqualTo(spec.toString());
    }

    @Property
    void decimalAndHexadecimalIdsReadTheSame(
            @ForAll("absolutePaths") String path, @ForAll @IntRange(min = 0, max = 63) int bit) {
        long id = 1L << bit;
        PluginSpec decimal = PluginSpec.parse(path + ":" + Long.toUnsignedString(id));
        PluginSpec hex = PluginSpec.parse(path + ":0x" + Long.toHexString(id).toUpperCase());
        assertThat(decimal).isEqualTo(hex);
        assertThat(decimal.path()).isEqualTo(Path.of(path));
        assertThat(decimal.id()).isEqualTo(id);
    }

    @Property
    void idsOfOtherThanOneBitAreRefused(@ForAll("absolutePaths") String path, @ForAll long id) {
        Assume.that(Long.bitCount(id) != 1);
        String item = path + ":" + Long.toUnsignedString(id);
        assertRefusedNaming(item);
    }

    @Property
    void idsBeyond64BitsAreRefused(
            @ForAll("absolutePaths") String path, @ForAll @IntRange(min = 64, max = 200) int bit) {
        assertRefusedNaming(path + ":" + BigInteger.ONE.shiftLeft(bit));
        assertRefusedNaming(path + ":0x" + BigInteger.ONE.shiftLeft(bit).toString(16));
    }

    @Property
    void relativePathsAreRefused(@ForAll("relativePaths") String path, @ForAll @IntRange(min = 0, max = 63) int bit) {
        assertRefusedNaming(path + ":" + Long.toUnsignedString(1L << bit));
    }

    @Property
    void idsWithNonDigitsAreRefused(@ForAll("absolutePaths") String path, @ForAll("nonNumbers") String id) {
        assertRefusedNaming(path + ":" + id);
    }

    @Property
    void itemsWithoutAColonAreRefused(@ForAll("segment") String text) {
        String item = "/" + text.replace(":", "");
        assertRefusedNaming(item);
    }

    @Provide
    Arbitrary<String> segment() {
        return Arbitraries.strings()
                .withChars("abcXYZ019._-: ")
                .ofMinLength(1)
                .ofMaxLength(10)
                .filter(s -> !s.equals(".") && !s.equals(".."));
    }

    @Provide
    Arbitrary<String> absolutePaths() {
        return segment().list().ofMinSize(1).ofMaxSize(4).map(parts -> "/" + String.join("/", parts));
    }

    @Provide
    Arbitrary<String> relativePaths() {
        return segment().list().ofMinSize(1).ofMaxSize(4).map(parts -> String.join("/", parts));
    }

    @Provide
    Arbitrary<String> nonNumbers() {
        return Arbitraries.strings()
                .ofMinLength(1)
                .ofMaxLength(12)
                .filter(s -> !s.contains(":"))
                .filter(s -> !s.chars().allMatch(c -> c >= '0' && c <= '9'))
                .filter(s -> !s.matches("0[xX][0-9a-fA-F]+"));
    }

    private static void assertRefusedNaming(String item) {
        assertThatThrownBy(() -> PluginSpec.parse(item))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("plugin item '" + item + "' is invalid: ");
    }
}
