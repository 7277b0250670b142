// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.file.Path;

/**
 * Chooses a loader by the file's extension: {@code .so} is native, {@code .jar} and {@code .zip}
 * are Java, the same rule discovery applies. Stateless itself; as thread-safe as the two loaders
 * it delegates to.
 */
final class ExtensionPluginLoader implements PluginLoader {
    private final PluginLoader nativeLoader;
    private final PluginLoader javaLoader;

    ExtensionPluginLoader(PluginLoader nativeLoader, PluginLoader javaLoader) {
        this.nativeLoader = requireNonNull(nativeLoader, "nativeLoader is null");
        this.javaLoader = requireNonNull(javaLoader, "javaLoader is null");
    }

    @Override
    public PluginIface load(Path path) throws UromException {
        requireNonNull(path, "path is null");
        String file = path.getFileName() == null ? "" : path.getFileName().toString();
        if (file.endsWith(".so")) {
            return nativeLoader.load(path);
        }
        if (file.endsWith(".jar") || file.endsWith(".zip")) {
            return javaLoader.load(path);
        }
        throw new UromException(
                UromStatus.NOT_SUPPORTED,
                "plugin file " + path + " is neither a native plugin (.so) nor a Java plugin (.jar, .zip)");
    }
}
