// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UnsignedValueTest {
    @Test
    void decimalCoversTheWholeUnsignedRangeAndPrintsBackAsGiven() {
        assertThat(UnsignedValue.parse("0")).isEqualTo(new UnsignedValue(0, false));
        assertThat(UnsignedValue.parse("18446744073709551615")).isEqualTo(new UnsignedValue(-1, false));
        assertThat(UnsignedValue.parse("9223372036854775808").bits()).isEqualTo(Long.MIN_VALUE);
        assertThat(UnsignedValue.parse("18446744073709551615")).hasToString("18446744073709551615");
    }

    @Test
    void hexTakesEitherPrefixAndPrintsBackInLowerCaseHex() {
        assertThat(UnsignedValue.parse("0xffffffffffffffff")).isEqualTo(new UnsignedValue(-1, true));
        assertThat(UnsignedValue.parse("0XDEADbeef").bits()).isEqualTo(0xdeadbeefL);
        assertThat(UnsignedValue.parse("0x00000000000000000001").bits()).isEqualTo(1);
        assertThat(UnsignedValue.parse("0xFFFFFFFFFFFFFFFD")).hasToString("0xfffffffffffffffd");
        assertThat(new UnsignedValue(42, true)).hasToString("0x2a");
    }

    @Test
    void aNegativeNumberIsRefusedNamingTheSign() {
        assertThatThrownBy(() -> UnsignedValue.parse("-3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'-3' is not an unsigned decimal number ('-' is not a decimal digit)");
    }

    @Test
    void moreThan64BitsIsRefusedWithTheLimit() {
        assertThatThrownBy(() -> UnsignedValue.parse("18446744073709551616"))
                .hasMessage(
                        "'18446744073709551616' is more than 64 bits (at most 18446744073709551615 or 0xffffffffffffffff)");
        assertThatThrownBy(() -> UnsignedValue.parse("0x10000000000000000"))
                .hasMessageContaining("is more than 64 bits");
    }

    @Test
    void aBadDigitOrNoDigitsIsRefused() {
        assertThatThrownBy(() -> UnsignedValue.parse("0xfg"))
                .hasMessage("'0xfg' is not an unsigned hex number ('g' is not a hex digit)");
        assertThatThrownBy(() -> UnsignedValue.parse("")).hasMessage("'' has no digits");
        assertThatThrownBy(() -> UnsignedValue.parse("0x")).hasMessage("'0x' has no digits");
    }
}
