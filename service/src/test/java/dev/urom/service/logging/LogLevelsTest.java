// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

class LogLevelsTest {
    @Test
    void mapsTheNumericScale() {
        assertThat(LogLevels.fromNumeric(10)).isEqualTo(Level.OFF);
        assertThat(LogLevels.fromNumeric(20)).isEqualTo(Level.FATAL);
        assertThat(LogLevels.fromNumeric(30)).isEqualTo(Level.ERROR);
        assertThat(LogLevels.fromNumeric(40)).isEqualTo(Level.WARN);
        assertThat(LogLevels.fromNumeric(50)).isEqualTo(Level.INFO);
        assertThat(LogLevels.fromNumeric(60)).isEqualTo(Level.DEBUG);
        assertThat(LogLevels.fromNumeric(70)).isEqualTo(Level.TRACE);
    }

    @Property
    void everyOtherNumberIsRefusedWithOneLine(@ForAll int level) {
        if (level % 10 == 0 && level >= 10 && level <= 70) {
            assertThat(LogLevels.requireValid(level)).isEqualTo(level);
        } else {
            assertThatThrownBy(() -> LogLevels.fromNumeric(level))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("log level " + level + " is not one of " + LogLevels.ACCEPTED);
        }
    }

    @Test
    void parsesText() {
        assertThat(LogLevels.parse("60")).isEqualTo(60);
        assertThatThrownBy(() -> LogLevels.parse("debug"))
                .hasMessage("log level 'debug' is not a number; use one of " + LogLevels.ACCEPTED);
        assertThatThrownBy(() -> LogLevels.parse("65")).hasMessageStartingWith("log level 65 is not one of");
    }
}
