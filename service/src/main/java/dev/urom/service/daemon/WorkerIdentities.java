// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;
import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Who each principal's workers run as (docs/security.md, "Who workers run as"). Three modes, fixed
 * when the daemon starts:
 * <ul>
 *   <li>a daemon that is not root: every worker as the daemon's own account;
 *   <li>{@code --worker-user USER}: every worker as that one account, whoever its principal
 *       (weaker: the principals share a uid; {@code root} only when named);
 *   <li>otherwise (a root daemon): per principal. A Unix principal {@code unix:<uid>} other than
 *       root gets its own uid and the primary gid of its account; every other principal (a key
 *       principal, the anonymous one, {@code unix:0}) gets a uid of its own from {@code
 *       --worker-uid-range}, with the gid of the same number: at its first worker the lowest uid of
 *       the range that is no account's, no group's and no other principal's. It keeps that uid
 *       while the daemon runs. Supplementary groups: exactly {@code --worker-groups}.
 * </ul>
 *
 * <p>Thread-safe.
 */
final class WorkerIdentities {
    private static final String EVERY_WORKER = "the workers' uids";

    private final UnixAccount shared;
    private final UidRange range;
    private final List<Integer> groups;
    private final int daemonUid;
    private final Map<Principal, Integer> assigned = new HashMap<>();
    private final Set<Integer> taken = new HashSet<>();
    private long next;

    private WorkerIdentities(UnixAccount shared, UidRange range, List<Integer> groups, int daemonUid) {
        this.shared = shared;
        this.range = range;
        this.groups = groups;
        this.daemonUid = daemonUid;
        this.next = range == null ? 0 : range.first();
    }

    /**
     * Resolves the mode of {@code security} for a daemon running as {@code daemonUid}.
     *
     * @throws IOException one line: an unknown user or group, or an option a daemon that is not
     *     root cannot honour ({@code --worker-user} of another user, {@code --worker-groups}, {@code
     *     --worker-uid-range}), or {@code --worker-uid-range} beside {@code --worker-user}
     */
    static WorkerIdentities of(DaemonSecurity security, int daemonUid) throws IOException {
        if (daemonUid != 0) {
            if (!security.workerGroups().isEmpty()) {
                throw new IOException("--worker-groups: only a daemon running as root can choose its workers' groups");
            }
            if (security.workerUidRange() != null) {
                throw new IOException(
                        "--worker-uid-range: only a daemon running as root can run workers as other uids; this one runs as "
                                + UnixAccounts.describeUser(daemonUid));
            }
        }
        if (security.workerUser() != null) {
            if (security.workerUidRange() != null) {
                throw new IOException("--worker-uid-range " + security.workerUidRange() + " and --worker-user "
                        + security.workerUser() + " contradict each other: give one");
            }
            UnixAccount account = UnixAccounts.user(security.workerUser())
                    .orElseThrow(() ->
                            new IOException("--worker-user " + security.workerUser() + ": there is no such user"));
            if (daemonUid != 0 && account.uid() != daemonUid) {
                throw new IOException("--worker-user " + security.workerUser()
                        + ": only a daemon running as root can start workers as another user; " + "this one runs as "
                        + UnixAccounts.describeUser(daemonUid));
            }
            List<Integer> groups = security.workerGroups().isEmpty()
                    ? account.groups()
                    : withPrimary(account.gid(), groupIds(security));
            return new WorkerIdentities(
                    new UnixAccount(account.name(), account.uid(), account.gid(), groups), null, List.of(), daemonUid);
        }
        if (daemonUid != 0) {
            UnixAccount self = UnixAccounts.user(daemonUid)
                    .orElseGet(() -> new UnixAccount(
                            Integer.toUnsignedString(daemonUid),
                            daemonUid,
                            UnixAccounts.effectiveGid(),
                            List.of(UnixAccounts.effectiveGid())));
            return new WorkerIdentities(self, null, List.of(), daemonUid);
        }
        return new WorkerIdentities(null, security.workerUids(), groupIds(security), daemonUid);
    }

    private static List<Integer> groupIds(DaemonSecurity security) throws IOException {
        Set<Integer> ids = new LinkedHashSet<>();
        for (String group : security.workerGroups()) {
            OptionalInt gid = UnixAccounts.groupId(group);
            if (gid.isEmpty()) {
                throw new IOException("--worker-groups: there is no group " + group);
            }
            ids.add(gid.getAsInt());
        }
        return List.copyOf(ids);
    }

    private static List<Integer> withPrimary(int gid, List<Integer> others) {
        Set<Integer> ids = new LinkedHashSet<>();
        ids.add(gid);
        ids.addAll(others);
        return List.copyOf(ids);
    }

    /**
     * The account {@code principal}'s workers run as; per principal, its uid is taken now when it
     * has none yet.
     *
     * @throws UromException NOT_PERMITTED when a Unix principal has no account on this machine (its
     *     primary group is unknown) or its uid is another principal's; FULL when every uid of the
     *     range is taken
     */
    synchronized UnixAccount accountFor(Principal principal) throws UromException {
        if (shared != null) {
            return shared;
        }
        if (principal.isUnix() && principal.uid() != 0) {
            return ownAccount(principal);
        }
        Integer uid = assigned.get(principal);
        if (uid == null) {
            uid = takeUid(principal);
            assigned.put(principal, uid);
            taken.add(uid);
        }
        return new UnixAccount(Integer.toUnsignedString(uid), uid, uid, withPrimary(uid, groups));
    }

    private UnixAccount ownAccount(Principal principal) throws UromException {
        int uid = principal.uid();
        UnixAccount account = UnixAccounts.user(uid)
                .orElseThrow(() -> new UromException(
                        UromStatus.NOT_PERMITTED,
                        principal
                                + " has no account on this machine, so its workers have no group to run in; give uid "
                                + Integer.toUnsignedString(uid)
                                + " an account, or run the daemon with --worker-user"));
        if (taken.contains(uid)) {
            throw new UromException(
                    UromStatus.NOT_PERMITTED,
                    principal + ": uid " + Integer.toUnsignedString(uid)
                            + " was given to another principal's workers (--worker-uid-range " + range
                            + "), and an account took it since");
        }
        return new UnixAccount(account.name(), uid, account.gid(), withPrimary(account.gid(), groups));
    }

    private int takeUid(Principal principal) throws UromException {
        for (; next <= range.last(); next++) {
            int candidate = (int) next;
            if (!taken.contains(candidate)
                    && UnixAccounts.user(candidate).isEmpty()
                    && UnixAccounts.groupName(candidate).isEmpty()) {
                return candidate;
            }
        }
        throw new UromException(
                UromStatus.FULL,
                "no uid is left for " + principal + "'s workers: every uid of --worker-uid-range " + range
                        + " is an account's, a group's or another principal's (" + assigned.size()
                        + " principals hold one)");
    }

    /**
     * Whom the files every worker needs must be readable by: the one account of the first two modes,
     * else a stand-in for every worker uid ({@link UnixAccount#anyOf}: the bits for others, and those
     * of {@code --worker-groups}).
     */
    UnixAccount everyWorker() {
        return shared != null ? shared : UnixAccount.anyOf(EVERY_WORKER, groups);
    }

    /** Whether some worker may run as another user than the daemon. */
    boolean otherUsers() {
        return shared == null || shared.uid() != daemonUid;
    }

    /** Whether the workers of root's own principal would run as root. */
    boolean rootWorkers() {
        return shared != null && shared.uid() == 0;
    }

    /** For the daemon's log: who the workers run as. */
    String describe() {
        if (shared != null) {
            return shared.describe() + " with groups " + shared.groups();
        }
        return "each principal's own uid (Unix users their own, the others one each from " + range + ") with groups "
                + groups;
    }
}
