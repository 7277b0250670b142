// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.security;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A Unix account as permission checks see it: its name, uid, primary gid and every group it is
 * in. Ids are the kernel's 32-bit values held in an {@code int} (print them with {@link
 * Integer#toUnsignedString(int)}). Immutable.
 *
 * @param name the passwd name, or the decimal uid for an account given as {@code UID:GID}
 * @param groups every group id of the account: {@code gid} first, then the others in their
 *     order, without duplicates ({@code gid} is put first when the list given lacks it)
 */
public record UnixAccount(String name, int uid, int gid, List<Integer> groups) {
    /** {@code (uid_t) -1}: the id no file and no process has (the kernel reads it as "no change"). */
    public static final int NO_ID = -1;

    public UnixAccount {
        requireNonNull(name, "name is null");
        requireNonNull(groups, "groups is null");
        Set<Integer> ordered = new LinkedHashSet<>();
        ordered.add(gid);
        for (Integer group : groups) {
            ordered.add(requireNonNull(group, "a group id is null"));
        }
        groups = List.copyOf(ordered);
    }

    /**
     * A stand-in for every account of a kind, for permission checks: it owns no file and its primary
     * group is no file's ({@link #NO_ID}), so only the bits for others and those of {@code groups}
     * let it in. {@link #describe()} gives {@code description}.
     */
    public static UnixAccount anyOf(String description, List<Integer> groups) {
        return new UnixAccount(description, NO_ID, NO_ID, groups);
    }

    /** Whether the account is in group {@code gid} (primary or supplementary). */
    public boolean inGroup(int gid) {
        return groups.contains(gid);
    }

    /**
     * The account for messages: {@code "alice (uid 1000)"}, {@code "uid 1234"} when it has no name of
     * its own, the description alone for {@link #anyOf}.
     */
    public String describe() {
        if (uid == NO_ID) {
            return name;
        }
        String uidText = Integer.toUnsignedString(uid);
        return name.equals(uidText) ? "uid " + uidText : name + " (uid " + uidText + ")";
    }
}
