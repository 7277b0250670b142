// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.auth;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.AuthKey;
import dev.urom.auth.KeyFileRules;
import dev.urom.auth.Principal;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The daemon's keys: a directory holding one key file per principal, named after it ({@code jobA}
 * or {@code jobA.key}; see {@link AuthKey} for what a key file must be). A Kubernetes Secret mounted
 * there works as it is: its files are symbolic links into a hidden {@code ..data} directory of the
 * same volume, which are followed when they stay inside the directory; names starting with a dot
 * are not keys.
 *
 * <p>The directory must be owned by root or the daemon's user, and writable by nobody else unless it
 * has the sticky bit (a Secret volume is 1777: others could add files there, but a file or link that
 * is not owned by root or the daemon's user is never a key). {@link #open} checks the directory and
 * every key in it and refuses to start on the first bad one; {@link #lookup} reads the principal's file
 * again at each handshake, so a key removed or replaced takes effect for the next connection.
 *
 * <p>Thread-safe; holds no key in memory.
 */
public final class KeyDirectory {
    private static final Logger LOG = LogManager.getLogger(KeyDirectory.class);

    private final Path directory;
    private final Set<Integer> owners;

    private KeyDirectory(Path directory, Set<Integer> owners) {
        this.directory = directory;
        this.owners = owners;
    }

    /**
     * Checks {@code directory} and every key file in it.
     *
     * @throws UromException BAD_CONFIG with one line naming the directory or the first bad file
     */
    public static KeyDirectory open(Path directory) throws UromException {
        return open(directory, KeyFileRules.trustedOwners());
    }

    /** {@link #open(Path)} with the owners allowed for the directory and its keys. */
    static KeyDirectory open(Path directory, Set<Integer> owners) throws UromException {
        requireNonNull(directory, "directory is null");
        Path real;
        try {
            real = directory.toRealPath();
        } catch (NoSuchFileException e) {
            throw new UromException(UromStatus.BAD_CONFIG, "key directory " + directory + " does not exist");
        } catch (IOException e) {
            throw new UromException(
                    UromStatus.BAD_CONFIG, "key directory " + directory + " cannot be resolved: " + e.getMessage());
        }
        Optional<String> problem = directoryProblem(directory, real, owners);
        if (problem.isPresent()) {
            throw new UromException(UromStatus.BAD_CONFIG, problem.get());
        }
        KeyDirectory keys = new KeyDirectory(real, owners);
        Map<String, Path> files = keys.keyFiles();
        for (Path file : files.values()) {
            keys.read(file);
        }
        if (files.isEmpty()) {
            LOG.warn("key directory {} holds no key: no host can prove a key to this daemon", real);
        }
        return keys;
    }

    /** The directory, as its real path. */
    public Path directory() {
        return directory;
    }

    /** The names of the principals that have a key file now, in name order. */
    public List<String> principals() throws UromException {
        return new ArrayList<>(keyFiles().keySet());
    }

    /**
     * The key of principal {@code name} as its file says now, or empty when there is no such
     * principal or its file is no longer acceptable (then a warning says why).
     */
    public Optional<AuthKey> lookup(String name) {
        if (name == null || !Principal.KEY_NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        for (Path file : List.of(directory.resolve(name), directory.resolve(name + ".key"))) {
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try {
                return Optional.of(read(file));
            } catch (UromException e) {
                LOG.warn("key of principal {} refused: {}", name, e.getMessage());
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private AuthKey read(Path file) throws UromException {
        try {
            int linkOwner = KeyFileRules.linkOwner(file);
            if (!owners.contains(linkOwner)) {
                throw new UromException(
                        UromStatus.BAD_CONFIG,
                        "key file " + file + " is owned by uid " + linkOwner + ", not by root or the daemon's user");
            }
            Path target = file.toRealPath();
            if (!target.startsWith(directory)) {
                throw new UromException(
                        UromStatus.BAD_CONFIG, "key file " + file + " leads out of the key directory, to " + target);
            }
            return AuthKey.read(target, AuthKey.nameOf(file), owners);
        } catch (IOException e) {
            throw new UromException(
                    UromStatus.BAD_CONFIG, "key file " + file + " cannot be examined: " + e.getMessage());
        }
    }

    /** Key name → file, for the entries that name a key. */
    private Map<String, Path> keyFiles() throws UromException {
        Map<String, Path> files = new TreeMap<>();
        List<Path> sorted = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            entries.forEach(sorted::add);
        } catch (IOException e) {
            throw new UromException(
                    UromStatus.BAD_CONFIG, "key directory " + directory + " cannot be read: " + e.getMessage());
        }
        sorted.sort(null);
        for (Path entry : sorted) {
            String fileName = entry.getFileName().toString();
            if (fileName.startsWith(".") || Files.isDirectory(entry)) {
                continue;
            }
            String name = AuthKey.nameOf(entry);
            if (!Principal.KEY_NAME.matcher(name).matches()) {
                throw new UromException(
                        UromStatus.BAD_CONFIG,
                        "key directory " + directory + " holds " + fileName
                                + ", whose name is not a key name (1 to 64 letters, digits, '.', '_' or '-')");
            }
            Path before = files.put(name, entry);
            if (before != null) {
                throw new UromException(
                        UromStatus.BAD_CONFIG,
                        "key directory " + directory + " holds two keys for " + name + ": " + before.getFileName()
                                + " and " + fileName);
            }
        }
        return files;
    }

    private static Optional<String> directoryProblem(Path given, Path real, Set<Integer> owners) {
        Map<String, Object> attributes;
        try {
            attributes = Files.readAttributes(real, "unix:mode,uid");
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.of("key directory " + given + " cannot be examined: " + e.getMessage());
        }
        int mode = (Integer) attributes.get("mode");
        int uid = (Integer) attributes.get("uid");
        String shown = "key directory " + given + " (mode " + KeyFileRules.octal(mode) + ", owner uid " + uid + ")";
        if ((mode & 0170000) != 0040000) {
            return Optional.of(shown + " is not a directory");
        }
        if (!owners.contains(uid)) {
            return Optional.of(shown + " is not owned by root or the daemon's user");
        }
        if ((mode & 0022) != 0 && (mode & 01000) == 0) {
            return Optional.of(shown + " may be written by others: chmod go-w " + given);
        }
        return Optional.empty();
    }
}
