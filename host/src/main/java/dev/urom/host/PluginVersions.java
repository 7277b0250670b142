// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import dev.urom.spi.Api;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.util.List;

/** Checks that the service offers a plugin in the version a host was written for. Stateless. */
@Api(status = Api.Status.STABLE, since = "0.1")
public final class PluginVersions {
    private PluginVersions() {}

    /**
     * The plugin called {@code name}.
     *
     * @throws UromException NOT_FOUND when the list has no such plugin; UNSUPPORTED_VERSION
     *     ("plugin worker_graph has version 2; this host was written for 1") when its version
     *     differs
     */
    public static Plugin require(List<Plugin> plugins, String name, long expectedVersion) throws UromException {
        for (Plugin p : plugins) {
            if (p.name().equals(name)) {
                if (p.version() != expectedVersion) {
                    throw new UromException(
                            UromStatus.UNSUPPORTED_VERSION,
                            "plugin " + name + " has version " + Long.toUnsignedString(p.version())
                                    + "; this host was written for " + Long.toUnsignedString(expectedVersion));
                }
                return p;
            }
        }
        throw new UromException(UromStatus.NOT_FOUND, "plugin " + name + " is not offered by the service");
    }
}
