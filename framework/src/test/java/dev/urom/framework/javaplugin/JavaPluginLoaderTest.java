// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.javaplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.framework.javaplugin.fixtures.EchoJavaPlugin;
import dev.urom.framework.javaplugin.fixtures.ExplodingStaticInitPlugin;
import dev.urom.framework.javaplugin.fixtures.FailingConstructorPlugin;
import dev.urom.framework.javaplugin.fixtures.NoDefaultConstructorPlugin;
import dev.urom.framework.javaplugin.fixtures.NotAPlugin;
import dev.urom.spi.DomainLookups;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerContext;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JavaPluginLoaderTest {
    @TempDir
    Path dir;

    @Test
    void checkAcceptsAValidPlugin() throws Exception {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("echo.jar"), EchoJavaPlugin.class, "5");

        assertThat(JavaPluginLoader.check(jar).version()).isEqualTo(5);
    }

    @Test
    void checkRunsNoPluginCode() throws Exception {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("static.jar"), ExplodingStaticInitPlugin.class, "1");

        assertThat(JavaPluginLoader.check(jar).pluginClass()).isEqualTo(ExplodingStaticInitPlugin.class.getName());
        assertThatThrownBy(() -> JavaPluginLoader.instantiate(jar))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INITIALIZATION))
                .hasMessage(jar + ": Plugin-Class " + ExplodingStaticInitPlugin.class.getName()
                        + " static initialiser failed (IllegalStateException: static initialiser ran)");
    }

    @Test
    void checkRefusesAClassThatDoesNotImplementTheSpi() {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("notplugin.jar"), NotAPlugin.class, "1");

        assertThatThrownBy(() -> JavaPluginLoader.check(jar))
                .isInstanceOf(InvalidJavaPluginException.class)
                .hasMessage(jar + ": Plugin-Class " + NotAPlugin.class.getName()
                        + " does not implement dev.urom.spi.PluginIface");
    }

    @Test
    void checkRefusesAClassMissingFromTheJar() {
        Path jar = PluginJarBuilder.at(dir.resolve("missing.jar"))
                .manifest("Plugin-Id", "m")
                .manifest("Plugin-Version", "1")
                .manifest("Plugin-Class", "com.example.Missing")
                .write();
        Path fromClassPath = PluginJarBuilder.at(dir.resolve("classpath.jar"))
                .manifest("Plugin-Id", "c")
                .manifest("Plugin-Version", "1")
                .manifest("Plugin-Class", EchoJavaPlugin.class.getName())
                .write();

        assertThatThrownBy(() -> JavaPluginLoader.check(jar))
                .hasMessage(jar + ": Plugin-Class com.example.Missing not found in the jar");
        assertThatThrownBy(() -> JavaPluginLoader.check(fromClassPath))
                .hasMessageStartingWith(
                        fromClassPath + ": Plugin-Class " + EchoJavaPlugin.class.getName() + " not found in the jar");
        assertThatThrownBy(() -> JavaPluginLoader.instantiate(jar))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND))
                .hasMessage(jar + ": Plugin-Class com.example.Missing not found in the jar");
    }

    @Test
    void checkRefusesAClassWithoutNoArgumentConstructor() {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("ctor.jar"), NoDefaultConstructorPlugin.class, "1");

        assertThatThrownBy(() -> JavaPluginLoader.check(jar))
                .hasMessage(jar + ": Plugin-Class " + NoDefaultConstructorPlugin.class.getName()
                        + " has no public no-argument constructor");
    }

    @Test
    void instantiateRunsThePluginBehindTheSpi() throws Exception {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("echo.jar"), EchoJavaPlugin.class, "9");

        JavaPlugin plugin = JavaPluginLoader.instantiate(jar);
        ClassLoader loader = plugin.classLoader();
        plugin.open(context());

        assertThat(plugin.version()).isEqualTo(9);
        assertThat(plugin.instance().getClass().getClassLoader()).isSameAs(loader);
        assertThat(plugin.instance()).isNotInstanceOf(EchoJavaPlugin.class);
        assertThat(new String(plugin.address(), StandardCharsets.US_ASCII)).isEqualTo("echo");

        plugin.close();
        plugin.close();
        assertThat(((PluginClassLoader) loader)
                        .findResource(EchoJavaPlugin.class.getName().replace('.', '/') + ".class"))
                .as("the class loader is closed with the plugin")
                .isNull();
    }

    @Test
    void aJarBundlingItsOwnSpiStillImplementsTheWorkersSpi() throws Exception {
        Path jar = PluginJarBuilder.at(dir.resolve("bundled.jar"))
                .manifest("Plugin-Id", "b")
                .manifest("Plugin-Version", "1")
                .manifest("Plugin-Class", EchoJavaPlugin.class.getName())
                .addClass(EchoJavaPlugin.class)
                .addClassFile(PluginIface.class)
                .write();

        assertThat(JavaPluginLoader.check(jar).pluginId()).isEqualTo("b");
        JavaPlugin plugin = JavaPluginLoader.instantiate(jar);
        try {
            Object instance = plugin.instance();
            assertThat(instance).isInstanceOf(PluginIface.class);
            assertThat(plugin.classLoader().loadClass(PluginIface.class.getName()))
                    .isSameAs(PluginIface.class);
            URL spi = plugin.classLoader().getResource("dev/urom/spi/PluginIface.class");
            assertThat(spi.toString()).doesNotContain("bundled.jar");
        } finally {
            plugin.close();
        }
    }

    @Test
    void instantiateReportsAFailingConstructor() {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("fail.jar"), FailingConstructorPlugin.class, "1");

        assertThatThrownBy(() -> JavaPluginLoader.instantiate(jar))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INITIALIZATION))
                .hasMessage(jar + ": Plugin-Class " + FailingConstructorPlugin.class.getName()
                        + " constructor failed (IllegalStateException: constructor refuses)");
    }

    @Test
    void instantiateReportsMissingFilesAndBadDescriptors() {
        Path missing = dir.resolve("absent.jar");
        Path noDescriptor = PluginJarBuilder.at(dir.resolve("plain.jar"))
                .addClass(EchoJavaPlugin.class)
                .write();

        assertThatThrownBy(() -> JavaPluginLoader.instantiate(missing))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND))
                .hasMessage(missing + ": no such file");
        assertThatThrownBy(() -> JavaPluginLoader.instantiate(noDescriptor))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INITIALIZATION))
                .hasMessage(noDescriptor + ": no PF4J plugin descriptor (MANIFEST.MF Plugin-Id or plugin.properties)");
    }

    private static WorkerContext context() {
        return new WorkerContext() {
            @Override
            public long workerId() {
                return 1;
            }

            @Override
            public long pluginId() {
                return 2;
            }

            @Override
            public DomainLookups domain() {
                return DomainLookups.none();
            }
        };
    }
}
