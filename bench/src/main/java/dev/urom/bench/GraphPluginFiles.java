package dev.urom.bench;

import java.nio.file.Files;
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

    private static final Path BUILD_DIR = Path.of("plugins", "graph", "target");

    private GraphPluginFiles() {}

    /** The plugin file called {@code fileName}, absolute. */
    static Path locate(String fileName) {
        String configured = System.getProperty(DIR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path file = Path.of(configured).toAbsolutePath().resolve(fileName);
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException(file + " does not exist (system property " + DIR_PROPERTY + "=" + configured + ")");
            }
            return file;
        }
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path file = dir.resolve(BUILD_DIR).resolve(fileName);
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        throw new IllegalStateException(fileName + " not found in " + BUILD_DIR + " at or above " + start
                + "; build plugins/graph first (mvn -o install -pl plugins/graph) or set -D" + DIR_PROPERTY + "=<dir>");
    }
}
