// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FailureTextTest {
    @Test
    void aShortPrintableMessageIsKeptAsItIs() {
        assertThat(FailureText.oneLine("bad command: 'x' (0x2a)")).isEqualTo("bad command: 'x' (0x2a)");
    }

    @Test
    void lineBreaksTabsAndOtherControlsBecomeSpaces() {
        assertThat(FailureText.oneLine("a\nb\r\nc\td\u0000e\u2028f\u2029g\u0085h"))
                .isEqualTo("a b  c d e f g h");
    }

    @Test
    void nullIsEmpty() {
        assertThat(FailureText.oneLine(null)).isEmpty();
    }

    @Test
    void aTextOfExactlyTheLimitIsKeptAndOneCharacterMoreIsCutWithAMarker() {
        String limit = "x".repeat(FailureText.MAX_CHARS);

        assertThat(FailureText.oneLine(limit)).isEqualTo(limit);
        String cut = FailureText.oneLine(limit + "y");
        assertThat(cut).hasSize(FailureText.MAX_CHARS).endsWith("x…");
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String cut = FailureText.oneLine("😀".repeat(FailureText.MAX_CHARS));

        assertThat(cut).isEqualTo("😀".repeat((FailureText.MAX_CHARS - 1) / 2) + "…");
    }

    @Test
    void utf8IsCutAtACharacterBoundary() {
        assertThat(FailureText.utf8("héllo", 2)).isEqualTo("h".getBytes(StandardCharsets.UTF_8));
        assertThat(FailureText.utf8("héllo", 3)).isEqualTo("hé".getBytes(StandardCharsets.UTF_8));
        assertThat(FailureText.utf8("héllo", 100)).isEqualTo("héllo".getBytes(StandardCharsets.UTF_8));
        assertThat(FailureText.utf8("héllo", 0)).isEmpty();
        assertThat(FailureText.utf8("héllo", -5)).isEmpty();
    }
}
