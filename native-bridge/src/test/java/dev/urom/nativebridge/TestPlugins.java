package dev.urom.nativebridge;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Builds this module's C test fixtures ({@code src/test/c}) into a test's directory. */
final class TestPlugins {
    private static final Path SOURCES = Path.of("src", "test", "c").toAbsolutePath();

    private TestPlugins() {}

    static Path build(Path dir, String sourceName, String fileName, String... flags) {
        String source;
        try {
            source = Files.readString(SOURCES.resolve(sourceName));
        } catch (IOException e) {
            throw new UncheckedIOException("fixture source " + sourceName + " is missing from " + SOURCES, e);
        }
        List<String> all = new ArrayList<>(List.of("-I" + SOURCES));
        all.addAll(List.of(flags));
        return NativeFixtures.compilePlugin(dir, fileName, source, all.toArray(String[]::new));
    }
}
