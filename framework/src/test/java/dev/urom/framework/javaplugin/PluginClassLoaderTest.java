// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.javaplugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.javaplugin.fixtures.EchoJavaPlugin;
import dev.urom.spi.PluginIface;
import java.net.URL;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginClassLoaderTest {
    @TempDir
    Path dir;

    @Test
    void loadsThePluginsOwnClassesFirst() throws Exception {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("echo.jar"), EchoJavaPlugin.class, "1");

        try (PluginClassLoader loader = new PluginClassLoader(jar, getClass().getClassLoader())) {
            Class<?> loaded = loader.loadClass(EchoJavaPlugin.class.getName());

            assertThat(loaded).isNotSameAs(EchoJavaPlugin.class);
            assertThat(loaded.getClassLoader()).isSameAs(loader);
        }
    }

    @Test
    void alwaysTakesTheSpiFromTheParentEvenWhenTheJarBundlesIt() throws Exception {
        Path jar = PluginJarBuilder.at(dir.resolve("bundles-spi.jar"))
                .addClassFile(PluginIface.class)
                .entry("dev/urom/spi/marker.txt", "plugin copy")
                .write();

        try (PluginClassLoader loader = new PluginClassLoader(jar, getClass().getClassLoader())) {
            assertThat(loader.loadClass(PluginIface.class.getName())).isSameAs(PluginIface.class);
            URL resource = loader.getResource("dev/urom/spi/PluginIface.class");
            assertThat(resource).isNotNull();
            assertThat(resource.toString()).doesNotContain("bundles-spi.jar");
            assertThat(loader.getResource("dev/urom/spi/marker.txt")).isNull();
            assertThat(Collections.list(loader.getResources("dev/urom/spi/PluginIface.class")))
                    .allSatisfy(url -> assertThat(url.toString()).doesNotContain("bundles-spi.jar"));
        }
    }

    @Test
    void fallsBackToTheParentForClassesTheJarLacks() throws Exception {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("echo.jar"), EchoJavaPlugin.class, "1");

        try (PluginClassLoader loader = new PluginClassLoader(jar, getClass().getClassLoader())) {
            assertThat(loader.loadClass(PluginClassLoaderTest.class.getName())).isSameAs(PluginClassLoaderTest.class);
            assertThat(loader.loadClass("java.lang.String")).isSameAs(String.class);
        }
    }

    @Test
    void ownResourcesComeFirst() throws Exception {
        Path jar = PluginJarBuilder.at(dir.resolve("res.jar"))
                .entry("log4j2-test.xml", "<plugin/>")
                .write();

        try (PluginClassLoader loader = new PluginClassLoader(jar, getClass().getClassLoader())) {
            assertThat(loader.getResource("log4j2-test.xml").toString()).contains("res.jar");
        }
    }
}
