// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PluginInfoTest {
    @Test
    void aNameOf47BytesFits() {
        String name = "n".repeat(47);
        assertThat(new PluginInfo(1L << 5, 1, name).name()).isEqualTo(name);
    }

    @Test
    void aNameOf48BytesIsRefusedWithItsLength() {
        assertThatThrownBy(() -> new PluginInfo(1, 1, "n".repeat(48)))
                .hasMessage("plugin name '" + "n".repeat(48) + "' is 48 bytes; the limit is 47");
    }

    @Test
    void theLimitCountsUtf8Bytes() {
        String name = "é".repeat(24); // 48 bytes in 24 characters
        assertThatThrownBy(() -> PluginInfo.checkName(name)).hasMessageContaining("is 48 bytes");
    }

    @Test
    void anIdIsOneBit() {
        assertThatThrownBy(() -> new PluginInfo(3, 1, "x")).hasMessage("plugin id 0x3 is not a single bit");
        assertThatThrownBy(() -> new PluginInfo(0, 1, "x")).hasMessage("plugin id 0x0 is not a single bit");
        assertThat(new PluginInfo(Long.MIN_VALUE, 1, "x").id()).isEqualTo(1L << 63);
    }
}
