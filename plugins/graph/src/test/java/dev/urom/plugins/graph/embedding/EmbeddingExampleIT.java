// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph.embedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the example of docs/embedding.md on the graph plugins this module built (the jar exists
 * from the package phase on, hence an integration test): a copy of each in a plugin directory of
 * its own.
 */
class EmbeddingExampleIT {
    private static final long DATA = new Random().nextLong();

    @TempDir
    Path work;

    Path plugins;

    @BeforeEach
    void pluginDirectory() throws IOException {
        plugins = Files.createDirectories(work.resolve("plugins"));
        Files.copy(NativeFixtures.builtFile("graph.native.plugin"), plugins.resolve("worker_graph.so"));
    }

    @Test
    void theExampleListsBothGraphPluginsAndEachEchoesItsLoopback() throws Exception {
        Files.copy(NativeFixtures.builtFile("graph.java.plugin"), plugins.resolve("worker_graph_java.jar"));

        assertThat(EmbeddingExample.run(plugins.toString(), DATA))
                .as("lines for data %d", DATA)
                .containsExactly(
                        "plugin worker_graph: id 0x1, version 1, native, worker_graph.so",
                        "plugin worker_graph_java: id 0x2, version 1, java, worker_graph_java.jar",
                        "worker_graph: LOOPBACK " + DATA + " -> SUCCESS " + DATA,
                        "worker_graph_java: LOOPBACK " + DATA + " -> SUCCESS " + DATA);
    }

    @Test
    void withoutTheJavaGraphPluginTheExampleFailsNamingIt() {
        assertThatThrownBy(() -> EmbeddingExample.run(plugins.toString(), DATA))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND))
                .hasMessage("no plugin named 'worker_graph_java' in plugin path " + plugins + " (found: worker_graph)");
    }
}
