// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.AuthKey;
import dev.urom.auth.KeyFileRules;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyDirectoryTest {
    private static final String SECRET_A = "a".repeat(40);
    private static final String SECRET_B = "b".repeat(40);

    @TempDir
    Path base;

    private Path keys;

    @BeforeEach
    void makeKeys() throws Exception {
        keys = Files.createDirectory(
                base.resolve("keys"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    private Path key(String name, String secret) throws Exception {
        Path file = Files.writeString(keys.resolve(name), secret + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    @Test
    void eachFileIsAPrincipalAndLookupsReadTheFileAgain() throws Exception {
        key("jobA", SECRET_A);
        key("jobB.key", SECRET_B);
        KeyDirectory directory = KeyDirectory.open(keys);
        assertThat(directory.principals()).containsExactly("jobA", "jobB");
        assertThat(directory.lookup("jobB"))
                .get()
                .satisfies(k -> assertThat(
                                k.sameSecretAs(AuthKey.of("expected", SECRET_B.getBytes(StandardCharsets.UTF_8))))
                        .isTrue());
        assertThat(directory.lookup("jobC")).isEmpty();
        assertThat(directory.lookup("../keys/jobA")).isEmpty();
        Files.writeString(keys.resolve("jobA"), SECRET_B);
        assertThat(directory.lookup("jobA"))
                .get()
                .satisfies(k -> assertThat(
                                k.sameSecretAs(AuthKey.of("expected", SECRET_B.getBytes(StandardCharsets.UTF_8))))
                        .isTrue());
        Files.delete(keys.resolve("jobA"));
        assertThat(directory.lookup("jobA"))
                .as("a removed key takes effect at once")
                .isEmpty();
    }

    @Test
    void aKeyThatBecameReadableByOthersIsNoLongerAccepted() throws Exception {
        Path file = key("jobA", SECRET_A);
        KeyDirectory directory = KeyDirectory.open(keys);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(directory.lookup("jobA")).isEmpty();
    }

    @Test
    void aKubernetesSecretVolumeLayoutWorks() throws Exception {
        // kubelet's layout: ..2026_12_01_xx/jobA, ..data -> ..2026_12_01_xx, jobA -> ..data/jobA; volume mode 1777
        Path version = Files.createDirectory(keys.resolve("..2026_12_01_10_00_00.1"));
        Path target = Files.writeString(version.resolve("jobA"), SECRET_A);
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("r--------"));
        Files.createSymbolicLink(keys.resolve("..data"), version.getFileName());
        Files.createSymbolicLink(keys.resolve("jobA"), Path.of("..data/jobA"));
        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> KeyDirectory.open(keys))
                .hasMessage("key directory " + keys + " (mode 0777, owner uid " + KeyFileRules.effectiveUid()
                        + ") may be written by others: chmod go-w " + keys);
        Files.setAttribute(keys, "unix:mode", 01777);
        KeyDirectory directory = KeyDirectory.open(keys);
        assertThat(directory.principals()).containsExactly("jobA");
        assertThat(directory.lookup("jobA"))
                .get()
                .satisfies(k -> assertThat(
                                k.sameSecretAs(AuthKey.of("expected", SECRET_A.getBytes(StandardCharsets.UTF_8))))
                        .isTrue());
    }

    @Test
    void aLinkOutOfTheDirectoryIsRefused() throws Exception {
        Path outside = Files.writeString(base.resolve("elsewhere"), SECRET_A);
        Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(keys.resolve("jobA"), outside);
        assertThatThrownBy(() -> KeyDirectory.open(keys))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.BAD_CONFIG))
                .hasMessage("key file " + keys.toRealPath().resolve("jobA") + " leads out of the key directory, to "
                        + outside.toRealPath());
    }

    @Test
    void startRefusesTheFirstBadFileAndTwoFilesForOneName() throws Exception {
        Path open = key("jobA", SECRET_A);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThatThrownBy(() -> KeyDirectory.open(keys))
                .hasMessageContaining("may be written by others than its owner");
        Files.delete(open);
        key("jobA", SECRET_A);
        key("jobA.key", SECRET_B);
        assertThatThrownBy(() -> KeyDirectory.open(keys))
                .hasMessage("key directory " + keys.toRealPath() + " holds two keys for jobA: jobA and jobA.key");
    }

    @Test
    void aFileWhoseNameIsNoKeyNameIsRefusedButDotFilesAreIgnored() throws Exception {
        key(".hidden", SECRET_A);
        assertThat(KeyDirectory.open(keys).principals()).isEmpty();
        key("bad name", SECRET_A);
        assertThatThrownBy(() -> KeyDirectory.open(keys))
                .hasMessageContaining("holds bad name, whose name is not a key name");
    }

    @Test
    void theDirectoryMustBeTheDaemonsOrRoots() throws Exception {
        key("jobA", SECRET_A);
        int me = KeyFileRules.effectiveUid();
        assertThatThrownBy(() -> KeyDirectory.open(keys, Set.of(me + 1)))
                .hasMessage("key directory " + keys + " (mode 0700, owner uid " + me
                        + ") is not owned by root or the daemon's user");
        assertThatThrownBy(() -> KeyDirectory.open(base.resolve("none")))
                .hasMessage("key directory " + base.resolve("none") + " does not exist");
    }
}
