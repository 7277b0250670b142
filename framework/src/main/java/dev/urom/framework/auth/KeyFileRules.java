package dev.urom.framework.auth;

import dev.urom.framework.security.UnixAccounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a key file must be (see {@link AuthKey}): a regular file (a symbolic link is followed), owned
 * by one of the given uids, writable by nobody but its owner, readable by nobody outside its group,
 * and readable by its group only when root owns it. Stateless.
 */
final class KeyFileRules {
    private KeyFileRules() {}

    /** The one-line problem with {@code file}, or empty when it may hold a key. */
    static Optional<String> problem(Path file, Set<Integer> owners) {
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
            return Optional.of(shown + " may be read by its group, which only a root-owned key file may allow: chmod 600 " + file);
        }
        return Optional.empty();
    }

    /** The uid owning {@code path} itself (a symbolic link's own owner). */
    static int linkOwner(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    /** Root and this process's effective uid. */
    static Set<Integer> trustedOwners() {
        return Set.copyOf(java.util.List.of(0, effectiveUid()));
    }

    /** This process's effective uid. */
    static int effectiveUid() {
        return UnixAccounts.effectiveUid();
    }

    static String octal(int mode) {
        return String.format("%04o", mode & 07777);
    }

    private static String describe(Set<Integer> owners) {
        return owners.stream().sorted().map(uid -> uid == 0 ? "root" : "uid " + uid).reduce((a, b) -> a + " or " + b).orElse("anyone");
    }
}
