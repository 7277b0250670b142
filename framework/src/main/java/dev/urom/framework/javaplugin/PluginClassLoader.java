// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.javaplugin;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The class loader of one Java plugin: the plugin's own classes and resources first (child-first),
 * then the parent's; but the SPI packages ({@value #SPI_PACKAGE} and below) and the JDK's {@code
 * java.*} always come from the parent, so a plugin that bundles its own copy of the SPI still
 * implements the worker's {@code PluginIface}.
 *
 * <p>It extends {@link URLClassLoader} rather than PF4J's {@code PluginClassLoader}: PF4J's needs a
 * {@code PluginManager} and resolves plugin-to-plugin dependencies, neither of which exists here (a
 * UROM plugin depends on the SPI only), and a plugin must not need PF4J on its class path.
 *
 * <p>Thread-safe (parallel capable). The owner closes it when the plugin is done with; classes
 * already loaded stay usable, new loads from the archive fail.
 */
public final class PluginClassLoader extends URLClassLoader {
    /** The package prefix that is always loaded from the parent. */
    public static final String SPI_PACKAGE = "dev.urom.spi";

    private static final List<String> PARENT_ONLY_CLASS_PREFIXES = List.of("java.", SPI_PACKAGE + ".");
    private static final String SPI_RESOURCE_PREFIX = SPI_PACKAGE.replace('.', '/') + "/";

    static {
        ClassLoader.registerAsParallelCapable();
    }

    private final Path archive;

    /**
     * @param archive the plugin's jar or zip
     * @param parent the loader that provides the SPI (the worker's)
     */
    public PluginClassLoader(Path archive, ClassLoader parent) {
        super(
                "urom-plugin:" + archive.getFileName(),
                new URL[] {toUrl(archive)},
                requireNonNull(parent, "parent is null"));
        this.archive = archive;
    }

    /** The plugin archive this loader reads. */
    public Path archive() {
        return archive;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (isParentOnlyClass(name)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                try {
                    loaded = findClass(name);
                } catch (ClassNotFoundException notInPlugin) {
                    loaded = getParent().loadClass(name);
                }
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    @Override
    public URL getResource(String name) {
        if (isParentOnlyResource(name)) {
            return getParent().getResource(name);
        }
        URL own = findResource(name);
        return own != null ? own : getParent().getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        if (isParentOnlyResource(name)) {
            return getParent().getResources(name);
        }
        List<URL> all = new ArrayList<>(Collections.list(findResources(name)));
        all.addAll(Collections.list(getParent().getResources(name)));
        return Collections.enumeration(all);
    }

    /** Whether {@code className} is always loaded from the parent. */
    static boolean isParentOnlyClass(String className) {
        for (String prefix : PARENT_ONLY_CLASS_PREFIXES) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isParentOnlyResource(String resourceName) {
        String name = resourceName.startsWith("/") ? resourceName.substring(1) : resourceName;
        return name.startsWith(SPI_RESOURCE_PREFIX) || name.startsWith("java/");
    }

    private static URL toUrl(Path archive) {
        try {
            return requireNonNull(archive, "archive is null")
                    .toAbsolutePath()
                    .toUri()
                    .toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(archive + ": cannot be turned into a class path URL", e);
        }
    }
}
