// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.javaplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.framework.javaplugin.fixtures.EchoJavaPlugin;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JavaPluginDescriptorTest {
    @TempDir
    Path dir;

    @Test
    void readsManifestAttributes() throws Exception {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("echo.jar"), EchoJavaPlugin.class, "7");

        JavaPluginDescriptor descriptor = JavaPluginDescriptor.read(jar);

        assertThat(descriptor).isEqualTo(new JavaPluginDescriptor("plugin", 7, EchoJavaPlugin.class.getName(), jar));
    }

    @Test
    void readsPluginPropertiesInsideAZip() throws Exception {
        Path zip = PluginJarBuilder.at(dir.resolve("echo.zip"))
                .property("plugin.id", "props")
                .property("plugin.version", "3")
                .property("plugin.class", "com.example.Props")
                .write();

        JavaPluginDescriptor descriptor = JavaPluginDescriptor.read(zip);

        assertThat(descriptor).isEqualTo(new JavaPluginDescriptor("props", 3, "com.example.Props", zip));
    }

    @Test
    void versionIsUnsigned64Bit() throws Exception {
        Path jar = PluginJarBuilder.at(dir.resolve("big.jar"))
                .manifest("Plugin-Id", "big")
                .manifest("Plugin-Version", "18446744073709551615")
                .manifest("Plugin-Class", "x.Y")
                .write();

        assertThat(JavaPluginDescriptor.read(jar).version()).isEqualTo(-1L);
    }

    @Test
    void refusesAJarWithoutDescriptor() {
        Path jar = PluginJarBuilder.at(dir.resolve("plain.jar"))
                .addClass(EchoJavaPlugin.class)
                .write();

        assertThatThrownBy(() -> JavaPluginDescriptor.read(jar))
                .isInstanceOf(InvalidJavaPluginException.class)
                .hasMessage(jar + ": no PF4J plugin descriptor (MANIFEST.MF Plugin-Id or plugin.properties)");
    }

    @Test
    void refusesADottedVersion() {
        Path jar = PluginJarBuilder.at(dir.resolve("dotted.jar"))
                .manifest("Plugin-Id", "d")
                .manifest("Plugin-Version", "1.0.0")
                .manifest("Plugin-Class", "x.Y")
                .write();

        assertThatThrownBy(() -> JavaPluginDescriptor.read(jar))
                .hasMessage(jar + ": Plugin-Version '1.0.0' is not an unsigned decimal number");
    }

    @Test
    void refusesNegativeAndOversizedVersions() {
        Path negative = PluginJarBuilder.at(dir.resolve("neg.jar"))
                .manifest("Plugin-Id", "n")
                .manifest("Plugin-Version", "-1")
                .manifest("Plugin-Class", "x.Y")
                .write();
        Path huge = PluginJarBuilder.at(dir.resolve("huge.jar"))
                .manifest("Plugin-Id", "h")
                .manifest("Plugin-Version", "18446744073709551616")
                .manifest("Plugin-Class", "x.Y")
                .write();

        assertThatThrownBy(() -> JavaPluginDescriptor.read(negative))
                .hasMessage(negative + ": Plugin-Version '-1' is not an unsigned decimal number");
        assertThatThrownBy(() -> JavaPluginDescriptor.read(huge))
                .hasMessageStartingWith(
                        huge + ": Plugin-Version '18446744073709551616' is larger than 18446744073709551615");
    }

    @Test
    void refusesMissingVersionAndClass() {
        Path noVersion = PluginJarBuilder.at(dir.resolve("nov.jar"))
                .manifest("Plugin-Id", "n")
                .manifest("Plugin-Class", "x.Y")
                .write();
        Path noClass = PluginJarBuilder.at(dir.resolve("noc.jar"))
                .manifest("Plugin-Id", "n")
                .manifest("Plugin-Version", "1")
                .write();

        assertThatThrownBy(() -> JavaPluginDescriptor.read(noVersion))
                .hasMessage(noVersion + ": Plugin-Version is missing");
        assertThatThrownBy(() -> JavaPluginDescriptor.read(noClass)).hasMessage(noClass + ": Plugin-Class is missing");
    }

    @Test
    void refusesAFileThatIsNotAnArchive() throws Exception {
        Path jar = Files.writeString(dir.resolve("text.jar"), "not a zip");

        assertThatThrownBy(() -> JavaPluginDescriptor.read(jar))
                .isInstanceOf(InvalidJavaPluginException.class)
                .hasMessageStartingWith(jar + ": not a readable jar or zip archive")
                .hasMessageNotContaining("\n");
    }
}
