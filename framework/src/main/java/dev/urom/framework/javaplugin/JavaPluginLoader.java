// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.javaplugin;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks and loads Java plugins (PF4J jars or zips whose {@code Plugin-Class} implements {@link
 * PluginIface}), each in its own {@link PluginClassLoader} whose parent is the loader of {@link
 * PluginIface}.
 *
 * <p>Stateless; safe to call from any thread. {@link #check} never runs plugin code; {@link
 * #instantiate} does (the plugin's static initialiser and constructor).
 */
public final class JavaPluginLoader {
    private static final String SPI_NAME = PluginIface.class.getName();

    private JavaPluginLoader() {}

    /**
     * Validates {@code jar} without running any of its code: a valid descriptor, and a {@code
     * Plugin-Class} in the archive that is a public concrete class implementing the worker's {@link
     * PluginIface} with a public no-argument constructor. The class is loaded without
     * initialisation, and the loader is closed before returning.
     *
     * @return the descriptor
     * @throws InvalidJavaPluginException naming the file and the first thing wrong with it
     */
    public static JavaPluginDescriptor check(Path jar) throws InvalidJavaPluginException {
        JavaPluginDescriptor descriptor = JavaPluginDescriptor.read(jar);
        try (PluginClassLoader loader = newLoader(jar)) {
            Class<?> pluginClass = loadPluginClass(descriptor, loader);
            pluginConstructor(descriptor, pluginClass);
        } catch (IOException e) {
            throw new InvalidJavaPluginException(jar, "cannot close its class loader (" + e.getMessage() + ")", e);
        }
        return descriptor;
    }

    /**
     * Loads the plugin in its own class loader and constructs its {@code Plugin-Class}. The loader
     * stays open until the returned plugin is closed.
     *
     * @throws UromException {@link UromStatus#NOT_FOUND} when the file or the class is not there,
     *     {@link UromStatus#INITIALIZATION} for any other reason (invalid descriptor, wrong class,
     *     a constructor or static initialiser that throws); the message names the file
     */
    public static JavaPlugin instantiate(Path jar) throws UromException {
        requireNonNull(jar, "jar is null");
        if (!Files.exists(jar)) {
            throw new UromException(UromStatus.NOT_FOUND, jar + ": no such file");
        }
        JavaPluginDescriptor descriptor;
        try {
            descriptor = JavaPluginDescriptor.read(jar);
        } catch (InvalidJavaPluginException e) {
            throw new UromException(UromStatus.INITIALIZATION, e.getMessage(), e);
        }
        PluginClassLoader loader = newLoader(jar);
        try {
            Class<?> pluginClass = loadPluginClass(descriptor, loader);
            Constructor<?> constructor = pluginConstructor(descriptor, pluginClass);
            PluginIface instance = construct(descriptor, loader, constructor);
            return new JavaPlugin(descriptor, instance, loader);
        } catch (InvalidJavaPluginException e) {
            closeQuietly(loader, e);
            UromStatus status =
                    e instanceof PluginClassNotFoundException ? UromStatus.NOT_FOUND : UromStatus.INITIALIZATION;
            throw new UromException(status, e.getMessage(), e);
        } catch (UromException | RuntimeException | Error e) {
            closeQuietly(loader, e);
            throw e;
        }
    }

    private static PluginClassLoader newLoader(Path jar) {
        return new PluginClassLoader(jar, PluginIface.class.getClassLoader());
    }

    private static Class<?> loadPluginClass(JavaPluginDescriptor descriptor, PluginClassLoader loader)
            throws InvalidJavaPluginException {
        Path jar = descriptor.path();
        String name = descriptor.pluginClass();
        Class<?> pluginClass;
        try {
            pluginClass = Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            throw new PluginClassNotFoundException(jar, "Plugin-Class " + name + " not found in the jar");
        } catch (LinkageError e) {
            throw new InvalidJavaPluginException(
                    jar, "Plugin-Class " + name + " cannot be loaded (" + oneLine(e) + ")", e);
        }
        if (pluginClass.getClassLoader() != loader) {
            throw new PluginClassNotFoundException(
                    jar,
                    "Plugin-Class " + name
                            + " not found in the jar (it comes from the worker's class path, not the plugin)");
        }
        if (!PluginIface.class.isAssignableFrom(pluginClass)) {
            throw new InvalidJavaPluginException(jar, "Plugin-Class " + name + " does not implement " + SPI_NAME);
        }
        int modifiers = pluginClass.getModifiers();
        if (!Modifier.isPublic(modifiers)) {
            throw new InvalidJavaPluginException(jar, "Plugin-Class " + name + " is not public");
        }
        if (pluginClass.isInterface() || Modifier.isAbstract(modifiers)) {
            throw new InvalidJavaPluginException(jar, "Plugin-Class " + name + " is abstract");
        }
        return pluginClass;
    }

    private static Constructor<?> pluginConstructor(JavaPluginDescriptor descriptor, Class<?> pluginClass)
            throws InvalidJavaPluginException {
        try {
            return pluginClass.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new InvalidJavaPluginException(
                    descriptor.path(),
                    "Plugin-Class " + pluginClass.getName() + " has no public no-argument constructor");
        } catch (LinkageError e) {
            throw new InvalidJavaPluginException(
                    descriptor.path(),
                    "Plugin-Class " + pluginClass.getName() + " cannot be linked (" + oneLine(e) + ")",
                    e);
        }
    }

    private static PluginIface construct(
            JavaPluginDescriptor descriptor, PluginClassLoader loader, Constructor<?> constructor)
            throws UromException {
        String what = descriptor.path() + ": Plugin-Class " + descriptor.pluginClass();
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return (PluginIface) constructor.newInstance();
        } catch (InvocationTargetException e) {
            throw new UromException(
                    UromStatus.INITIALIZATION,
                    what + " constructor failed (" + oneLine(e.getCause()) + ")",
                    e.getCause());
        } catch (ExceptionInInitializerError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new UromException(
                    UromStatus.INITIALIZATION, what + " static initialiser failed (" + oneLine(cause) + ")", cause);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new UromException(UromStatus.INITIALIZATION, what + " cannot be constructed (" + oneLine(e) + ")", e);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    static String oneLine(Throwable t) {
        String message = t.getMessage();
        String text = message == null || message.isBlank()
                ? t.getClass().getSimpleName()
                : t.getClass().getSimpleName() + ": " + message;
        return text.replaceAll("\\s*\\R\\s*", " ");
    }

    private static void closeQuietly(PluginClassLoader loader, Throwable failure) {
        try {
            loader.close();
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }

    /** The descriptor names a class the archive does not hold. */
    private static final class PluginClassNotFoundException extends InvalidJavaPluginException {
        private static final long serialVersionUID = 1L;

        PluginClassNotFoundException(Path path, String reason) {
            super(path, reason);
        }
    }
}
