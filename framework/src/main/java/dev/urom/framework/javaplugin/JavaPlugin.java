// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.javaplugin;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * A loaded Java plugin: the {@code Plugin-Class} instance behind {@link PluginIface}, and the class
 * loader that owns it. Every call (the optional {@code transport}, {@code wakeupFd} and {@code
 * armWakeup} included) is passed to the instance; {@link #open} and {@link #close} run
 * with the plugin's class loader as the thread's context class loader. {@link #close} closes the
 * plugin, then its class loader; a second call does nothing.
 *
 * <p>Threading is the {@link PluginIface} contract: one thread at a time.
 */
public final class JavaPlugin implements PluginIface {
    private static final Logger LOG = LogManager.getLogger(JavaPlugin.class);

    private final JavaPluginDescriptor descriptor;
    private final PluginIface delegate;
    private final PluginClassLoader loader;
    private boolean closed;

    JavaPlugin(JavaPluginDescriptor descriptor, PluginIface delegate, PluginClassLoader loader) {
        this.descriptor = requireNonNull(descriptor, "descriptor is null");
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.loader = requireNonNull(loader, "loader is null");
    }

    /** The descriptor the plugin was loaded from. */
    public JavaPluginDescriptor descriptor() {
        return descriptor;
    }

    /** {@code Plugin-Version}: the plugin's version (unsigned). */
    public long version() {
        return descriptor.version();
    }

    /** The plugin's class loader (closed once the plugin is). */
    public ClassLoader classLoader() {
        return loader;
    }

    /** The {@code Plugin-Class} instance. */
    public PluginIface instance() {
        return delegate;
    }

    @Override
    public void open(WorkerContext context) throws UromException {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            delegate.open(context);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            delegate.close();
        } finally {
            thread.setContextClassLoader(previous);
            try {
                loader.close();
            } catch (IOException e) {
                LOG.warn("{}: cannot close the plugin's class loader: {}", descriptor.path(), e.getMessage());
            }
        }
    }

    @Override
    public byte[] address() throws UromException {
        return delegate.address();
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        delegate.workerCommand(command);
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) throws UromException {
        delegate.progress(notifications);
    }

    @Override
    public byte[] packNotification(WorkerNotification notification) throws UromException {
        return delegate.packNotification(notification);
    }

    @Override
    public Optional<String> transport() {
        return delegate.transport();
    }

    @Override
    public OptionalInt wakeupFd() {
        return delegate.wakeupFd();
    }

    @Override
    public boolean armWakeup() throws UromException {
        return delegate.armWakeup();
    }

    @Override
    public String toString() {
        return "JavaPlugin[" + descriptor.path() + ", " + descriptor.pluginClass() + "]";
    }
}
