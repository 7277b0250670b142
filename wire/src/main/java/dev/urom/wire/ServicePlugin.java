// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.spi.PluginInfo;

/**
 * One plugin as the daemon reports it in PLUGINS_REPLY.
 *
 * @param info id, version and name
 * @param kind {@link #NATIVE} or {@link #JAVA}
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public record ServicePlugin(PluginInfo info, String kind) {
    /** The kind of a plugin in a shared object. */
    public static final String NATIVE = "native";
    /** The kind of a plugin in a Java plugin jar. */
    public static final String JAVA = "java";

    public ServicePlugin {
        requireNonNull(info, "info is null");
        requireKind(kind);
    }

    /**
     * Checks a plugin kind, for this record and for the host API's view of it.
     *
     * @throws NullPointerException when {@code kind} is null
     * @throws IllegalArgumentException when it is neither {@link #NATIVE} nor {@link #JAVA}
     */
    public static void requireKind(String kind) {
        requireNonNull(kind, "kind is null");
        if (!kind.equals(NATIVE) && !kind.equals(JAVA)) {
            throw new IllegalArgumentException("plugin kind '" + kind + "' is neither 'native' nor 'java'");
        }
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
