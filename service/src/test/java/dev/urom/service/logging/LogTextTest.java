// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {
    @Test
    void shortPrintableTextIsKept() {
        assertThat(LogText.cut("UCX_TLS=rc,sm C:\\dir é 漢字 \uD83D\uDE00"))
                .isEqualTo("UCX_TLS=rc,sm C:\\dir é 漢字 \uD83D\uDE00");
        assertThat(LogText.cut("")).isEmpty();
        assertThat(LogText.cut(null)).isEqualTo("null");
    }

    @Test
    void controlsAndOtherNonPrintablesAreEscaped() {
        assertThat(LogText.cut("a\nb\rc\td")).isEqualTo("a\\nb\\rc\\td");
        assertThat(LogText.cut("\u0000\u001b[31m\u007f")).isEqualTo("\\x00\\x1B[31m\\x7F");
        assertThat(LogText.cut("x\u0085y")).as("a C1 control").isEqualTo("x\\u{85}y");
        assertThat(LogText.cut("evil\u202Etxt.exe")).as("a format character").isEqualTo("evil\\u{202E}txt.exe");
        assertThat(LogText.cut("a\u2028b\u2029c")).isEqualTo("a\\u{2028}b\\u{2029}c");
        assertThat(LogText.cut("lone \uD800 high, lone \uDC00 low"))
                .isEqualTo("lone \\u{D800} high, lone \\u{DC00} low");
        assertThat(LogText.cut("\uE000\uDB80\uDC00"))
                .as("private use, BMP and plane 15")
                .isEqualTo("\\u{E000}\\u{F0000}");
        assertThat(LogText.cut("\u0378")).as("unassigned").isEqualTo("\\u{378}");
    }

    @Test
    void aLongEnvItemIsCutAtTwoHundredCharactersWithTheCountLeftOut() {
        String item = "UCX_X=" + "v".repeat(64 * 1024 - 6);

        String cut = LogText.cut(item);

        assertThat(cut).isEqualTo(item.substring(0, 200) + "… (65336 more characters)");
        assertThat(LogText.cut("w".repeat(200))).isEqualTo("w".repeat(200));
        assertThat(LogText.cut("w".repeat(201))).isEqualTo("w".repeat(200) + "… (1 more character)");
    }

    @Test
    void anEscapeOrAPairIsNeverSplit() {
        assertThat(LogText.cut("a".repeat(199) + "\nz")).isEqualTo("a".repeat(199) + "… (2 more characters)");
        assertThat(LogText.cut("a".repeat(195) + "\u202Ez")).isEqualTo("a".repeat(195) + "… (2 more characters)");
        assertThat(LogText.cut("a".repeat(199) + "\uD83D\uDE00")).isEqualTo("a".repeat(199) + "… (2 more characters)");
        assertThat(LogText.cut("a".repeat(198) + "\uD83D\uDE00")).isEqualTo("a".repeat(198) + "\uD83D\uDE00");
    }
}
