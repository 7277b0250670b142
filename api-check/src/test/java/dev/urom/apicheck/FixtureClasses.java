// SPDX-License-Identifier: Apache-2.0
package dev.urom.apicheck;

import dev.urom.spi.Api;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Small classes for the lister's tests, compiled from source by the JDK's compiler into a folder of
 * their own (against urom-spi, for {@link Api}), then listed through a class loader over that
 * folder. Each call compiles a fresh module; not thread-safe (one compiler task at a time).
 */
final class FixtureClasses {
    /** Starts a unit that is the package's annotations, written as its package-info.java. */
    static final String PACKAGE_INFO = "package-info:";

    private static final Pattern TYPE_NAME = Pattern.compile("(?:class|interface|enum|record|@interface)\\s+(\\w+)");
    private static final JavaCompiler COMPILER = ToolProvider.getSystemJavaCompiler();
    /** Shared by every compilation: it keeps the JDK's and spi's classes open, which saves most of a compile's time. */
    private static final StandardJavaFileManager FILES =
            COMPILER.getStandardFileManager(null, null, StandardCharsets.UTF_8);

    private FixtureClasses() {}

    /**
     * Compiles the compilation units (each in package {@code dev.urom.fixture}, {@link Api} and its
     * {@code Status} imported) into {@code dir}/classes.
     */
    static Path compile(Path dir, String... units) {
        try {
            Path sources = Files.createDirectories(dir.resolve("src/dev/urom/fixture"));
            Path classes = Files.createDirectories(dir.resolve("classes"));
            List<String> options =
                    List.of("-d", classes.toString(), "-classpath", spiClasses().toString(), "-Xlint:none");
            List<Path> sourceFiles = new ArrayList<>();
            for (String unit : units) {
                if (unit.startsWith(PACKAGE_INFO)) {
                    Path file = sources.resolve("package-info.java");
                    Files.writeString(
                            file,
                            unit.substring(PACKAGE_INFO.length())
                                    + "\npackage dev.urom.fixture;\nimport dev.urom.spi.Api;\nimport dev.urom.spi.Api.Status;\n");
                    sourceFiles.add(file);
                    continue;
                }
                Matcher name = TYPE_NAME.matcher(unit);
                if (!name.find()) {
                    throw new IllegalArgumentException("no type in fixture source: " + unit);
                }
                Path file = sources.resolve(name.group(1) + ".java");
                Files.writeString(
                        file,
                        "package dev.urom.fixture;\nimport dev.urom.spi.Api;\nimport dev.urom.spi.Api.Status;\n"
                                + unit);
                sourceFiles.add(file);
            }
            StringWriter errors = new StringWriter();
            Iterable<? extends JavaFileObject> files = FILES.getJavaFileObjectsFromPaths(sourceFiles);
            if (!COMPILER.getTask(errors, FILES, null, options, null, files).call()) {
                throw new IllegalStateException(
                        "fixture does not compile: " + errors + "\n" + String.join("\n", units));
            }
            return classes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The API of the classes under {@code root}, each listing with its own class loader. */
    static ApiListing list(Path root) {
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {root.toUri().toURL()}, FixtureClasses.class.getClassLoader())) {
            return ApiLister.list(root, loader);
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(root.toString(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Compiles the units and lists them. */
    static ApiListing listing(Path dir, String... units) {
        return list(compile(dir, units));
    }

    /** The classes folder packed into {@code jar}, as Maven's jar plugin would. */
    static Path jar(Path classes, Path jar) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    private static Path spiClasses() {
        try {
            return Path.of(Api.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
