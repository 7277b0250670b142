// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds a plugin file that a plugin module builds: in the directory named by a system property when
 * it is set, otherwise in the module's build folder ({@code plugins/<name>/target}) of the first
 * directory at or above the working directory that has the file.
 *
 * <p>Stateless. Throws {@link IllegalStateException} with one line naming the missing file and where
 * it was looked for.
 */
final class PluginFiles {
    private PluginFiles() {}

    /**
     * The plugin file {@code fileName}, absolute.
     *
     * @param module the plugin module's folder, relative to the project root ({@code plugins/graph})
     * @param dirProperty the system property that may name the directory holding the file
     */
    static Path locate(String module, String dirProperty, String fileName) {
        String configured = System.getProperty(dirProperty);
        if (configured != null && !configured.isBlank()) {
            Path file = Path.of(configured).toAbsolutePath().resolve(fileName);
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException(
                        file + " does not exist (system property " + dirProperty + "=" + configured + ")");
            }
            return file;
        }
        Path buildDir = Path.of(module, "target");
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path file = dir.resolve(buildDir).resolve(fileName);
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        throw new IllegalStateException(fileName + " not found in " + buildDir + " at or above " + start + "; build "
                + module + " first (mvn -o install -pl " + module + ") or set -D" + dirProperty + "=<dir>");
    }
}
