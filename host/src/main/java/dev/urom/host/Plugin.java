// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.spi.PluginInfo;
import dev.urom.wire.ServicePlugin;

/**
 * One plugin that the daemon offers, as {@link UromService#plugins()} lists it. Immutable.
 *
 * @param info id, version and name
 * @param kind {@link #NATIVE} or {@link #JAVA}
 * @throws IllegalArgumentException (constructor) when {@code kind} is neither
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public record Plugin(PluginInfo info, String kind) {
    /** The kind of a plugin in a shared object. */
    public static final String NATIVE = ServicePlugin.NATIVE;
    /** The kind of a plugin in a Java plugin jar. */
    public static final String JAVA = ServicePlugin.JAVA;

    public Plugin {
        requireNonNull(info, "info is null");
        ServicePlugin.requireKind(kind);
    }

    /** Its id: one bit, which {@link WorkerBuilder#plugins(long)} ORs into a worker's mask. */
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
