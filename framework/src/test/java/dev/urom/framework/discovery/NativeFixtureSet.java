// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The native plugin fixtures of the discovery tests, compiled once into a directory: valid minimal
 * plugins and one per way a plugin can be broken. Tests copy them under the names they need.
 */
final class NativeFixtureSet {
    static final String GOOD_V1 = "good_v1.so";
    static final String GOOD_V3 = "good_v3.so";
    static final String NOT_ELF = "not_elf.so";
    static final String NO_GET_IFACE = "no_get_iface.so";
    static final String NO_GET_VERSION = "no_get_version.so";
    static final String IFACE_ERROR = "iface_error.so";
    static final String WRONG_API_VERSION = "wrong_api_version.so";
    static final String CTOR_SEGFAULT = "ctor_segfault.so";
    static final String CTOR_EXIT = "ctor_exit.so";
    static final String CTOR_HANG = "ctor_hang.so";

    private final Path dir;

    private NativeFixtureSet(Path dir) {
        this.dir = dir;
    }

    /** Compiles every fixture into {@code dir}; fails the test if one does not build. */
    static NativeFixtureSet compile(Path dir) throws IOException {
        NativeFixtureSet set = new NativeFixtureSet(dir);
        NativeFixtures.compileMinimalPlugin(dir, GOOD_V1, 1);
        NativeFixtures.compileMinimalPlugin(dir, GOOD_V3, 3);
        Files.writeString(dir.resolve(NOT_ELF), "this is text, not an ELF shared object\n");
        String good = NativeFixtures.minimalPluginSource(1, "fixture");
        // renamed: urom_plugin.h declares the entry points with default visibility, so an entry point
        // defined without an attribute is exported even under -fvisibility=hidden
        NativeFixtures.compilePlugin(
                dir,
                NO_GET_IFACE,
                edit(
                        good,
                        "EXPORT urom_status_t urom_plugin_get_iface",
                        "EXPORT urom_status_t fixture_not_the_get_iface"));
        NativeFixtures.compilePlugin(
                dir,
                NO_GET_VERSION,
                edit(
                        good,
                        "EXPORT urom_status_t urom_plugin_get_version",
                        "EXPORT urom_status_t fixture_not_the_get_version"));
        NativeFixtures.compilePlugin(
                dir,
                IFACE_ERROR,
                edit(
                        good,
                        "iface->api_version = UROM_PLUGIN_API_VERSION;",
                        "if (iface != NULL) return UROM_ERR_NOT_SUPPORTED;\n\tiface->api_version = UROM_PLUGIN_API_VERSION;"));
        NativeFixtures.compilePlugin(
                dir,
                WRONG_API_VERSION,
                edit(
                        good,
                        "iface->api_version = UROM_PLUGIN_API_VERSION;",
                        "iface->api_version = UROM_VERSION_NUM(1, 0, 0);"));
        NativeFixtures.compilePlugin(dir, CTOR_SEGFAULT, withConstructor(good, "raise(SIGSEGV);"));
        NativeFixtures.compilePlugin(dir, CTOR_EXIT, withConstructor(good, "exit(3);"));
        NativeFixtures.compilePlugin(dir, CTOR_HANG, withConstructor(good, "for (;;) pause();"));
        return set;
    }

    /** Copies fixture {@code fixture} to {@code target} (creating its directory). */
    Path install(String fixture, Path target) {
        try {
            Files.createDirectories(target.getParent());
            return Files.copy(dir.resolve(fixture), target, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String edit(String source, String from, String to) {
        assertThat(source).as("fixture source to edit").contains(from);
        return source.replace(from, to);
    }

    private static String withConstructor(String source, String body) {
        return "#include <signal.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
                + "__attribute__((constructor)) static void fixture_constructor(void) { " + body + " }\n" + source;
    }
}
