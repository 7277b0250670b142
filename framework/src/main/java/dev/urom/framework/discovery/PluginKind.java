// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import java.util.Locale;
import java.util.Optional;

/** The two kinds of plugin file, told apart by their extension. */
public enum PluginKind {
    /** A shared object ({@code .so}) loaded through the C ABI. */
    NATIVE,
    /** A PF4J jar or zip whose {@code Plugin-Class} implements {@code PluginIface}. */
    JAVA;

    /** The kind as listings and the wire spell it: {@code native} or {@code java}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The kind of a file named {@code fileName}, or empty when it is not a plugin candidate. */
    public static Optional<PluginKind> ofFileName(String fileName) {
        if (fileName.endsWith(".so")) {
            return Optional.of(NATIVE);
        }
        if (fileName.endsWith(".jar") || fileName.endsWith(".zip")) {
            return Optional.of(JAVA);
        }
        return Optional.empty();
    }

    /** The plugin name of a candidate file: its name less the extension. */
    public static String pluginName(String fileName) {
        int dot = fileName.lastIndexOf('.');
        return dot < 0 ? fileName : fileName.substring(0, dot);
    }
}
