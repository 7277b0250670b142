// SPDX-License-Identifier: Apache-2.0
package dev.urom.auth;

import dev.urom.spi.Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a key file must be (see {@link AuthKey}): a regular file (a symbolic link is followed), owned
 * by one of the given uids, writable by nobody but its owner, readable by nobody outside its group,
 * and readable by its group only when root owns it. Shared by the host's {@link AuthKey} and the
 * daemon's key directory. Stateless; Linux only (the effective uid comes from {@code /proc/self/status}).
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public final class KeyFileRules {
    /** Read once: nothing in these processes changes its ids after the JVM has started. */
    private static volatile Integer effectiveUid;

    private KeyFileRules() {}

    /** The one-line problem with {@code file}, or empty when it may hold a key. */
    public static Optional<String> problem(Path file, Set<Integer> owners) {
        Map<String, Object> attributes;
        try {
            attributes = Files.readAttributes(file, "unix:mode,uid,gid");
        } catch (NoSuchFileException e) {
            return Optional.of("key file " + file + " does not exist");
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.of("key file " + file + " cannot be examined: " + e.getMessage());
        }
        int mode = (Integer) attributes.get("mode");
        int uid = (Integer) attributes.get("uid");
        String shown = "key file " + file + " (mode " + octal(mode) + ", owner uid " + uid + ")";
        if ((mode & 0170000) != 0100000) {
            return Optional.of(shown + " is not a regular file");
        }
        if (!owners.contains(uid)) {
            return Optional.of(shown + " is not owned by " + describe(owners));
        }
        if ((mode & 0022) != 0) {
            return Optional.of(shown + " may be written by others than its owner: chmod 600 " + file);
        }
        if ((mode & 0007) != 0) {
            return Optional.of(shown + " may be read by others: chmod 600 " + file);
        }
        if ((mode & 0040) != 0 && uid != 0) {
            return Optional.of(
                    shown + " may be read by its group, which only a root-owned key file may allow: chmod 600 " + file);
        }
        return Optional.empty();
    }

    /** The uid owning {@code path} itself (a symbolic link's own owner). */
    public static int linkOwner(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    /** Root and this process's effective uid. */
    public static Set<Integer> trustedOwners() {
        return Set.copyOf(List.of(0, effectiveUid()));
    }

    /**
     * This process's effective uid, the second field of the {@code Uid:} line of
     * {@code /proc/self/status}: read without native code, so that a host needs no JNA.
     *
     * @throws IllegalStateException when that file cannot be read or has no such line
     */
    public static int effectiveUid() {
        Integer known = effectiveUid;
        if (known == null) {
            known = readEffectiveUid();
            effectiveUid = known;
        }
        return known;
    }

    private static int readEffectiveUid() {
        Path status = Path.of("/proc/self/status");
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("Uid:")) {
                    String[] ids = line.substring(4).trim().split("\\s+");
                    return Integer.parseInt(ids[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(status + " cannot be read for this process's uid: " + e.getMessage(), e);
        }
        throw new IllegalStateException(status + " has no Uid: line");
    }

    public static String octal(int mode) {
        return String.format("%04o", mode & 07777);
    }

    private static String describe(Set<Integer> owners) {
        return owners.stream()
                .sorted()
                .map(uid -> uid == 0 ? "root" : "uid " + uid)
                .reduce((a, b) -> a + " or " + b)
                .orElse("anyone");
    }
}
