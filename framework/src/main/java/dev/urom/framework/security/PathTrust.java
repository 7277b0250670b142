// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.security;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Checks made before the daemon trusts a file or directory that it did not create: who could have
 * written it ({@link #untrusted}), and whether another account could read it ({@link
 * #unreadable}). Only the permission bits, owners and groups are looked at (no ACLs, no
 * capabilities other than root's). Each problem is one line that names the path, the mode in octal,
 * the owner and group (names where known, with their numeric ids) of the file or directory at
 * fault, and the reason.
 *
 * <p>The user-private-group convention (Debian's): a group is an owner's private group when its
 * name is the owner's name, it is the owner's primary group, and it lists no member other than the
 * owner. Write permission for such a group gives no one but the owner write access, so a umask
 * 002 user's own files pass. (Another account that has the same primary gid without being listed
 * is not detected: that would take enumerating every account.)
 *
 * <p>Stateless; every method is safe to call from any thread. Failures to look at a path are
 * problems in the answer, never exceptions.
 */
public final class PathTrust {
    /** Root's uid: always a trusted owner. */
    public static final int ROOT_UID = 0;

    private static final String ATTRIBUTES = "unix:mode,uid,gid";
    private static final int TYPE_MASK = 0170000;
    private static final int DIRECTORY_TYPE = 0040000;
    private static final int STICKY = 01000;
    private static final int GROUP_WRITE = 0020;
    private static final int OTHER_WRITE = 0002;
    private static final int READ = 4;
    private static final int SEARCH = 1;

    private PathTrust() {}

    private record Attributes(int mode, int uid, int gid) {
        boolean directory() {
            return (mode & TYPE_MASK) == DIRECTORY_TYPE;
        }

        @Override
        public String toString() {
            return "mode " + octalMode(mode) + ", owner " + UnixAccounts.describeUser(uid) + ", group "
                    + UnixAccounts.describeGroup(gid);
        }
    }

    /** A path's problem, or its attributes. */
    private record Looked(Attributes attributes, String problem) {}

    /**
     * Whether {@code path} can be trusted not to have been written by anyone but root and the
     * {@code trustedOwners}. The real path is checked (symbolic links followed: the operator placed
     * them): it must exist, be owned by root or a trusted owner, and be writable neither by others
     * nor by its group (unless the group is the owner's private group). Then each directory above
     * it, up to {@code /}, must be owned by root or a trusted owner and be writable neither by its
     * group nor by others, unless it has the sticky bit (as {@code /tmp}) or the group is the
     * owner's private group.
     *
     * @return the first problem found, or empty when the path can be trusted
     */
    public static Optional<String> untrusted(Path path, Set<Integer> trustedOwners) {
        return check(path, trustedOwners, true);
    }

    /**
     * {@link #untrusted} for the file itself only (its real path: owner and write permissions), not
     * the directories above it: for a caller that has checked the directory it lies in, and the
     * file's real path is in that directory.
     */
    public static Optional<String> untrustedEntry(Path path, Set<Integer> trustedOwners) {
        return check(path, trustedOwners, false);
    }

    /**
     * Whether {@code reader} can read {@code path} (a file; a directory: list it) and search every
     * directory on the way to it, both along the path as given and along its real path, judged from
     * the permission bits: the owner's bits when {@code reader} owns the file, else the group's
     * when {@code reader} is in its group, else the others'. Root reads everything that exists.
     *
     * @return the problem, naming the first directory (from {@code /} down) or the file that stops
     *     the reader, e.g. {@code "nobody (uid 65534) cannot read /root/x/a.jar: /root is mode
     *     0700, owner root (uid 0), group root (gid 0)"}; or empty when the reader can read it
     */
    public static Optional<String> unreadable(Path path, UnixAccount reader) {
        requireNonNull(path, "path is null");
        requireNonNull(reader, "reader is null");
        String cannot = reader.describe() + " cannot read " + path + ": ";
        Path real;
        try {
            real = path.toRealPath();
        } catch (IOException e) {
            return Optional.of(cannot + reason(path, e));
        }
        Set<Path> directories = new LinkedHashSet<>();
        directories.addAll(ancestorsFromRoot(path.toAbsolutePath().normalize()));
        directories.addAll(ancestorsFromRoot(real));
        for (Path directory : directories) {
            Looked looked = look(directory);
            if (looked.problem() != null) {
                return Optional.of(cannot + looked.problem());
            }
            if (!allows(looked.attributes(), reader, SEARCH)) {
                return Optional.of(cannot + directory + " is " + looked.attributes());
            }
        }
        Looked looked = look(real);
        if (looked.problem() != null) {
            return Optional.of(cannot + looked.problem());
        }
        int needed = looked.attributes().directory() ? READ | SEARCH : READ;
        if (!allows(looked.attributes(), reader, needed)) {
            return Optional.of(cannot + (real.equals(path) ? path : real) + " is " + looked.attributes());
        }
        return Optional.empty();
    }

    /** The permission bits of {@code mode} (set-id and sticky bits included) in octal, four digits: {@code "0755"}. */
    public static String octalMode(int mode) {
        return String.format("%04o", mode & 07777);
    }

    private static Optional<String> check(Path path, Set<Integer> trustedOwners, boolean ancestors) {
        requireNonNull(path, "path is null");
        requireNonNull(trustedOwners, "trustedOwners is null");
        Path real;
        try {
            real = path.toRealPath();
        } catch (IOException e) {
            return Optional.of(reason(path, e));
        }
        String subject =
                real.equals(path.toAbsolutePath().normalize()) ? path.toString() : path + " (real path " + real + ")";
        Looked self = look(real);
        if (self.problem() != null) {
            return Optional.of(self.problem());
        }
        Optional<String> problem = writers(self.attributes(), trustedOwners, false);
        if (problem.isPresent()) {
            return Optional.of(subject + " is " + self.attributes() + ": " + problem.get());
        }
        if (!ancestors) {
            return Optional.empty();
        }
        for (Path directory = real.getParent(); directory != null; directory = directory.getParent()) {
            Looked above = look(directory);
            if (above.problem() != null) {
                return Optional.of(subject + ": " + above.problem());
            }
            problem = writers(above.attributes(), trustedOwners, true);
            if (problem.isPresent()) {
                return Optional.of(
                        subject + " is under " + directory + ", which is " + above.attributes() + ": " + problem.get());
            }
        }
        return Optional.empty();
    }

    /** Why someone other than root and the trusted owners could change it, if so. */
    private static Optional<String> writers(Attributes attributes, Set<Integer> trustedOwners, boolean above) {
        if (attributes.uid() != ROOT_UID && !trustedOwners.contains(attributes.uid())) {
            Set<Integer> trusted = new TreeSet<>(Integer::compareUnsigned);
            trusted.add(ROOT_UID);
            trusted.addAll(trustedOwners);
            return Optional.of("its owner is not trusted (trusted: "
                    + trusted.stream().map(UnixAccounts::describeUser).collect(Collectors.joining(", ")) + ")");
        }
        boolean sticky = above && (attributes.mode() & STICKY) != 0;
        if (sticky) {
            return Optional.empty();
        }
        if ((attributes.mode() & OTHER_WRITE) != 0) {
            return Optional.of("writable by others");
        }
        if ((attributes.mode() & GROUP_WRITE) != 0
                && !UnixAccounts.isPrivateGroup(attributes.uid(), attributes.gid())) {
            return Optional.of("writable by its group, which is not the owner's private group");
        }
        return Optional.empty();
    }

    private static boolean allows(Attributes attributes, UnixAccount reader, int bits) {
        if (reader.uid() == ROOT_UID) {
            return true;
        }
        int shift = attributes.uid() == reader.uid() ? 6 : reader.inGroup(attributes.gid()) ? 3 : 0;
        return (attributes.mode() >> shift & bits) == bits;
    }

    /** {@code /}, then each directory below it down to the parent of {@code path} (absolute). */
    private static List<Path> ancestorsFromRoot(Path path) {
        List<Path> ancestors = new ArrayList<>();
        for (Path directory = path.getParent(); directory != null; directory = directory.getParent()) {
            ancestors.add(0, directory);
        }
        return ancestors;
    }

    private static Looked look(Path path) {
        try {
            Map<String, Object> attributes = Files.readAttributes(path, ATTRIBUTES);
            return new Looked(
                    new Attributes((Integer) attributes.get("mode"), (Integer) attributes.get("uid"), (Integer)
                            attributes.get("gid")),
                    null);
        } catch (IOException | UnsupportedOperationException e) {
            return new Looked(null, reason(path, e));
        }
    }

    private static String reason(Path path, Exception e) {
        if (e instanceof NoSuchFileException) {
            return path + " does not exist";
        }
        if (e instanceof AccessDeniedException) {
            return path + " cannot be checked: permission denied";
        }
        String message = e.getMessage() == null
                ? e.getClass().getSimpleName()
                : e.getMessage().replaceAll("\\s*\\R\\s*", " ");
        return path + " cannot be checked: " + message;
    }
}
