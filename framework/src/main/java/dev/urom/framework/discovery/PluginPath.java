// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Parses {@code UROM_PLUGIN_PATH}: directories separated by {@code ;}, in the order to scan them.
 * Entries are stripped of surrounding white space; empty entries are ignored; a directory named
 * twice is kept at its first place.
 *
 * <p>Stateless; safe to call from any thread.
 */
public final class PluginPath {
    /** The environment variable that holds the plugin path. */
    public static final String ENVIRONMENT_VARIABLE = "UROM_PLUGIN_PATH";

    /** The entry separator. */
    public static final char SEPARATOR = ';';

    private PluginPath() {}

    /**
     * The directories of {@code uromPluginPath}, in order, without duplicates; empty for {@code
     * null} or a path with no entries.
     *
     * @throws IllegalArgumentException naming the entry when it is not a valid path (holds a NUL)
     */
    public static List<Path> parse(String uromPluginPath) {
        if (uromPluginPath == null) {
            return List.of();
        }
        Set<Path> directories = new LinkedHashSet<>();
        int start = 0;
        int position = 1;
        while (start <= uromPluginPath.length()) {
            int end = uromPluginPath.indexOf(SEPARATOR, start);
            if (end < 0) {
                end = uromPluginPath.length();
            }
            String entry = uromPluginPath.substring(start, end).strip();
            if (!entry.isEmpty()) {
                directories.add(toPath(entry, position));
            }
            start = end + 1;
            position++;
        }
        return List.copyOf(new ArrayList<>(directories));
    }

    private static Path toPath(String entry, int position) {
        try {
            return Path.of(entry);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(ENVIRONMENT_VARIABLE + " entry " + position + " '"
                    + entry.replace("\0", "\\0") + "' is not a valid path: " + e.getReason());
        }
    }
}
