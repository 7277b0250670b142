// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ExtensionPluginLoaderTest {
    private final EchoPlugin nativeOne = new EchoPlugin("native");
    private final EchoPlugin javaOne = new EchoPlugin("java");
    private final PluginLoader loader = PluginLoader.byExtension(path -> nativeOne, path -> javaOne);

    @Test
    void sharedObjectsGoToTheNativeLoader() throws UromException {
        assertThat(loader.load(Path.of("/plugins/worker_graph.so"))).isSameAs(nativeOne);
    }

    @Test
    void jarsAndZipsGoToTheJavaLoader() throws UromException {
        PluginIface fromJar = loader.load(Path.of("/plugins/worker_graph_java.jar"));
        PluginIface fromZip = loader.load(Path.of("/plugins/worker_graph_java.zip"));
        assertThat(fromJar).isSameAs(javaOne);
        assertThat(fromZip).isSameAs(javaOne);
    }

    @Test
    void otherFilesAreRefusedNamingTheFile() {
        assertThatThrownBy(() -> loader.load(Path.of("/plugins/readme.txt")))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_SUPPORTED))
                .hasMessageContaining("/plugins/readme.txt")
                .hasMessageContaining(".so");
    }

    @Test
    void theLastExtensionDecides() {
        assertThatThrownBy(() -> loader.load(Path.of("/plugins/graph.so.bak")))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_SUPPORTED));
    }
}
