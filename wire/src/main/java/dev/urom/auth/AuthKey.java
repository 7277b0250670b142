// SPDX-License-Identifier: Apache-2.0
package dev.urom.auth;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A principal's key: its name and its secret bytes. A host proves it holds the key in the
 * handshake without sending it (see {@link Proofs}); the daemon finds the same key in its key
 * directory ({@link KeyDirectory}) under the same name.
 *
 * <p>A key file holds the secret: its bytes with surrounding white space removed, {@value
 * #MIN_SECRET_BYTES} to {@value #MAX_SECRET_BYTES} of them ({@link #generate} writes 32 random
 * bytes as 64 hex digits). The key's name is the file's name, less a {@code .key} suffix, and must be
 * a valid {@link Principal#KEY_NAME}. A key file must be a regular file of this user or root that
 * nobody else may write, and that others may not read: mode 0600 or 0400, or group-readable
 * (0640, 0440) only when root owns it (a Kubernetes Secret mounted for a group).
 *
 * <p>Immutable and thread-safe; {@link #toString()} never shows the secret.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public final class AuthKey {
    /** The environment variable naming a host's key file. */
    public static final String ENVIRONMENT_VARIABLE = "UROM_AUTH_KEY_FILE";

    public static final int MIN_SECRET_BYTES = 32;
    public static final int MAX_SECRET_BYTES = 4096;
    private static final String SUFFIX = ".key";
    private static final int GENERATED_BYTES = 32;

    private final String name;
    private final byte[] secret;

    private AuthKey(String name, byte[] secret) {
        this.name = name;
        this.secret = secret;
    }

    /**
     * A key with this name and secret.
     *
     * @throws IllegalArgumentException for an invalid name or a secret of the wrong size
     */
    public static AuthKey of(String name, byte[] secret) {
        Principal.checkKeyName(name);
        requireNonNull(secret, "secret is null");
        if (secret.length < MIN_SECRET_BYTES || secret.length > MAX_SECRET_BYTES) {
            throw new IllegalArgumentException("a key of " + secret.length + " bytes: a key is " + MIN_SECRET_BYTES
                    + " to " + MAX_SECRET_BYTES + " bytes");
        }
        return new AuthKey(name, secret.clone());
    }

    /** The key name a file stands for: its file name less a {@code .key} suffix. */
    public static String nameOf(Path file) {
        String fileName = file.getFileName().toString();
        return fileName.endsWith(SUFFIX) && fileName.length() > SUFFIX.length()
                ? fileName.substring(0, fileName.length() - SUFFIX.length())
                : fileName;
    }

    /**
     * Reads a host's key file, owned by this process's user or by root.
     *
     * @throws UromException BAD_CONFIG with one line naming the file and what is wrong with it (missing,
     *     not a regular file, mode, owner, size, name)
     */
    public static AuthKey load(Path file) throws UromException {
        return load(file, KeyFileRules.trustedOwners());
    }

    /** {@link #load(Path)} with the owners that may own the file. */
    static AuthKey load(Path file, Set<Integer> owners) throws UromException {
        requireNonNull(file, "file is null");
        String name;
        try {
            name = Principal.checkKeyName(nameOf(file));
        } catch (IllegalArgumentException e) {
            throw new UromException(UromStatus.BAD_CONFIG, "key file " + file + ": its name gives " + e.getMessage());
        }
        return read(file, name, owners);
    }

    /** The key {@code name} from {@code file}, which one of {@code owners} must own. */
    @Api(status = Api.Status.INTERNAL, since = "0.1")
    public static AuthKey read(Path file, String name, Set<Integer> owners) throws UromException {
        Optional<String> problem = KeyFileRules.problem(file, owners);
        if (problem.isPresent()) {
            throw new UromException(UromStatus.BAD_CONFIG, problem.get());
        }
        byte[] content;
        try {
            if (Files.size(file) > MAX_SECRET_BYTES + 64) {
                throw new UromException(
                        UromStatus.BAD_CONFIG,
                        "key file " + file + " is " + Files.size(file) + " bytes; a key is " + MIN_SECRET_BYTES + " to "
                                + MAX_SECRET_BYTES + " bytes");
            }
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new UromException(UromStatus.BAD_CONFIG, "key file " + file + " does not exist");
        } catch (IOException e) {
            throw new UromException(UromStatus.BAD_CONFIG, "key file " + file + " cannot be read: " + e.getMessage());
        }
        byte[] secret = strip(content);
        Arrays.fill(content, (byte) 0);
        if (secret.length < MIN_SECRET_BYTES || secret.length > MAX_SECRET_BYTES) {
            throw new UromException(
                    UromStatus.BAD_CONFIG,
                    "key file " + file + " holds " + secret.length + " bytes; a key is " + MIN_SECRET_BYTES + " to "
                            + MAX_SECRET_BYTES + " bytes (urom keygen FILE writes one)");
        }
        return new AuthKey(name, secret);
    }

    /**
     * The key named by {@value #ENVIRONMENT_VARIABLE} in {@code environment}, or empty when it is
     * unset or empty.
     *
     * @throws UromException BAD_CONFIG as {@link #load(Path)}, the message naming the variable
     */
    public static Optional<AuthKey> fromEnvironment(Map<String, String> environment) throws UromException {
        String value = environment.get(ENVIRONMENT_VARIABLE);
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        Path file;
        try {
            file = Path.of(value);
        } catch (InvalidPathException e) {
            throw new UromException(UromStatus.BAD_CONFIG, ENVIRONMENT_VARIABLE + " '" + value + "' is not a path");
        }
        try {
            return Optional.of(load(file));
        } catch (UromException e) {
            throw new UromException(e.status(), ENVIRONMENT_VARIABLE + ": " + e.getMessage());
        }
    }

    /**
     * Writes a new key file of 32 random bytes (64 hex digits and a newline) with mode 0600; the key's
     * name is the file's name less {@code .key}.
     *
     * @throws UromException BAD_CONFIG when the name is not valid or the file exists; IO_FAILED when it
     *     cannot be written
     */
    public static AuthKey generate(Path file) throws UromException {
        String name;
        try {
            name = Principal.checkKeyName(nameOf(file));
        } catch (IllegalArgumentException e) {
            throw new UromException(UromStatus.BAD_CONFIG, "key file " + file + ": its name gives " + e.getMessage());
        }
        byte[] random = new byte[GENERATED_BYTES];
        new SecureRandom().nextBytes(random);
        byte[] text = (HexFormat.of().formatHex(random) + "\n").getBytes(StandardCharsets.US_ASCII);
        try {
            Files.write(
                    Files.createFile(
                            file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
                    text,
                    StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            throw new UromException(
                    UromStatus.BAD_CONFIG,
                    "key file " + file + " exists already; a new key is never written over an old one");
        } catch (IOException e) {
            throw new UromException(UromStatus.IO_FAILED, "cannot write key file " + file + ": " + e.getMessage());
        }
        return new AuthKey(name, strip(text));
    }

    private static byte[] strip(byte[] content) {
        int from = 0;
        int to = content.length;
        while (from < to && isSpace(content[from])) {
            from++;
        }
        while (to > from && isSpace(content[to - 1])) {
            to--;
        }
        return Arrays.copyOfRange(content, from, to);
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    /** The key's name. */
    public String name() {
        return name;
    }

    /** The principal that holds this key. */
    public Principal principal() {
        return Principal.key(name);
    }

    /** Whether {@code other} holds the same secret, compared in time independent of where they differ. */
    public boolean sameSecretAs(AuthKey other) {
        return MessageDigest.isEqual(secret, other.secret);
    }

    /** The secret; only {@link Proofs} uses it. */
    byte[] secret() {
        return secret;
    }

    @Override
    public String toString() {
        return "AuthKey[" + name + "]";
    }
}
