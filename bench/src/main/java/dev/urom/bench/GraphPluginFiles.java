// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;

/**
 * Finds the graph plugins that {@code plugins/graph} builds: in the directory named by system
 * property {@value #DIR_PROPERTY} when it is set, otherwise in {@code plugins/graph/target} of the
 * first directory at or above the working directory that has one.
 *
 * <p>Stateless. Throws {@link IllegalStateException} with one line naming the missing file and where
 * it was looked for.
 */
final class GraphPluginFiles {
    /** A directory holding {@value #NATIVE_FILE} and {@value #JAVA_FILE}. */
    static final String DIR_PROPERTY = "urom.bench.graph.dir";

    static final String NATIVE_FILE = "worker_graph.so";
    static final String JAVA_FILE = "worker_graph_java.jar";

    private GraphPluginFiles() {}

    /** The plugin file called {@code fileName}, absolute. */
    static Path locate(String fileName) {
        return PluginFiles.locate("plugins/graph", DIR_PROPERTY, fileName);
    }
}
