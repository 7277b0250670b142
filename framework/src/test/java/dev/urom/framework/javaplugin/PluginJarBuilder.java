// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.javaplugin;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;

/**
 * Writes real plugin archives for tests: a manifest with PF4J attributes (or a {@code
 * plugin.properties}, or no descriptor at all) and class files copied from the test class path.
 */
public final class PluginJarBuilder {
    private final Path file;
    private final Map<String, String> manifestAttributes = new LinkedHashMap<>();
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final Map<String, byte[]> entries = new LinkedHashMap<>();

    private PluginJarBuilder(Path file) {
        this.file = file;
    }

    /** An archive at {@code file} with nothing in it yet. */
    public static PluginJarBuilder at(Path file) {
        return new PluginJarBuilder(file);
    }

    /** Writes a valid Java plugin: id {@code plugin}, the given version, {@code pluginClass} copied in. */
    public static Path validPlugin(Path file, Class<?> pluginClass, String version) {
        return at(file).manifest("Plugin-Id", "plugin")
                .manifest("Plugin-Version", version)
                .manifest("Plugin-Class", pluginClass.getName())
                .addClass(pluginClass)
                .write();
    }

    public PluginJarBuilder manifest(String attribute, String value) {
        manifestAttributes.put(attribute, value);
        return this;
    }

    public PluginJarBuilder property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    /** Copies the class file of {@code type} (and of its superclasses outside the JDK and SPI). */
    public PluginJarBuilder addClass(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            if (!c.getName().startsWith("dev.urom.spi.")) {
                addClassFile(c);
            }
        }
        return this;
    }

    /** Copies the class file of {@code type} alone, whatever its package. */
    public PluginJarBuilder addClassFile(Class<?> type) {
        String resource = type.getName().replace('.', '/') + ".class";
        try (InputStream in = type.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no class file " + resource + " on the test class path");
            }
            entries.put(resource, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public PluginJarBuilder entry(String name, String content) {
        entries.put(name, content.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Writes the archive and returns its path. */
    public Path write() {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Manifest manifest = new Manifest();
            manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
            manifestAttributes.forEach((k, v) -> manifest.getMainAttributes().putValue(k, v));
            try (OutputStream out = Files.newOutputStream(file);
                    JarOutputStream jar = new JarOutputStream(out, manifest)) {
                if (!properties.isEmpty()) {
                    Properties props = new Properties();
                    props.putAll(properties);
                    jar.putNextEntry(new ZipEntry("plugin.properties"));
                    props.store(jar, null);
                    jar.closeEntry();
                }
                for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                    jar.putNextEntry(new ZipEntry(e.getKey()));
                    jar.write(e.getValue());
                    jar.closeEntry();
                }
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
