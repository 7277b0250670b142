// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PluginIdRegistryTest {
    private final PluginIdRegistry registry = new PluginIdRegistry();

    @Test
    void givesOneDistinctBitPerPluginInScanOrder() {
        Map<String, Long> ids = ids(registry.assign(List.of(plugin("a"), plugin("b"), plugin("c"))));

        assertThat(ids).containsExactly(Map.entry("a", 1L), Map.entry("b", 2L), Map.entry("c", 4L));
    }

    @Test
    void keepsIdsAcrossScansAndGivesNewPluginsTheLowestFreeBit() {
        registry.assign(List.of(plugin("a"), plugin("b"), plugin("c")));
        registry.assign(List.of(plugin("a"), plugin("c")));
        registry.assign(List.of(plugin("a"), plugin("c")));

        Map<String, Long> ids = ids(registry.assign(List.of(plugin("new"), plugin("a"), plugin("c"), plugin("newer"))));

        assertThat(ids)
                .containsExactly(Map.entry("new", 2L), Map.entry("a", 1L), Map.entry("c", 4L), Map.entry("newer", 8L));
    }

    @Test
    void aChangedFileIsANewPlugin() {
        registry.assign(List.of(plugin("a")));

        Map<String, Long> ids = ids(registry.assign(List.of(plugin("a", 99))));

        assertThat(ids).containsExactly(Map.entry("a", 2L));
        assertThat(registry.retiredMask()).isEqualTo(1L);
    }

    @Test
    void aLeasedIdIsNotReusedUntilReleased() {
        registry.assign(List.of(plugin("gone"), plugin("stays")));
        PluginIdRegistry.Lease lease = registry.lease(1L);

        registry.assign(List.of(plugin("stays")));
        registry.assign(List.of(plugin("stays")));
        Map<String, Long> whileLeased = ids(registry.assign(List.of(plugin("stays"), plugin("x"))));
        lease.close();
        lease.close();
        Map<String, Long> afterRelease = ids(registry.assign(List.of(plugin("stays"), plugin("x"), plugin("y"))));

        assertThat(whileLeased).containsEntry("x", 4L);
        assertThat(registry.leaseCount(1L)).isZero();
        assertThat(afterRelease).containsEntry("x", 4L).containsEntry("y", 1L).containsEntry("stays", 2L);
    }

    @Test
    void anUnleasedRetiredIdIsFreedAtTheNextScan() {
        registry.assign(List.of(plugin("gone")));

        Map<String, Long> retiring = ids(registry.assign(List.of(plugin("x"))));
        Map<String, Long> next = ids(registry.assign(List.of(plugin("x"), plugin("y"))));

        assertThat(retiring).containsEntry("x", 2L);
        assertThat(next).containsEntry("y", 1L);
        assertThat(registry.retiredMask()).isZero();
    }

    @Test
    void twoLeasesOnOneIdBothHoldIt() {
        registry.assign(List.of(plugin("a")));
        PluginIdRegistry.Lease first = registry.lease(1L);
        PluginIdRegistry.Lease second = registry.lease(1L);
        registry.assign(List.of());

        first.close();
        registry.assign(List.of());
        assertThat(registry.retiredMask()).isEqualTo(1L);
        second.close();
        assertThat(registry.retiredMask()).isZero();
    }

    @Test
    void refusesTheSixtyFifthPlugin() {
        List<ScannedPlugin> plugins = new ArrayList<>();
        for (int i = 0; i < 65; i++) {
            plugins.add(plugin(String.format("p%02d", i)));
        }

        PluginIdRegistry.Assignment assignment = registry.assign(plugins);

        assertThat(assignment.plugins()).hasSize(64);
        assertThat(registry.assignedMask()).isEqualTo(-1L);
        assertThat(assignment.rejected())
                .containsExactly(new Rejection(
                        Path.of("/plugins/p64.so"), "/plugins/p64.so: no free plugin id (all 64 ids are in use)"));
    }

    @Test
    void refusesLeasesOnUnknownIds() {
        registry.assign(List.of(plugin("a")));

        assertThatThrownBy(() -> registry.lease(0b110))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("plugin ids 0x6 are not assigned");
    }

    private static Map<String, Long> ids(PluginIdRegistry.Assignment assignment) {
        Map<String, Long> ids = new LinkedHashMap<>();
        assignment.plugins().forEach(p -> ids.put(p.name(), p.id()));
        return ids;
    }

    private static ScannedPlugin plugin(String name) {
        return plugin(name, 1000);
    }

    private static ScannedPlugin plugin(String name, long mtime) {
        Path path = Path.of("/plugins/" + name + ".so");
        FileIdentity identity = new FileIdentity(path, 1, name.hashCode(), 10, FileTime.fromMillis(mtime));
        return new ScannedPlugin(name, 1, PluginKind.NATIVE, path, identity);
    }
}
