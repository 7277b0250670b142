// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.nio.file.Path;

/** Where the build put the two graph plugins; the module's pom passes their paths as system properties. */
final class GraphPluginFiles {
    static final String NATIVE_PROPERTY = "graph.native.plugin";
    static final String JAVA_PROPERTY = "graph.java.plugin";

    private GraphPluginFiles() {}

    /** {@code worker_graph.so}, built in the compile phase. */
    static Path nativePlugin() {
        return NativeFixtures.builtFile(NATIVE_PROPERTY);
    }

    /** {@code worker_graph_java.jar}, built in the package phase (integration tests only). */
    static Path javaPlugin() {
        return NativeFixtures.builtFile(JAVA_PROPERTY);
    }
}
