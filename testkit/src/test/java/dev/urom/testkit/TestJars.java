// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/** Plugin jars made of one class of the test class path. */
final class TestJars {
    private TestJars() {}

    /** A jar at {@code jar} whose PF4J manifest names {@code pluginClass}, holding that class. */
    static Path pluginJar(Path jar, Class<?> pluginClass) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Plugin-Id", "scripted");
        manifest.getMainAttributes().putValue("Plugin-Version", "1");
        manifest.getMainAttributes().putValue("Plugin-Class", pluginClass.getName());
        String entry = pluginClass.getName().replace('.', '/') + ".class";
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
                InputStream in = pluginClass.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
