// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginDiscovery;
import dev.urom.framework.discovery.Rejection;
import dev.urom.framework.discovery.ScanResult;
import java.nio.file.Path;
import java.util.stream.Collectors;

/** The result of scanning UROM_PLUGIN_PATH in this process, with look-ups by name. Immutable. */
record LocalPlugins(String pluginPath, ScanResult result) {
    static LocalPlugins scan(Environment environment) {
        String path = environment.requirePluginPath();
        return new LocalPlugins(path, new PluginDiscovery().scan(path));
    }

    /**
     * The accepted plugin with this name.
     *
     * @throws CliFailure naming the plugin, and why it is not there (rejected, with the reason; or
     *     absent, with the names that are there)
     */
    DiscoveredPlugin require(String name) {
        for (DiscoveredPlugin plugin : result.plugins()) {
            if (plugin.info().name().equals(name)) {
                return plugin;
            }
        }
        for (Rejection rejection : result.rejected()) {
            if (baseName(rejection.path()).equals(name)) {
                throw new CliFailure("plugin '" + name + "' was rejected: " + rejection.reason());
            }
        }
        String found = result.plugins().stream().map(p -> p.info().name()).collect(Collectors.joining(", "));
        throw new CliFailure("no plugin named '" + name + "' in UROM_PLUGIN_PATH (found: "
                + (found.isEmpty() ? "none" : found) + ")");
    }

    private static String baseName(Path path) {
        String file = path.getFileName().toString();
        int dot = file.lastIndexOf('.');
        return dot < 0 ? file : file.substring(0, dot);
    }
}
