// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.nativebridge.NativePlugin;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import java.nio.file.Path;

/**
 * Turns a plugin file into a {@link PluginIface} that is loaded but not yet opened. The worker host
 * takes one, so that it can be driven by real plugin files or by plugins built in memory.
 *
 * <p>Implementations state their own thread-safety; the worker host calls one from its driving
 * thread only.
 */
@FunctionalInterface
public interface PluginLoader {
    /**
     * Loads the plugin in {@code path}.
     *
     * @param path absolute
     * @throws UromException with the status that names why the file cannot be a plugin
     */
    PluginIface load(Path path) throws UromException;

    /**
     * The worker's loader: {@code .so} files through {@link NativePlugin#load} (in this process),
     * {@code .jar}/{@code .zip} files through {@link JavaPluginLoader#instantiate} (each in its own
     * class loader), anything else refused with {@code NOT_SUPPORTED}. Not thread-safe: a native
     * plugin must be driven by the thread that loads it.
     */
    static PluginLoader standard() {
        return byExtension(NativePlugin::load, JavaPluginLoader::instantiate);
    }

    /**
     * A loader that hands {@code .so} files to {@code nativeLoader} and {@code .jar}/{@code .zip}
     * files to {@code javaLoader}, and refuses every other file with {@code NOT_SUPPORTED}.
     */
    static PluginLoader byExtension(PluginLoader nativeLoader, PluginLoader javaLoader) {
        return new ExtensionPluginLoader(nativeLoader, javaLoader);
    }
}
