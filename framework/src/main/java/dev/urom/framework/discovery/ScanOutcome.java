// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import java.util.List;

/**
 * What {@link PluginScanner} found, before ids are given: accepted plugins in path order (one per
 * name), rejected and shadowed candidates, warnings about the path. Immutable.
 */
public record ScanOutcome(List<ScannedPlugin> plugins, List<Rejection> rejected, List<String> warnings) {
    public ScanOutcome {
        plugins = List.copyOf(plugins);
        rejected = List.copyOf(rejected);
        warnings = List.copyOf(warnings);
    }
}
