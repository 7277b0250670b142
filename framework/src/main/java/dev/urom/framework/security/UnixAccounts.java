// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.security;

import static java.util.Objects.requireNonNull;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Look-ups of Unix users and groups through the C library (so every name service the system is
 * configured with answers, not only {@code /etc/passwd}), with the reentrant calls {@code
 * getpwnam_r}, {@code getpwuid_r}, {@code getgrnam_r}, {@code getgrgid_r} and {@code
 * getgrouplist}.
 *
 * <p>"Not found" is an empty answer. A look-up that fails otherwise (the name service answers an
 * error, an entry too large to hold) throws {@link IllegalStateException} with one line naming the
 * call, its argument and the error: callers that decide on trust must not take a failure for an
 * absent entry.
 *
 * <p>Stateless; every method is safe to call from any thread (each call uses its own buffers).
 * Linux only.
 */
public final class UnixAccounts {
    private static final int POINTER = Native.POINTER_SIZE;
    // struct passwd { char *pw_name; char *pw_passwd; uid_t pw_uid; gid_t pw_gid; char *pw_gecos; char *pw_dir; char
    // *pw_shell; }
    private static final int PW_NAME = 0;
    private static final int PW_UID = 2 * POINTER;
    private static final int PW_GID = PW_UID + 4;
    private static final int PASSWD_SIZE = 5 * POINTER + 8;
    // struct group { char *gr_name; char *gr_passwd; gid_t gr_gid; char **gr_mem; }
    private static final int GR_NAME = 0;
    private static final int GR_GID = 2 * POINTER;
    private static final int GR_MEM = (GR_GID + 4 + POINTER - 1) / POINTER * POINTER;
    private static final int GROUP_SIZE = GR_MEM + POINTER;

    private static final long FIRST_BUFFER = 1024;
    private static final long LARGEST_BUFFER = 16L << 20;
    private static final int FIRST_GROUP_COUNT = 32;
    private static final long NO_SUCH_ID = 0xFFFF_FFFFL;

    private UnixAccounts() {}

    private record PasswdEntry(String name, int uid, int gid) {}

    private record GroupEntry(String name, int gid, List<String> members) {}

    @FunctionalInterface
    private interface ReentrantCall {
        int call(Pointer entry, Pointer buffer, long bufferLength, Pointer result);
    }

    /**
     * The account that {@code spec} names: a user name; or a decimal uid that has an account; or
     * {@code UID:GID}, both decimal, taken as given without a look-up (name: the uid in decimal,
     * groups: the gid alone). Anything else, and a name or uid without an account, is empty.
     */
    public static Optional<UnixAccount> user(String spec) {
        requireNonNull(spec, "spec is null");
        int colon = spec.indexOf(':');
        if (colon >= 0) {
            OptionalInt uid = parseId(spec.substring(0, colon));
            OptionalInt gid = parseId(spec.substring(colon + 1));
            if (uid.isEmpty() || gid.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new UnixAccount(
                    Integer.toUnsignedString(uid.getAsInt()), uid.getAsInt(), gid.getAsInt(), List.of(gid.getAsInt())));
        }
        Optional<PasswdEntry> named = passwdByName(spec);
        if (named.isPresent()) {
            return named.map(UnixAccounts::account);
        }
        OptionalInt uid = parseId(spec);
        return uid.isPresent() ? user(uid.getAsInt()) : Optional.empty();
    }

    /** The account with uid {@code uid}, or empty when the uid has no passwd entry. */
    public static Optional<UnixAccount> user(int uid) {
        return passwdByUid(uid).map(UnixAccounts::account);
    }

    /**
     * The gid of the group named {@code nameOrGid}, or the number itself when it is a decimal
     * gid (a numeric gid needs no entry, as with {@code chgrp}); empty for an unknown name.
     */
    public static OptionalInt groupId(String nameOrGid) {
        requireNonNull(nameOrGid, "nameOrGid is null");
        Optional<GroupEntry> named = groupByName(nameOrGid);
        return named.isPresent() ? OptionalInt.of(named.get().gid()) : parseId(nameOrGid);
    }

    /** The name of group {@code gid}, or empty when it has no group entry. */
    public static Optional<String> groupName(int gid) {
        return groupByGid(gid).map(GroupEntry::name);
    }

    /**
     * The members that group {@code gid} lists ({@code gr_mem}; accounts whose primary group it is
     * are not listed there); empty when the group has no entry.
     */
    public static List<String> groupMembers(int gid) {
        return groupByGid(gid).map(GroupEntry::members).orElse(List.of());
    }

    /** This process's effective uid. */
    public static int effectiveUid() {
        return LibC.geteuid();
    }

    /** This process's effective gid. */
    public static int effectiveGid() {
        return LibC.getegid();
    }

    /**
     * The uid behind the user name of a {@link java.nio.file.attribute.UserPrincipal} that the JDK
     * made from a uid (as {@code UnixDomainPrincipal.user()} from {@code SO_PEERCRED}): the JDK
     * names a uid by its passwd name, or, when it could not look the uid up, by the uid in
     * decimal. Empty when the name is neither, or when it could be both a user of that name and
     * another uid (an account named like a number).
     */
    public static OptionalInt uidOfPrincipalName(String name) {
        requireNonNull(name, "name is null");
        Optional<PasswdEntry> named = passwdByName(name);
        OptionalInt numeric = parseSignedOrUnsignedId(name);
        if (numeric.isEmpty()) {
            return named.map(entry -> OptionalInt.of(entry.uid())).orElse(OptionalInt.empty());
        }
        if (named.isPresent() && named.get().uid() != numeric.getAsInt()) {
            return OptionalInt.empty();
        }
        return numeric;
    }

    /** User {@code uid} for messages: {@code "alice (uid 1000)"}, or {@code "uid 1234"} without an entry. */
    public static String describeUser(int uid) {
        String id = "uid " + Integer.toUnsignedString(uid);
        return nameOrNothing(() -> passwdByUid(uid).map(PasswdEntry::name))
                .map(name -> name + " (" + id + ")")
                .orElse(id);
    }

    /** Group {@code gid} for messages: {@code "staff (gid 50)"}, or {@code "gid 1234"} without an entry. */
    public static String describeGroup(int gid) {
        String id = "gid " + Integer.toUnsignedString(gid);
        return nameOrNothing(() -> groupByGid(gid).map(GroupEntry::name))
                .map(name -> name + " (" + id + ")")
                .orElse(id);
    }

    /**
     * Whether group {@code gid} is the private group of user {@code uid}: the group's name is the
     * user's name, it is the user's primary group, and it lists no member but the user. False
     * when either has no entry or a look-up fails.
     */
    public static boolean isPrivateGroup(int uid, int gid) {
        try {
            Optional<PasswdEntry> owner = passwdByUid(uid);
            if (owner.isEmpty() || owner.get().gid() != gid) {
                return false;
            }
            Optional<GroupEntry> group = groupByGid(gid);
            return group.isPresent()
                    && group.get().name().equals(owner.get().name())
                    && group.get().members().stream().allMatch(owner.get().name()::equals);
        } catch (IllegalStateException e) {
            return false;
        }
    }

    private static Optional<String> nameOrNothing(Supplier<Optional<String>> lookUp) {
        try {
            return lookUp.get();
        } catch (IllegalStateException e) {
            return Optional.empty();
        }
    }

    private static UnixAccount account(PasswdEntry entry) {
        return new UnixAccount(entry.name(), entry.uid(), entry.gid(), groupList(entry.name(), entry.gid()));
    }

    private static List<Integer> groupList(String user, int gid) {
        int[] count = {FIRST_GROUP_COUNT};
        while (count[0] <= 1 << 20) {
            int capacity = count[0];
            int[] groups = new int[capacity];
            if (LibC.getgrouplist(user, gid, groups, count) >= 0) {
                List<Integer> list = new ArrayList<>(count[0]);
                for (int group : Arrays.copyOf(groups, Math.min(count[0], capacity))) {
                    list.add(group);
                }
                return list;
            }
            count[0] = Math.max(count[0], capacity * 2);
        }
        throw new IllegalStateException("getgrouplist(" + user + "): more than " + (1 << 20) + " groups");
    }

    private static Optional<PasswdEntry> passwdByName(String name) {
        if (!isLookUpName(name)) {
            return Optional.empty();
        }
        return lookUp(
                "getpwnam_r(" + name + ")",
                PASSWD_SIZE,
                (entry, buffer, length, result) -> LibC.getpwnam_r(name, entry, buffer, length, result),
                UnixAccounts::passwdEntry);
    }

    private static Optional<PasswdEntry> passwdByUid(int uid) {
        return lookUp(
                "getpwuid_r(" + Integer.toUnsignedString(uid) + ")",
                PASSWD_SIZE,
                (entry, buffer, length, result) -> LibC.getpwuid_r(uid, entry, buffer, length, result),
                UnixAccounts::passwdEntry);
    }

    private static Optional<GroupEntry> groupByName(String name) {
        if (!isLookUpName(name)) {
            return Optional.empty();
        }
        return lookUp(
                "getgrnam_r(" + name + ")",
                GROUP_SIZE,
                (entry, buffer, length, result) -> LibC.getgrnam_r(name, entry, buffer, length, result),
                UnixAccounts::groupEntry);
    }

    private static Optional<GroupEntry> groupByGid(int gid) {
        return lookUp(
                "getgrgid_r(" + Integer.toUnsignedString(gid) + ")",
                GROUP_SIZE,
                (entry, buffer, length, result) -> LibC.getgrgid_r(gid, entry, buffer, length, result),
                UnixAccounts::groupEntry);
    }

    private static PasswdEntry passwdEntry(Pointer entry) {
        return new PasswdEntry(entry.getPointer(PW_NAME).getString(0), entry.getInt(PW_UID), entry.getInt(PW_GID));
    }

    private static GroupEntry groupEntry(Pointer entry) {
        List<String> members = new ArrayList<>();
        Pointer list = entry.getPointer(GR_MEM);
        if (list != null) {
            for (int i = 0; ; i++) {
                Pointer member = list.getPointer((long) i * POINTER);
                if (member == null) {
                    break;
                }
                members.add(member.getString(0));
            }
        }
        return new GroupEntry(entry.getPointer(GR_NAME).getString(0), entry.getInt(GR_GID), List.copyOf(members));
    }

    /**
     * Runs one {@code get*_r} call with a buffer that grows while the call answers ERANGE, and
     * reads the entry before the buffers are freed.
     */
    private static <T> Optional<T> lookUp(String what, int entrySize, ReentrantCall call, Function<Pointer, T> read) {
        for (long size = FIRST_BUFFER; size <= LARGEST_BUFFER; size *= 2) {
            try (Memory entry = new Memory(entrySize);
                    Memory buffer = new Memory(size);
                    Memory result = new Memory(POINTER)) {
                result.setPointer(0, null);
                int error = call.call(entry, buffer, size, result);
                if (error == LibC.ERANGE) {
                    continue;
                }
                if (error == 0) {
                    return result.getPointer(0) == null ? Optional.empty() : Optional.of(read.apply(entry));
                }
                if (error == LibC.ENOENT || error == LibC.ESRCH || error == LibC.EBADF || error == LibC.EPERM) {
                    return Optional.empty();
                }
                throw new IllegalStateException(what + " failed: " + LibC.strerror(error) + " (errno " + error + ")");
            }
        }
        throw new IllegalStateException(what + " failed: the entry does not fit in " + LARGEST_BUFFER + " bytes");
    }

    private static boolean isLookUpName(String name) {
        return !name.isEmpty() && name.indexOf('\0') < 0;
    }

    /** A decimal id, 0 to 4294967294 (4294967295 is the "no id" of {@code chown}), as the kernel's 32 bits. */
    private static OptionalInt parseId(String text) {
        if (text.isEmpty() || text.length() > 10 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return OptionalInt.empty();
        }
        long value = Long.parseLong(text);
        return value < NO_SUCH_ID ? OptionalInt.of((int) value) : OptionalInt.empty();
    }

    /** Also a negative decimal: the JDK prints a uid above 2^31 - 1 as a signed int. */
    private static OptionalInt parseSignedOrUnsignedId(String text) {
        if (text.startsWith("-")) {
            OptionalInt magnitude = parseId(text.substring(1));
            if (magnitude.isEmpty() || Integer.toUnsignedLong(magnitude.getAsInt()) > 1L << 31) {
                return OptionalInt.empty();
            }
            int value = -magnitude.getAsInt();
            return value == -1 ? OptionalInt.empty() : OptionalInt.of(value);
        }
        return parseId(text);
    }
}
