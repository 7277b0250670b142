// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class TransportNameTest {
    @Property
    void namesOfTheAllowedCharactersAreValid(
            @ForAll
                    @StringLength(min = 1, max = 64)
                    @CharRange(from = 'a', to = 'z')
                    @CharRange(from = 'A', to = 'Z')
                    @CharRange(from = '0', to = '9')
                    @Chars({'.', '_', ':', '/', '-'})
                    String name) {
        assertThat(TransportName.problem(name)).isEmpty();
        assertThat(TransportName.isValid(name)).isTrue();
    }

    @Test
    void explainsEachKindOfInvalidName() {
        assertThat(TransportName.problem(null)).contains("is null");
        assertThat(TransportName.problem("")).contains("is empty");
        assertThat(TransportName.problem("x".repeat(65))).contains("has 65 characters, more than 64");
        assertThat(TransportName.problem("ucp tag"))
                .contains("has character U+0020 at index 3, not one of [A-Za-z0-9._:/-]");
        assertThat(TransportName.problem("ucp+tag"))
                .contains("has character '+' at index 3, not one of [A-Za-z0-9._:/-]");
        assertThat(TransportName.problem("é")).contains("has character U+00E9 at index 0, not one of [A-Za-z0-9._:/-]");
        assertThat(TransportName.isValid("x".repeat(64))).isTrue();
        assertThat(TransportName.isValid("ucp-tag")).isTrue();
    }
}
