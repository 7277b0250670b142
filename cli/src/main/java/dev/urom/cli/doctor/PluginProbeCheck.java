// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginDiscovery;
import dev.urom.framework.discovery.Rejection;
import dev.urom.framework.discovery.ScanResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Does every plugin on {@code UROM_PLUGIN_PATH} pass the probe? Scans the path as the daemon
 * does; fails when no plugin is accepted (the daemon would serve nothing), warns when some
 * candidate is rejected beside accepted ones (the daemon skips it). Stateless; each run scans anew.
 */
public final class PluginProbeCheck implements Check {
    static final String NAME = "plugins";

    private final String pluginPath;

    /** @param pluginPath the value of {@code UROM_PLUGIN_PATH}, or null when unset */
    public PluginProbeCheck(String pluginPath) {
        this.pluginPath = pluginPath;
    }

    @Override
    public CheckResult run() {
        if (pluginPath == null || pluginPath.isBlank()) {
            return CheckResult.failed(
                    NAME,
                    "nothing to probe: UROM_PLUGIN_PATH is not set",
                    "set UROM_PLUGIN_PATH to the plugin directories, separated by ';'");
        }
        ScanResult result;
        try {
            result = new PluginDiscovery().scan(pluginPath);
        } catch (RuntimeException e) {
            return CheckResult.failed(NAME, "the scan failed: " + e.getMessage(), "fix UROM_PLUGIN_PATH");
        }
        List<String> accepted = new ArrayList<>();
        for (DiscoveredPlugin plugin : result.plugins()) {
            accepted.add(plugin.info().name() + " (" + plugin.kind().label() + ")");
        }
        String acceptedText =
                accepted.size() + " accepted" + (accepted.isEmpty() ? "" : ": " + String.join(", ", accepted));
        if (result.rejected().isEmpty() && !accepted.isEmpty()) {
            return CheckResult.passed(NAME, acceptedText);
        }
        List<String> reasons = new ArrayList<>();
        for (Rejection rejection : result.rejected()) {
            reasons.add(rejection.reason());
        }
        reasons.addAll(result.warnings());
        String detail = acceptedText + "; " + result.rejected().size() + " rejected"
                + (reasons.isEmpty() ? "" : ": " + String.join("; ", reasons));
        if (accepted.isEmpty()) {
            return CheckResult.failed(
                    NAME,
                    detail,
                    "put the plugins (.so files, or Java plugin jars) into a directory of UROM_PLUGIN_PATH");
        }
        return CheckResult.warned(
                NAME, detail, "fix or remove each rejected file; the daemon skips it and reports only what loads");
    }
}
