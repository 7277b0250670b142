// SPDX-License-Identifier: Apache-2.0
package dev.urom.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthKeyTest {
    private static final String SECRET = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    @TempDir
    Path dir;

    private Path keyFile(String name, String content, String mode) throws Exception {
        Path file = Files.writeString(dir.resolve(name), content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    private static void assertBadConfig(Path file, String message) {
        assertThatThrownBy(() -> AuthKey.load(file))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.BAD_CONFIG))
                .hasMessage(message);
    }

    @Test
    void aPrivateKeyFileLoadsUnderItsFileName() throws Exception {
        AuthKey key = AuthKey.load(keyFile("jobA.key", SECRET + "\n", "rw-------"));
        assertThat(key.name()).isEqualTo("jobA");
        assertThat(key.principal()).isEqualTo(Principal.key("jobA"));
        assertThat(key.secret()).isEqualTo(SECRET.getBytes(StandardCharsets.US_ASCII));
        assertThat(key.toString()).isEqualTo("AuthKey[jobA]").doesNotContain(SECRET);
        assertThat(AuthKey.load(keyFile("jobB", SECRET, "r--------")).name()).isEqualTo("jobB");
    }

    @Test
    void aKeyFileOthersMayReadOrWriteIsRefusedWithWhatToDo() throws Exception {
        Path readable = keyFile("jobA", SECRET, "rw-r--r--");
        assertBadConfig(
                readable,
                "key file " + readable + " (mode 0644, owner uid " + KeyFileRules.effectiveUid()
                        + ") may be read by others: chmod 600 " + readable);
        Path groupWritable = keyFile("jobB", SECRET, "rw-rw----");
        assertBadConfig(
                groupWritable,
                "key file " + groupWritable + " (mode 0660, owner uid " + KeyFileRules.effectiveUid()
                        + ") may be written by others than its owner: chmod 600 " + groupWritable);
    }

    @Test
    void aGroupReadableKeyFileIsAcceptedOnlyFromRoot() throws Exception {
        Path file = keyFile("jobA", SECRET, "rw-r-----");
        int me = KeyFileRules.effectiveUid();
        if (me == 0) {
            assertThat(AuthKey.load(file).name()).isEqualTo("jobA");
            // the same file as another user's: refused
            assertThatThrownBy(() -> AuthKey.load(file, Set.of(me + 1)))
                    .hasMessageContaining("is not owned by uid " + (me + 1));
        } else {
            assertBadConfig(
                    file,
                    "key file " + file + " (mode 0640, owner uid " + me
                            + ") may be read by its group, which only a root-owned key file may allow: chmod 600 "
                            + file);
        }
    }

    @Test
    void aKeyFileOfAnotherOwnerIsRefused() throws Exception {
        Path file = keyFile("jobA", SECRET, "rw-------");
        int me = KeyFileRules.effectiveUid();
        assertThatThrownBy(() -> AuthKey.load(file, Set.of(me + 1)))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.BAD_CONFIG))
                .hasMessage("key file " + file + " (mode 0600, owner uid " + me + ") is not owned by uid " + (me + 1));
    }

    @Test
    void sizeNameAndTypeAreChecked() throws Exception {
        Path small = keyFile("small", "short\n", "rw-------");
        assertBadConfig(
                small, "key file " + small + " holds 5 bytes; a key is 32 to 4096 bytes (urom keygen FILE writes one)");
        Path badName = keyFile("bad name", SECRET, "rw-------");
        assertThatThrownBy(() -> AuthKey.load(badName))
                .hasMessageStartingWith("key file " + badName + ": its name gives key name 'bad name' is not valid");
        Path missing = dir.resolve("missing");
        assertBadConfig(missing, "key file " + missing + " does not exist");
        Path directory = Files.createDirectory(dir.resolve("adir"));
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
        assertThatThrownBy(() -> AuthKey.load(directory)).hasMessageEndingWith("is not a regular file");
    }

    @Test
    void generateWritesAPrivateFileAndNeverOverwrites() throws Exception {
        Path file = dir.resolve("jobC.key");
        AuthKey made = AuthKey.generate(file);
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(file)).matches("[0-9a-f]{64}\n");
        AuthKey loaded = AuthKey.load(file);
        assertThat(loaded.name()).isEqualTo("jobC");
        assertThat(loaded.secret()).isEqualTo(made.secret());
        assertThatThrownBy(() -> AuthKey.generate(file))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.BAD_CONFIG))
                .hasMessage("key file " + file + " exists already; a new key is never written over an old one");
        assertThat(AuthKey.generate(dir.resolve("jobD")).secret()).isNotEqualTo(made.secret());
    }

    @Test
    void theEnvironmentVariableNamesTheKeyFile() throws Exception {
        Path file = keyFile("jobA", SECRET, "rw-------");
        assertThat(AuthKey.fromEnvironment(Map.of())).isEmpty();
        assertThat(AuthKey.fromEnvironment(Map.of(AuthKey.ENVIRONMENT_VARIABLE, "")))
                .isEmpty();
        assertThat(AuthKey.fromEnvironment(Map.of(AuthKey.ENVIRONMENT_VARIABLE, file.toString())))
                .get()
                .satisfies(k -> assertThat(k.name()).isEqualTo("jobA"));
        Path missing = dir.resolve("nope");
        assertThatThrownBy(() -> AuthKey.fromEnvironment(Map.of(AuthKey.ENVIRONMENT_VARIABLE, missing.toString())))
                .hasMessage("UROM_AUTH_KEY_FILE: key file " + missing + " does not exist");
    }
}
