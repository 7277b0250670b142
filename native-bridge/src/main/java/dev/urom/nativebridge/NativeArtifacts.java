// SPDX-License-Identifier: Apache-2.0
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the native files this module ships: {@code liburom_bridge.so}, the {@code urom-probe}
 * executable and the {@code urom-launch} worker launcher executable.
 *
 * <p>Where they come from, first match wins:
 *
 * <ol>
 *   <li>the directory named by system property {@value #NATIVE_DIR_PROPERTY}, which must hold
 *       all three files;
 *   <li>the class path resources {@code dev/urom/nativebridge/native/...}: used in place when they
 *       are plain files in one directory, otherwise (inside a jar) copied once per JVM into a
 *       fresh temporary directory that only this user may write (mode 0755, each file 0755: the
 *       workers of a root daemon run them as another user) and that is deleted when the JVM exits.
 *       The directory, {@code urom-native-PID-*}, is made in {@code java.io.tmpdir}, or in {@code
 *       $TMPDIR} when {@code java.io.tmpdir} is the JVM's default {@code /tmp} and {@code $TMPDIR}
 *       names a directory.
 * </ol>
 *
 * <p>Thread-safe; the files are located on first use. Failures throw {@link
 * IllegalStateException} with one line naming the missing file and where it was looked for.
 */
public final class NativeArtifacts {
    /** System property naming a directory that holds the native files. */
    public static final String NATIVE_DIR_PROPERTY = "urom.native.dir";

    static final String BRIDGE_LIBRARY = "liburom_bridge.so";
    static final String PROBE_EXECUTABLE = "urom-probe";
    static final String LAUNCHER_EXECUTABLE = "urom-launch";
    private static final List<String> FILES = List.of(BRIDGE_LIBRARY, PROBE_EXECUTABLE, LAUNCHER_EXECUTABLE);
    private static final String RESOURCE_DIR = "dev/urom/nativebridge/native/";
    /** The name of an extracted directory: this prefix, the JVM's pid, a dash and a random part. */
    public static final String EXTRACTED_PREFIX = "urom-native-";

    private NativeArtifacts() {}

    /** The log bridge library, {@code liburom_bridge.so}. */
    public static Path bridgeLibrary() {
        return Located.DIR.resolve(BRIDGE_LIBRARY);
    }

    /** The probe executable, {@code urom-probe}. */
    public static Path probeExecutable() {
        return Located.DIR.resolve(PROBE_EXECUTABLE);
    }

    /** The worker launcher executable, {@code urom-launch} (its options are described in its source, urom_launch.c). */
    public static Path launcherExecutable() {
        return Located.DIR.resolve(LAUNCHER_EXECUTABLE);
    }

    /** The directory holding the files; computed once, when first needed (holder idiom). */
    private static final class Located {
        static final Path DIR = locate(System.getProperty(NATIVE_DIR_PROPERTY), NativeArtifacts.class.getClassLoader());
    }

    /** Where the files are, given the property's value (may be null) and the loader holding the resources. */
    static Path locate(String configured, ClassLoader loader) {
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured).toAbsolutePath();
            for (String name : FILES) {
                requireFile(dir.resolve(name), "directory " + dir + " (system property " + NATIVE_DIR_PROPERTY + ")");
            }
            return dir;
        }
        Map<String, URL> resources = new LinkedHashMap<>();
        for (String name : FILES) {
            resources.put(name, resource(loader, name));
        }
        Path dir = commonDirectory(resources);
        return dir != null ? dir : extract(resources);
    }

    /** The directory holding every resource as a plain file, or null when they are not all files of one directory. */
    private static Path commonDirectory(Map<String, URL> resources) {
        Path common = null;
        for (URL url : resources.values()) {
            if (!"file".equals(url.getProtocol())) {
                return null;
            }
            Path dir = fileOf(url).getParent();
            if (common != null && !common.equals(dir)) {
                return null;
            }
            common = dir;
        }
        return common;
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

    private static Path extract(Map<String, URL> resources) {
        try {
            Path dir = Files.createTempDirectory(
                    temporaryDirectory(System.getenv("TMPDIR")),
                    EXTRACTED_PREFIX + ProcessHandle.current().pid() + "-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            // deleteOnExit runs in reverse order of registration: files first, then the directory.
            dir.toFile().deleteOnExit();
            for (Map.Entry<String, URL> resource : resources.entrySet()) {
                copy(resource.getValue(), dir.resolve(resource.getKey()), "rwxr-xr-x");
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot extract the native files into a temporary directory: " + e.getMessage(), e);
        }
    }

    /**
     * Where to extract: {@code java.io.tmpdir}, except that its default {@code /tmp} (the JVM's on
     * Linux, whatever {@code TMPDIR} says) gives way to {@code $TMPDIR} (the given value) when that
     * is an absolute path to a directory. An explicit {@code -Djava.io.tmpdir} stays the choice.
     */
    static Path temporaryDirectory(String tmpdir) {
        Path javaTmp = Path.of(System.getProperty("java.io.tmpdir"));
        if (javaTmp.equals(Path.of("/tmp")) && tmpdir != null && !tmpdir.isBlank()) {
            Path dir = Path.of(tmpdir);
            if (dir.isAbsolute() && Files.isDirectory(dir)) {
                return dir;
            }
        }
        return javaTmp;
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
