// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Builds this module's C test fixtures and programs ({@code src/test/c}) into a test's directory. */
final class TestPlugins {
    private static final Path SOURCES = Path.of("src", "test", "c").toAbsolutePath();

    private TestPlugins() {}

    static Path build(Path dir, String sourceName, String fileName, String... flags) {
        List<String> all = new ArrayList<>(List.of("-I" + SOURCES));
        all.addAll(List.of(flags));
        return NativeFixtures.compilePlugin(dir, fileName, source(sourceName), all.toArray(String[]::new));
    }

    /** Builds the test program {@code src/test/c/<sourceName>} into the executable {@code dir/fileName}. */
    static Path buildProgram(Path dir, String sourceName, String fileName, String... flags) {
        return NativeFixtures.compileProgram(dir, fileName, source(sourceName), flags);
    }

    private static String source(String sourceName) {
        try {
            return Files.readString(SOURCES.resolve(sourceName));
        } catch (IOException e) {
            throw new UncheckedIOException("fixture source " + sourceName + " is missing from " + SOURCES, e);
        }
    }
}
