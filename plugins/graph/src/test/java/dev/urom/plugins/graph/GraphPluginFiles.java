package dev.urom.plugins.graph;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the build put the two graph plugins; the module's pom passes their paths as system properties. */
final class GraphPluginFiles {
    static final String NATIVE_PROPERTY = "graph.native.plugin";
    static final String JAVA_PROPERTY = "graph.java.plugin";

    private GraphPluginFiles() {}

    /** {@code worker_graph.so}, built in the compile phase. */
    static Path nativePlugin() {
        return existing(NATIVE_PROPERTY);
    }

    /** {@code worker_graph_java.jar}, built in the package phase (integration tests only). */
    static Path javaPlugin() {
        return existing(JAVA_PROPERTY);
    }

    private static Path existing(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new AssertionError("system property " + property + " is not set; the module's pom sets it for surefire and failsafe");
        }
        Path path = Path.of(value).toAbsolutePath();
        if (!Files.isRegularFile(path)) {
            throw new AssertionError(property + "=" + value + " does not exist; build the module with mvn verify");
        }
        return path;
    }
}
