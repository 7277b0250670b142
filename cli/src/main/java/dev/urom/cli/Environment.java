package dev.urom.cli;

import java.util.Map;

/** What the command line reads from its environment. Immutable. */
record Environment(String uromPluginPath) {
    static final String PLUGIN_PATH = "UROM_PLUGIN_PATH";

    static Environment of(Map<String, String> env) {
        return new Environment(env.get(PLUGIN_PATH));
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
