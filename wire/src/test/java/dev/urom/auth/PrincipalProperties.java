// SPDX-License-Identifier: Apache-2.0
package dev.urom.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class PrincipalProperties {
    @Provide
    Arbitrary<Principal> principals() {
        Arbitrary<Principal> unix =
                Arbitraries.integers().between(0, Integer.MAX_VALUE).map(Principal::unix);
        Arbitrary<String> first = Arbitraries.strings()
                .withCharRange('a', 'z')
                .withCharRange('A', 'Z')
                .withCharRange('0', '9')
                .ofLength(1);
        Arbitrary<String> rest = Arbitraries.strings()
                .withCharRange('a', 'z')
                .withCharRange('0', '9')
                .withChars('.', '_', '-')
                .ofMaxLength(63);
        Arbitrary<Principal> keys =
                net.jqwik.api.Combinators.combine(first, rest).as((a, b) -> Principal.key(a + b));
        return Arbitraries.oneOf(unix, keys, Arbitraries.just(Principal.ANONYMOUS));
    }

    @Property
    void theTextFormReadsBack(@ForAll("principals") Principal principal) {
        assertThat(Principal.parse(principal.text())).isEqualTo(principal);
    }

    @Property
    void keyNamesOutsideTheRuleAreRefused(@ForAll String name) {
        if (!Principal.KEY_NAME.matcher(name).matches()) {
            assertThatThrownBy(() -> Principal.key(name))
                    .isInstanceOf(IllegalArgumentException.class)
                    .message()
                    .doesNotContain("\n")
                    .contains("is not valid");
        }
    }

    @Test
    void textForms() {
        assertThat(Principal.unix(1000).text()).isEqualTo("unix:1000");
        assertThat(Principal.unix(1000).uid()).isEqualTo(1000);
        assertThat(Principal.key("jobA").text()).isEqualTo("key:jobA");
        assertThat(Principal.ANONYMOUS.text()).isEqualTo("anonymous");
        assertThatThrownBy(() -> Principal.parse("root"))
                .hasMessage("'root' is not a principal (unix:UID, key:NAME or anonymous)");
        assertThatThrownBy(() -> Principal.parse("unix:-1")).hasMessage("'-1' is not a Unix uid");
        assertThatThrownBy(() -> Principal.key("../x")).hasMessageStartingWith("key name '../x' is not valid");
        assertThatThrownBy(() -> Principal.key("jobA").uid()).isInstanceOf(IllegalStateException.class);
    }
}
