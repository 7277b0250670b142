package dev.urom.cli.doctor;

import dev.urom.framework.discovery.PluginPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Is {@code UROM_PLUGIN_PATH} set, and is each of its directories present and readable?
 * Stateless.
 */
public final class PluginDirectoriesCheck implements Check {
    static final String NAME = "plugin directories";

    private final String pluginPath;

    /** @param pluginPath the value of {@code UROM_PLUGIN_PATH}, or null when unset */
    public PluginDirectoriesCheck(String pluginPath) {
        this.pluginPath = pluginPath;
    }

    @Override
    public CheckResult run() {
        List<Path> directories;
        try {
            directories = PluginPath.parse(pluginPath);
        } catch (IllegalArgumentException e) {
            return CheckResult.failed(NAME, e.getMessage(), "fix " + PluginPath.ENVIRONMENT_VARIABLE);
        }
        if (directories.isEmpty()) {
            return CheckResult.failed(NAME, PluginPath.ENVIRONMENT_VARIABLE + " is not set or names no directory",
                    "set " + PluginPath.ENVIRONMENT_VARIABLE + " to the plugin directories, separated by ';'");
        }
        List<String> problems = new ArrayList<>();
        for (Path directory : directories) {
            if (!Files.exists(directory)) {
                problems.add(directory + " does not exist");
            } else if (!Files.isDirectory(directory)) {
                problems.add(directory + " is not a directory");
            } else if (!Files.isReadable(directory) || !Files.isExecutable(directory)) {
                problems.add(directory + " is not readable");
            }
        }
        if (!problems.isEmpty()) {
            return CheckResult.failed(NAME, String.join("; ", problems),
                    "create the directory, make it readable (chmod a+rx), or remove it from " + PluginPath.ENVIRONMENT_VARIABLE
                            + "; in Kubernetes, check the hostPath volume and mount of each plugin directory");
        }
        return CheckResult.passed(NAME, directories.size() + " readable: " + String.join(";", directories.stream().map(Path::toString).toList()));
    }
}
