// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.javaplugin;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import org.pf4j.DefaultPluginDescriptor;
import org.pf4j.ManifestPluginDescriptorFinder;
import org.pf4j.PluginDescriptor;
import org.pf4j.PluginDescriptorFinder;
import org.pf4j.PropertiesPluginDescriptorFinder;

/**
 * The PF4J descriptor of a Java plugin jar or zip, read with PF4J's own finders: {@code
 * MANIFEST.MF} attributes ({@code Plugin-Id}, {@code Plugin-Version}, {@code Plugin-Class}) first,
 * then {@code plugin.properties} ({@code plugin.id}, {@code plugin.version}, {@code
 * plugin.class}).
 *
 * <p>Immutable. {@link #read} is safe to call from any thread.
 *
 * @param pluginId the PF4J plugin id (informational; the service names plugins by file name)
 * @param version {@code Plugin-Version}, an unsigned 64-bit number (compare with {@link
 *     Long#compareUnsigned})
 * @param pluginClass the binary name of the class that implements {@code dev.urom.spi.PluginIface}
 * @param path the jar or zip the descriptor was read from
 */
public record JavaPluginDescriptor(String pluginId, long version, String pluginClass, Path path) {
    private static final Pattern UNSIGNED_DECIMAL = Pattern.compile("[0-9]+");

    /**
     * Serialises the properties finder: it opens a zip file system per archive and closes it after
     * reading, and two threads reading the same archive at once would close it under each other.
     */
    private static final Object ZIP_FILE_SYSTEM_LOCK = new Object();

    public JavaPluginDescriptor {
        requireNonNull(pluginId, "pluginId is null");
        requireNonNull(pluginClass, "pluginClass is null");
        requireNonNull(path, "path is null");
    }

    /**
     * Reads and validates the descriptor of {@code jarOrZip}.
     *
     * @throws InvalidJavaPluginException when the file is not a readable archive, has no PF4J
     *     descriptor, or its descriptor lacks {@code Plugin-Class} or has a {@code Plugin-Version}
     *     that is not an unsigned 64-bit decimal number
     */
    public static JavaPluginDescriptor read(Path jarOrZip) throws InvalidJavaPluginException {
        requireNonNull(jarOrZip, "jarOrZip is null");
        checkArchive(jarOrZip);
        PluginDescriptor found = find(jarOrZip, new ManifestFinder());
        if (found == null) {
            synchronized (ZIP_FILE_SYSTEM_LOCK) {
                found = find(jarOrZip, new PropertiesFinder());
            }
        }
        if (found == null) {
            throw new InvalidJavaPluginException(
                    jarOrZip, "no PF4J plugin descriptor (MANIFEST.MF Plugin-Id or plugin.properties)");
        }
        long version = parseVersion(jarOrZip, found.getVersion());
        String pluginClass = found.getPluginClass();
        if (pluginClass == null || pluginClass.isBlank()) {
            throw new InvalidJavaPluginException(jarOrZip, "Plugin-Class is missing");
        }
        return new JavaPluginDescriptor(found.getPluginId(), version, pluginClass.strip(), jarOrZip);
    }

    private static void checkArchive(Path file) throws InvalidJavaPluginException {
        if (!Files.isRegularFile(file)) {
            throw new InvalidJavaPluginException(file, "not a regular file");
        }
        String name = file.getFileName().toString();
        if (!name.endsWith(".jar") && !name.endsWith(".zip")) {
            throw new InvalidJavaPluginException(file, "a Java plugin must be a .jar or .zip file");
        }
        try (ZipFile zip = new ZipFile(file.toFile())) {
            zip.size();
        } catch (IOException e) {
            throw new InvalidJavaPluginException(file, "not a readable jar or zip archive (" + e.getMessage() + ")", e);
        }
    }

    /** The finder's descriptor when it has a plugin id, else {@code null}. */
    private static PluginDescriptor find(Path file, PluginDescriptorFinder finder) {
        PluginDescriptor descriptor;
        try {
            if (!finder.isApplicable(file)) {
                return null;
            }
            descriptor = finder.find(file);
        } catch (RuntimeException e) {
            // PF4J reports a missing manifest or properties file as PluginRuntimeException.
            return null;
        }
        if (descriptor == null
                || descriptor.getPluginId() == null
                || descriptor.getPluginId().isBlank()) {
            return null;
        }
        return descriptor;
    }

    private static long parseVersion(Path file, String text) throws InvalidJavaPluginException {
        if (text == null || text.isBlank()) {
            throw new InvalidJavaPluginException(file, "Plugin-Version is missing");
        }
        String version = text.strip();
        if (!UNSIGNED_DECIMAL.matcher(version).matches()) {
            throw new InvalidJavaPluginException(
                    file, "Plugin-Version '" + version + "' is not an unsigned decimal number");
        }
        try {
            return Long.parseUnsignedLong(version);
        } catch (NumberFormatException e) {
            throw new InvalidJavaPluginException(
                    file,
                    "Plugin-Version '" + version + "' is larger than " + Long.toUnsignedString(-1L)
                            + " (the largest unsigned 64-bit number)");
        }
    }

    /**
     * PF4J's descriptor, less its default {@code Plugin-Class} ({@code org.pf4j.Plugin}), so that a
     * descriptor without one reads as missing.
     */
    private static final class RawDescriptor extends DefaultPluginDescriptor {
        RawDescriptor() {
            setPluginClass(null);
        }
    }

    private static final class ManifestFinder extends ManifestPluginDescriptorFinder {
        @Override
        protected DefaultPluginDescriptor createPluginDescriptorInstance() {
            return new RawDescriptor();
        }
    }

    private static final class PropertiesFinder extends PropertiesPluginDescriptorFinder {
        @Override
        protected DefaultPluginDescriptor createPluginDescriptorInstance() {
            return new RawDescriptor();
        }
    }
}
