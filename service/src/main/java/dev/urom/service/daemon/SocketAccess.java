// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;
import dev.urom.framework.security.PathTrust;
import dev.urom.framework.security.UnixAccounts;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Who may reach the daemon's Unix sockets, whatever the umask (docs/security.md): its socket
 * directory is the daemon's own, mode 0700, or 0750 with the configured {@code --socket-group};
 * the sockets in it are 0600 or 0660. A worker's socket is the same, except that a daemon running as
 * root gives the socket of a Unix user's worker to that user alone (owner the user, mode 0600).
 *
 * <p>The daemon refuses to start when its socket directory exists as a symbolic link, owned by
 * another user, or writable by others or by a group that is not its user's own, or when a directory above it could be changed by someone
 * else than root or the daemon's user (see {@link PathTrust#untrusted}).
 *
 * <p>Immutable and thread-safe.
 */
final class SocketAccess {
    private final int daemonUid;
    private final OptionalInt group;

    private SocketAccess(int daemonUid, OptionalInt group) {
        this.daemonUid = daemonUid;
        this.group = group;
    }

    /**
     * The access of a daemon of this process's user with the group {@code socketGroup} (null: none).
     *
     * @throws IOException when the group does not exist
     */
    static SocketAccess of(String socketGroup) throws IOException {
        OptionalInt gid = OptionalInt.empty();
        if (socketGroup != null) {
            gid = UnixAccounts.groupId(socketGroup);
            if (gid.isEmpty()) {
                throw new IOException("--socket-group " + socketGroup + ": there is no such group");
            }
        }
        return new SocketAccess(UnixAccounts.effectiveUid(), gid);
    }

    int directoryMode() {
        return group.isPresent() ? 0750 : 0700;
    }

    int socketMode() {
        return group.isPresent() ? 0660 : 0600;
    }

    /**
     * Makes {@code dir}, the socket directory, or takes it over when it is the daemon's: refuses one
     * another user could have prepared, then sets its mode and group.
     *
     * @throws IOException one line naming the directory, its owner or mode, and what to do
     */
    void prepareDirectory(Path dir) throws IOException {
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null && !Files.exists(parent)) {
            Files.createDirectories(
                    parent, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        boolean made = false;
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            Map<String, Object> attributes = Files.readAttributes(dir, "unix:mode,uid,gid", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) attributes.get("mode");
            int uid = (Integer) attributes.get("uid");
            int gid = (Integer) attributes.get("gid");
            if ((mode & 0170000) != 0040000) {
                throw new IOException("the socket directory " + dir
                        + " exists and is not a directory (a symbolic link is not taken either)");
            }
            if (uid != daemonUid) {
                throw new IOException("the socket directory " + dir + " is owned by " + UnixAccounts.describeUser(uid)
                        + ", not by this daemon's user (" + UnixAccounts.describeUser(daemonUid)
                        + "): someone else made it; remove it or give another --listen");
            }
            if ((mode & 0002) != 0) {
                throw new IOException("the socket directory " + dir + " may be written by others (mode "
                        + PathTrust.octalMode(mode) + "): remove it or give another --listen");
            }
            if ((mode & 0020) != 0 && !UnixAccounts.isPrivateGroup(uid, gid)) {
                throw new IOException("the socket directory " + dir + " may be written by the members of "
                        + UnixAccounts.describeGroup(gid) + " (mode " + PathTrust.octalMode(mode)
                        + "): remove it or give another --listen");
            }
        } else {
            refuseForeignParent(dir, parent);
            try {
                Files.createDirectory(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (AccessDeniedException e) {
                throw new IOException("the socket directory " + dir + " cannot be made: " + parent + " ("
                        + describe(parent) + ") does not let " + UnixAccounts.describeUser(daemonUid)
                        + " create it; give another --listen");
            }
            made = true;
        }
        restrict(dir, directoryMode());
        Optional<String> problem = PathTrust.untrusted(dir, Set.copyOf(List.of(0, daemonUid)));
        if (problem.isPresent()) {
            if (made) {
                Files.deleteIfExists(dir);
            }
            throw new IOException("the socket directory " + dir + " is not safe: " + problem.get());
        }
    }

    /**
     * Refuses to make the socket directory in {@code parent} when another user than root and the
     * daemon's owns it (as when someone else made {@code /tmp/urom-<user>} first): the check after
     * making it would refuse it anyway, but the directory may not even be made there, and the
     * system's "permission denied" would not say whose directory is in the way.
     */
    private void refuseForeignParent(Path dir, Path parent) throws IOException {
        if (parent == null) {
            return;
        }
        int owner = (Integer) Files.getAttribute(parent, "unix:uid");
        if (owner != PathTrust.ROOT_UID && owner != daemonUid) {
            throw new IOException("the socket directory " + dir + " would be made in " + parent + ", which is owned by "
                    + UnixAccounts.describeUser(owner) + ", not by root or this daemon's user ("
                    + UnixAccounts.describeUser(daemonUid)
                    + "): someone else made it; remove it or give another --listen");
        }
    }

    /** The mode and owner of {@code path} for a message: {@code mode 0755, owner root (uid 0)}. */
    private static String describe(Path path) throws IOException {
        Map<String, Object> attributes = Files.readAttributes(path, "unix:mode,uid");
        return "mode " + PathTrust.octalMode((Integer) attributes.get("mode")) + ", owner "
                + UnixAccounts.describeUser((Integer) attributes.get("uid"));
    }

    /**
     * Gives {@code path} (a directory or a socket the daemon has just made, in a directory only it
     * can write) {@code mode} and the socket group. By path: a socket cannot be opened for fchmod.
     */
    void restrict(Path path, int mode) throws IOException {
        if (group.isPresent()) {
            Files.setAttribute(path, "unix:gid", group.getAsInt(), LinkOption.NOFOLLOW_LINKS);
        }
        Files.setPosixFilePermissions(path, permissions(mode));
    }

    /** The permission bits of {@code mode} (low nine bits). */
    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = PosixFilePermission.values(); // OWNER_READ ... OTHERS_EXECUTE: bits 8 down to 0
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (1 << (8 - i))) != 0) {
                set.add(bits[i]);
            }
        }
        return set;
    }

    /**
     * The launcher's options for the socket of a worker owned by {@code owner} at {@code socket}:
     * its mode and owner (see the class comment).
     */
    List<String> workerSocketOptions(Path socket, Principal owner) {
        List<String> options = new ArrayList<>(List.of("--listen-unix", socket.toString()));
        String groupId = group.isPresent() ? Integer.toUnsignedString(group.getAsInt()) : "-1";
        if (daemonUid == 0 && owner.isUnix()) {
            options.addAll(
                    List.of("--socket-mode", "0600", "--socket-owner", Integer.toUnsignedString(owner.uid()) + ":-1"));
        } else {
            options.addAll(List.of("--socket-mode", String.format("%04o", socketMode())));
            if (group.isPresent()) {
                options.addAll(List.of("--socket-owner", "-1:" + groupId));
            }
        }
        return options;
    }
}
