// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link BounceBound}: UROM_SANDBOX_BOUNCE_TIMEOUT_MS as the plugins read it when they open. */
class BounceBoundTest {
    @Test
    void unsetIsThirtySecondsAndDigitsAreMilliseconds() throws UromException {
        assertThat(BounceBound.nanosFromEnvironment(name -> null)).isEqualTo(30_000_000_000L);
        assertThat(nanos("1")).isEqualTo(1_000_000L);
        assertThat(nanos("0300")).isEqualTo(300_000_000L);
        assertThat(nanos("3600000")).isEqualTo(3_600_000_000_000L);
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"", "0", "000", "-5", "+5", " 5", "12ms", "3600001", "99999999999999999999"})
    void anythingElseIsABadConfigurationInOneLine(String value) {
        assertThatThrownBy(() -> nanos(value)).isInstanceOfSatisfying(UromException.class, e -> {
            assertThat(e.status()).isEqualTo(UromStatus.BAD_CONFIG);
            assertThat(e.getMessage())
                    .isEqualTo("UROM_SANDBOX_BOUNCE_TIMEOUT_MS='" + value
                            + "' is not a number of milliseconds (1 to 3600000): the sandbox plugin does not open");
        });
    }

    @Test
    void aLongValueIsShownCut() {
        String value = "9".repeat(500);
        assertThatThrownBy(() -> nanos(value)).hasMessageContaining("='" + "9".repeat(200) + "' is not");
    }

    private static long nanos(String value) throws UromException {
        return BounceBound.nanosFromEnvironment(Map.of(BounceBound.VARIABLE, value)::get);
    }
}
