// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class UromStatusTest {
    @Test
    void codesAreDocasNumbers() {
        assertThat(UromStatus.SUCCESS.code()).isZero();
        assertThat(UromStatus.NOT_PERMITTED.code()).isEqualTo(2);
        assertThat(UromStatus.AGAIN.code()).isEqualTo(5);
        assertThat(UromStatus.INVALID_VALUE.code()).isEqualTo(6);
        assertThat(UromStatus.NOT_FOUND.code()).isEqualTo(16);
        assertThat(UromStatus.UNSUPPORTED_VERSION.code()).isEqualTo(19);
        assertThat(UromStatus.UNEXPECTED.code()).isEqualTo(22);
        assertThat(UromStatus.FULL.code()).isEqualTo(24);
        assertThat(UromStatus.EMPTY.code()).isEqualTo(25);
        assertThat(UromStatus.TOO_BIG.code()).isEqualTo(27);
        assertThat(UromStatus.DEVICE_FATAL_ERROR.code()).isEqualTo(31);
    }

    @Test
    void everyCodeMapsBackToItsStatus() {
        assertThat(Arrays.stream(UromStatus.values()).map(s -> UromStatus.fromCode(s.code())))
                .containsExactly(UromStatus.values());
    }

    @Test
    void anUnknownCodeIsRefusedWithItsNumber() {
        assertThatThrownBy(() -> UromStatus.fromCode(32)).hasMessage("status code 32 is not a DOCA status (0..31)");
        assertThatThrownBy(() -> UromStatus.fromCode(-1)).hasMessageContaining("-1");
    }

    @Test
    void anExceptionCannotCarrySuccess() {
        assertThatThrownBy(() -> new UromException(UromStatus.SUCCESS, "fine"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new UromException(UromStatus.FULL, "full").status()).isEqualTo(UromStatus.FULL);
    }
}
