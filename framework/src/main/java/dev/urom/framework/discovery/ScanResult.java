// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import java.util.List;

/**
 * What one scan of the plugin path found: the accepted plugins with their ids, in path order; the
 * rejected and shadowed candidates with their reasons; warnings about the path itself (a missing
 * or unreadable directory). Immutable.
 */
public record ScanResult(List<DiscoveredPlugin> plugins, List<Rejection> rejected, List<String> warnings) {
    public ScanResult {
        plugins = List.copyOf(plugins);
        rejected = List.copyOf(rejected);
        warnings = List.copyOf(warnings);
    }

    /** The result of scanning nothing. */
    public static ScanResult empty() {
        return new ScanResult(List.of(), List.of(), List.of());
    }

    /** The ids of all accepted plugins, or'ed together. */
    public long idMask() {
        long mask = 0;
        for (DiscoveredPlugin plugin : plugins) {
            mask |= plugin.id();
        }
        return mask;
    }
}
