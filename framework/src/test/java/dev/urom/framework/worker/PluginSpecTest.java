// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class PluginSpecTest {
    @Test
    void readsDecimalAndHexadecimalIds() {
        assertThat(PluginSpec.parse("/opt/plugins/worker_graph.so:4"))
                .isEqualTo(new PluginSpec(Path.of("/opt/plugins/worker_graph.so"), 4));
        assertThat(PluginSpec.parse("/opt/plugins/worker_graph.so:0x10").id()).isEqualTo(16);
        assertThat(PluginSpec.parse("/opt/plugins/worker_graph.so:0X10").id()).isEqualTo(16);
    }

    @Test
    void readsTheTopBitAsUnsigned() {
        assertThat(PluginSpec.parse("/p/a.so:9223372036854775808").id()).isEqualTo(Long.MIN_VALUE);
        assertThat(PluginSpec.parse("/p/a.so:0x8000000000000000").id()).isEqualTo(Long.MIN_VALUE);
        assertThat(new PluginSpec(Path.of("/p/a.so"), Long.MIN_VALUE)).hasToString("/p/a.so:9223372036854775808");
    }

    @Test
    void splitsAtTheLastColonSoPathsMayHoldColons() {
        PluginSpec spec = PluginSpec.parse("/opt/a:b/c.so:2");
        assertThat(spec.path()).isEqualTo(Path.of("/opt/a:b/c.so"));
        assertThat(spec.id()).isEqualTo(2);
        assertThat(spec).hasToString("/opt/a:b/c.so:2");
    }

    @Test
    void namesThePluginAfterItsFileWithoutTheExtension() {
        assertThat(PluginSpec.parse("/opt/plugins/worker_graph.so:1").name()).isEqualTo("worker_graph");
        assertThat(PluginSpec.parse("/opt/plugins/graph.v2.jar:1").name()).isEqualTo("graph.v2");
    }

    @Test
    void refusesMalformedItemsWithOneLineNamingTheItemAndTheReason() {
        assertRefused("/p/a.so", "has no ':'");
        assertRefused(":1", "path is empty");
        assertRefused("plugins/a.so:1", "not absolute");
        assertRefused("/p/a.so:", "id is empty");
        assertRefused("/p/a.so:0x", "no hexadecimal digits");
        assertRefused("/p/a.so:3", "0x3 is not a single bit");
        assertRefused("/p/a.so:0", "0x0 is not a single bit");
        assertRefused("/p/a.so:-1", "not an unsigned decimal number");
        assertRefused("/p/a.so:+1", "not an unsigned decimal number");
        assertRefused("/p/a.so: 1", "not an unsigned decimal number");
        assertRefused("/p/a.so:0x1g", "not an unsigned hexadecimal number");
        assertRefused("/p/a.so:18446744073709551616", "does not fit in 64 bits");
        assertRefused("/p/a.so:0x10000000000000000", "does not fit in 64 bits");
        assertRefused("/p/a\0.so:1", "path is not valid");
    }

    @Test
    void parseAllKeepsTheOrder() {
        assertThat(PluginSpec.parseAll(List.of("/p/b.so:2", "/p/a.jar:1")))
                .containsExactly(new PluginSpec(Path.of("/p/b.so"), 2), new PluginSpec(Path.of("/p/a.jar"), 1));
    }

    @Test
    void parseAllRefusesARepeatedIdNamingBothItems() {
        assertThatThrownBy(() -> PluginSpec.parseAll(List.of("/p/a.so:2", "/p/b.so:0x2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("plugin item '/p/b.so:0x2' is invalid: its id 0x2 is already given to '/p/a.so:2'");
    }

    @Test
    void parseAllRefusesARepeatedPathNamingBothItems() {
        assertThatThrownBy(() -> PluginSpec.parseAll(List.of("/p/a.so:1", "/p/./a.so:2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("plugin item '/p/./a.so:2' is invalid: its path is already loaded by '/p/a.so:1'");
    }

    @Test
    void theConstructorChecksToo() {
        assertThatThrownBy(() -> new PluginSpec(Path.of("rel.so"), 1)).hasMessageContaining("not absolute");
        assertThatThrownBy(() -> new PluginSpec(Path.of("/a.so"), 6))
                .hasMessageContaining("0x6 of '/a.so' is not a single bit");
    }

    private static void assertRefused(String item, String reason) {
        assertThatThrownBy(() -> PluginSpec.parse(item))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("plugin item '" + item + "' is invalid: ")
                .hasMessageContaining(reason)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
