// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * What the service reports for one plugin: {@code struct urom_plugin_info { uint64 id; uint64
 * version; char plugin_name[48]; }}.
 *
 * @param id one bit ({@code 1L << n}), unique within the service that reported it
 * @param version the plugin's own version ({@code urom_plugin_get_version} for a native plugin,
 *     {@code Plugin-Version} of the descriptor for a Java plugin)
 * @param name the plugin's file name without its extension, at most {@link #NAME_MAX_BYTES} bytes
 *     of UTF-8
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public record PluginInfo(long id, long version, String name) {
    /** Longest name: {@code plugin_name[48]} less its terminating NUL. */
    public static final int NAME_MAX_BYTES = 47;

    public PluginInfo {
        requireNonNull(name, "name is null");
        if (Long.bitCount(id) != 1) {
            throw new IllegalArgumentException("plugin id 0x" + Long.toHexString(id) + " is not a single bit");
        }
        checkName(name);
    }

    /**
     * Checks that {@code name} fits {@code plugin_name[48]}.
     *
     * @throws IllegalArgumentException naming the plugin and its length when it does not fit, or
     *     when it is empty
     */
    public static void checkName(String name) {
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0) {
            throw new IllegalArgumentException("plugin name is empty");
        }
        if (bytes > NAME_MAX_BYTES) {
            throw new IllegalArgumentException(
                    "plugin name '" + name + "' is " + bytes + " bytes; the limit is " + NAME_MAX_BYTES);
        }
    }
}
