// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.StringLength;

class LogTextProperties {
    private static final Pattern MARKER = Pattern.compile("… \\((\\d+) more characters?\\)$");

    @Property
    void theResultHoldsNoControlCharacterNorLineBreak(@ForAll("anyText") String text) {
        String cut = LogText.cut(text);

        cut.codePoints().forEach(c -> {
            int type = Character.getType(c);
            assertThat(type)
                    .as("U+%04X in %s", c, cut)
                    .isNotIn(
                            (int) Character.CONTROL,
                            (int) Character.FORMAT,
                            (int) Character.SURROGATE,
                            (int) Character.LINE_SEPARATOR,
                            (int) Character.PARAGRAPH_SEPARATOR);
        });
    }

    @Property
    void aCutResultIsTheCutOfAPrefixThenTheMarker(@ForAll("anyText") String text) {
        String cut = LogText.cut(text);

        Matcher marker = MARKER.matcher(cut);
        if (marker.find() && isCutOf(text, cut, marker)) {
            int leftOut = Integer.parseInt(marker.group(1));
            String shown = cut.substring(0, marker.start());
            assertThat(shown.length()).isLessThanOrEqualTo(LogText.MAX_CHARS);
            assertThat(cut.length())
                    .isLessThanOrEqualTo(
                            LogText.MAX_CHARS + LogText.marker(leftOut).length());
            int kept = text.length() - leftOut;
            int next = kept + Character.charCount(text.codePointAt(kept));
            assertThat(LogText.cut(text.substring(0, next)))
                    .as("one more character would not fit")
                    .isNotEqualTo(LogText.cut(text.substring(0, kept)) + LogText.cut(text.substring(kept, next)));
        } else {
            assertThat(cut.length()).isLessThanOrEqualTo(LogText.MAX_CHARS);
        }
    }

    private static boolean isCutOf(String text, String cut, Matcher marker) {
        int leftOut = Integer.parseInt(marker.group(1));
        if (leftOut < 1 || leftOut > text.length()) {
            return false;
        }
        String prefix = LogText.cut(text.substring(0, text.length() - leftOut));
        return cut.equals(prefix + LogText.marker(leftOut));
    }

    @Property
    void shortPrintableTextComesBackUnchanged(@ForAll("printableText") @StringLength(max = 200) String text) {
        assertThat(LogText.cut(text)).isEqualTo(text);
    }

    @Property
    void longPrintableTextIsCutToItsFirstTwoHundredCharacters(
            @ForAll("printableText") @StringLength(min = 201, max = 2000) String text) {
        assertThat(LogText.cut(text))
                .isEqualTo(text.substring(0, LogText.MAX_CHARS) + LogText.marker(text.length() - LogText.MAX_CHARS));
    }

    @Provide
    Arbitrary<String> anyText() {
        Arbitrary<String> anyChars = Arbitraries.strings().all().ofMaxLength(600);
        Arbitrary<String> mostlyControls = Arbitraries.strings()
                .withCharRange('\u0000', '\u00a0')
                .withChars('\u2028', '\u2029', '\u202e', '\ud800', '\udfff', '\u2026', '(', ')')
                .ofMaxLength(300);
        return Arbitraries.oneOf(anyChars, mostlyControls);
    }

    @Provide
    Arbitrary<String> printableText() {
        return Arbitraries.strings()
                .withCharRange(' ', '~')
                .withChars('é', '漢', '…', '\u00a0', '€')
                .ofMaxLength(2000);
    }
}
