// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.PluginInfo;
import java.nio.file.Path;

/**
 * A plugin that a scan accepted: what the service reports for it, its kind and its file.
 * Immutable.
 */
public record DiscoveredPlugin(PluginInfo info, PluginKind kind, Path path) {
    public DiscoveredPlugin {
        requireNonNull(info, "info is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(path, "path is null");
    }

    public long id() {
        return info.id();
    }

    public String name() {
        return info.name();
    }

    public long version() {
        return info.version();
    }
}
