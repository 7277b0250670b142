// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.scaffold;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.worker.FailureText;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.lang.model.SourceVersion;

/**
 * The names a new plugin project is written with, all derived from one plugin name: {@code
 * demo_plugin} gives the plugin file {@code worker_demo_plugin}, the C prefix {@code demo_plugin},
 * the macro prefix {@code DEMO_PLUGIN}, the Java class prefix {@code DemoPlugin} and, unless one is
 * given, the Java package {@code com.example.demo_plugin}. Immutable.
 *
 * @param name lower-case letters, digits and underscores, a letter first, at most {@value
 *     #MAX_NAME_CHARS} characters
 * @param javaPackage the Java package of a Java project ({@link #checkJavaPackage})
 */
public record ScaffoldNames(String name, String javaPackage) {
    /** What fits a plugin name of DOCA's 48 bytes with its {@code worker_} prefix and the NUL. */
    public static final int MAX_NAME_CHARS = 40;

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

    /**
     * Checks the plugin name.
     *
     * @throws IllegalArgumentException one line naming the name and what is wrong with it
     */
    public ScaffoldNames {
        requireNonNull(name, "name is null");
        requireNonNull(javaPackage, "javaPackage is null");
        if (name.isEmpty() || name.length() > MAX_NAME_CHARS) {
            throw new IllegalArgumentException("plugin name '" + FailureText.oneLine(name) + "' has " + name.length()
                    + " characters; it needs 1 to " + MAX_NAME_CHARS);
        }
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("plugin name '" + FailureText.oneLine(name)
                    + "' is not lower-case letters, digits and underscores starting with a letter");
        }
        if (name.endsWith("_") || name.contains("__")) {
            throw new IllegalArgumentException(
                    "plugin name '" + name + "' ends with '_' or has '__': each word needs a letter or digit");
        }
    }

    /**
     * Checks the Java package, which only a Java project uses.
     *
     * @throws IllegalArgumentException one line naming the package and what is wrong with it
     */
    public void checkJavaPackage() {
        if (!SourceVersion.isName(javaPackage) || !javaPackage.equals(javaPackage.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException(
                    "Java package '" + FailureText.oneLine(javaPackage)
                            + "' is not a lower-case Java package name (dot-separated identifiers, no keyword); choose one with --package");
        }
    }

    /** {@code name} in the package {@code com.example.<name>}. */
    public static ScaffoldNames of(String name) {
        requireNonNull(name, "name is null");
        return new ScaffoldNames(name, "com.example." + name);
    }

    /** The plugin file's name less its extension: {@code worker_<name>}. */
    public String pluginName() {
        return "worker_" + name;
    }

    /** The Java class prefix: the words of the name, each capitalised ({@code demo_c} gives {@code DemoC}). */
    public String javaPrefix() {
        StringBuilder prefix = new StringBuilder();
        for (String word : name.split("_")) {
            prefix.append(Character.toUpperCase(word.charAt(0))).append(word, 1, word.length());
        }
        return prefix.toString();
    }

    /** The C macro prefix: the name in capitals. */
    public String macroPrefix() {
        return name.toUpperCase(Locale.ROOT);
    }

    /** The package as a relative folder path: dots become slashes. */
    public String packagePath() {
        return javaPackage.replace('.', '/');
    }
}
