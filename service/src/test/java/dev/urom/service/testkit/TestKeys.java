// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.testkit;

import dev.urom.auth.AuthKey;
import dev.urom.spi.UromException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Key directories for tests: {@code <dir>/keys} (mode 0700) with one fresh key file per principal. */
public final class TestKeys {
    private TestKeys() {}

    /** Writes a fresh key for each of {@code principals} into {@code <dir>/keys} and returns that directory. */
    public static Path directory(Path dir, String... principals) {
        try {
            Path keys = dir.resolve("keys");
            if (!Files.isDirectory(keys)) {
                Files.createDirectory(
                        keys, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            for (String principal : principals) {
                AuthKey.generate(keys.resolve(principal));
            }
            return keys;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (UromException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The key of {@code principal} in a directory {@link #directory} made. */
    public static AuthKey key(Path keys, String principal) {
        try {
            return AuthKey.load(keys.resolve(principal));
        } catch (UromException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
