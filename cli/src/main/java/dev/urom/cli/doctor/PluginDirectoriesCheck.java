// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import dev.urom.framework.discovery.PluginPath;
import dev.urom.framework.discovery.ScanPolicy;
import dev.urom.framework.security.PathTrust;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Is {@code UROM_PLUGIN_PATH} set, and is each of its directories present, readable, and trusted
 * as the daemon's scan requires ({@link PathTrust#untrusted}: owned by root or this user, and no
 * one else can write it or a directory above it)? A directory that fails this is a WARN while
 * another one passes (the daemon scans the others), a FAIL when none does. Stateless.
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
            return CheckResult.failed(
                    NAME,
                    PluginPath.ENVIRONMENT_VARIABLE + " is not set or names no directory",
                    "set " + PluginPath.ENVIRONMENT_VARIABLE + " to the plugin directories, separated by ';'");
        }
        List<String> problems = new ArrayList<>();
        List<String> untrusted = new ArrayList<>();
        int usable = 0;
        Set<Integer> trustedOwners = ScanPolicy.secure().trustedOwners();
        for (Path directory : directories) {
            if (!Files.exists(directory)) {
                problems.add(directory + " does not exist");
            } else if (!Files.isDirectory(directory)) {
                problems.add(directory + " is not a directory");
            } else if (!Files.isReadable(directory) || !Files.isExecutable(directory)) {
                problems.add(directory + " is not readable");
            } else {
                var distrust = PathTrust.untrusted(directory, trustedOwners);
                distrust.ifPresent(untrusted::add);
                if (distrust.isEmpty()) {
                    usable++;
                }
            }
        }
        if (!problems.isEmpty() || !untrusted.isEmpty()) {
            List<String> advice = new ArrayList<>();
            if (!problems.isEmpty()) {
                advice.add("create the directory, make it readable (chmod a+rx), or remove it from "
                        + PluginPath.ENVIRONMENT_VARIABLE
                        + "; in Kubernetes, check the hostPath volume and mount of each plugin directory");
            }
            if (!untrusted.isEmpty()) {
                advice.add(
                        "the daemon probes no plugin that others could have written: make each directory named, and those above it,"
                                + " owned by root or the daemon's user and not writable by group or others (chown root DIR; chmod go-w DIR)");
            }
            List<String> all = new ArrayList<>(problems);
            all.addAll(untrusted);
            if (usable == 0) {
                return CheckResult.failed(NAME, String.join("; ", all), String.join("; ", advice));
            }
            return CheckResult.warned(
                    NAME, String.join("; ", all) + "; the daemon scans the other " + usable, String.join("; ", advice));
        }
        return CheckResult.passed(
                NAME,
                directories.size() + " readable and trusted: "
                        + String.join(
                                ";", directories.stream().map(Path::toString).toList()));
    }
}
