package dev.urom.nativebridge;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Finds the native files this module ships: {@code liburom_bridge.so} and the {@code urom-probe}
 * executable.
 *
 * <p>Where they come from, first match wins:
 *
 * <ol>
 *   <li>the directory named by system property {@value #NATIVE_DIR_PROPERTY}, which must hold
 *       both files;
 *   <li>the class path resources {@code dev/urom/nativebridge/native/...}: used in place when they
 *       are plain files, otherwise (inside a jar) copied once per JVM into a private temporary
 *       directory (mode 0700) that is deleted when the JVM exits.
 * </ol>
 *
 * <p>Thread-safe; the files are located on first use. Failures throw {@link
 * IllegalStateException} with one line naming the missing file and where it was looked for.
 */
public final class NativeArtifacts {
    /** System property naming a directory that holds both native files. */
    public static final String NATIVE_DIR_PROPERTY = "urom.native.dir";

    static final String BRIDGE_LIBRARY = "liburom_bridge.so";
    static final String PROBE_EXECUTABLE = "urom-probe";
    private static final String RESOURCE_DIR = "dev/urom/nativebridge/native/";

    private NativeArtifacts() {}

    /** The log bridge library, {@code liburom_bridge.so}. */
    public static Path bridgeLibrary() {
        return Located.DIR.resolve(BRIDGE_LIBRARY);
    }

    /** The probe executable, {@code urom-probe}. */
    public static Path probeExecutable() {
        return Located.DIR.resolve(PROBE_EXECUTABLE);
    }

    /** The directory holding both files; computed once, when first needed (holder idiom). */
    private static final class Located {
        static final Path DIR = locate(System.getProperty(NATIVE_DIR_PROPERTY), NativeArtifacts.class.getClassLoader());
    }

    /** Where the files are, given the property's value (may be null) and the loader holding the resources. */
    static Path locate(String configured, ClassLoader loader) {
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured).toAbsolutePath();
            requireFile(dir.resolve(BRIDGE_LIBRARY), "directory " + dir + " (system property " + NATIVE_DIR_PROPERTY + ")");
            requireFile(dir.resolve(PROBE_EXECUTABLE), "directory " + dir + " (system property " + NATIVE_DIR_PROPERTY + ")");
            return dir;
        }
        URL bridge = resource(loader, BRIDGE_LIBRARY);
        URL probe = resource(loader, PROBE_EXECUTABLE);
        if ("file".equals(bridge.getProtocol()) && "file".equals(probe.getProtocol())) {
            Path dir = fileOf(bridge).getParent();
            if (dir.equals(fileOf(probe).getParent())) {
                return dir;
            }
        }
        return extract(bridge, probe);
    }

    private static URL resource(ClassLoader loader, String name) {
        URL url = loader.getResource(RESOURCE_DIR + name);
        if (url == null) {
            throw new IllegalStateException("native file " + name + " is missing: not in the class path at "
                    + RESOURCE_DIR + " and system property " + NATIVE_DIR_PROPERTY + " is not set");
        }
        return url;
    }

    private static Path fileOf(URL url) {
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("native file URL " + url + " is not a valid file URI", e);
        }
    }

    private static Path extract(URL bridge, URL probe) {
        try {
            Path dir = Files.createTempDirectory("urom-native-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            // deleteOnExit runs in reverse order of registration: files first, then the directory.
            dir.toFile().deleteOnExit();
            copy(bridge, dir.resolve(BRIDGE_LIBRARY), "rwx------");
            copy(probe, dir.resolve(PROBE_EXECUTABLE), "rwx------");
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the native files into a temporary directory: " + e.getMessage(), e);
        }
    }

    private static void copy(URL from, Path to, String permissions) throws IOException {
        to.toFile().deleteOnExit();
        try (InputStream in = from.openStream()) {
            Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.setPosixFilePermissions(to, PosixFilePermissions.fromString(permissions));
    }

    private static void requireFile(Path file, String where) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("native file " + file.getFileName() + " is missing from " + where);
        }
    }
}
