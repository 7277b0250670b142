// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/** Java plugin jars of one fixture class from the test classes. For tests. */
public final class PluginJars {
    private PluginJars() {}

    /** Writes {@code jar}: a manifest naming {@code pluginClass} with {@code Plugin-Id} {@code id}, and that class. */
    public static Path write(Path jar, String id, Class<?> pluginClass) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Plugin-Id", id);
        manifest.getMainAttributes().putValue("Plugin-Version", "1");
        manifest.getMainAttributes().putValue("Plugin-Class", pluginClass.getName());
        String entry = pluginClass.getName().replace('.', '/') + ".class";
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
                var in = pluginClass.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
