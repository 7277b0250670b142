// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import java.util.Map;

/**
 * What the command line reads from its environment. Immutable.
 *
 * @param uromPluginPath {@code UROM_PLUGIN_PATH}, or null
 * @param serviceArgs {@code SERVICE_ARGS} (the daemon's arguments in the container), or null
 */
record Environment(String uromPluginPath, String serviceArgs) {
    static final String PLUGIN_PATH = "UROM_PLUGIN_PATH";
    static final String SERVICE_ARGS = "SERVICE_ARGS";

    Environment(String uromPluginPath) {
        this(uromPluginPath, null);
    }

    static Environment of(Map<String, String> env) {
        return new Environment(env.get(PLUGIN_PATH), env.get(SERVICE_ARGS));
    }

    static Environment system() {
        return of(System.getenv());
    }

    /**
     * The plugin path to scan.
     *
     * @throws CliFailure when it is unset or empty
     */
    String requirePluginPath() {
        if (uromPluginPath == null || uromPluginPath.isBlank()) {
            throw new CliFailure(PLUGIN_PATH + " is not set: give the plugin directories, separated by ';'");
        }
        return uromPluginPath;
    }
}
