// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * A candidate that the scanner accepted, before it has an id. Immutable.
 *
 * @param identity the file's identity when it was probed
 */
public record ScannedPlugin(String name, long version, PluginKind kind, Path path, FileIdentity identity) {
    public ScannedPlugin {
        requireNonNull(name, "name is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(path, "path is null");
        requireNonNull(identity, "identity is null");
    }
}
