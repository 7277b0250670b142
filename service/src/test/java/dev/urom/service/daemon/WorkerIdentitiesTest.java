// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.Principal;
import dev.urom.framework.security.UnixAccount;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Who each principal's workers run as, for a root daemon and for one that is not ({@link
 * WorkerIdentities} takes the daemon's uid, so both are tried whoever runs the test), against this
 * machine's real account database.
 */
class WorkerIdentitiesTest {
    private static final int ROOT = 0;
    private static final UnixAccount NOBODY = OsTestbed.nobody();

    private static UnixAccount account(WorkerIdentities identities, Principal principal) {
        try {
            return identities.accountFor(principal);
        } catch (UromException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    @Test
    void aRootDaemonGivesEachPrincipalWithoutAnAccountAUidOfItsOwnAndKeepsIt() throws IOException {
        WorkerIdentities identities = WorkerIdentities.of(DaemonSecurity.defaults(), ROOT);

        UnixAccount alice = account(identities, Principal.key("alice"));
        UnixAccount bob = account(identities, Principal.key("bob"));
        UnixAccount anonymous = account(identities, Principal.ANONYMOUS);
        UnixAccount root = account(identities, Principal.unix(ROOT));

        int first = OsTestbed.freeUid(UidRange.DEFAULT.first());
        assertThat(alice.uid()).isEqualTo(first);
        assertThat(bob.uid()).isEqualTo(OsTestbed.freeUid(Integer.toUnsignedLong(first) + 1));
        assertThat(List.of(alice.uid(), bob.uid(), anonymous.uid(), root.uid()))
                .doesNotHaveDuplicates()
                .allSatisfy(uid -> assertThat(UidRange.DEFAULT.contains(uid)).isTrue());
        for (UnixAccount account : List.of(alice, bob, anonymous, root)) {
            assertThat(account.gid()).as("the gid of the same number").isEqualTo(account.uid());
            assertThat(account.groups()).as("no supplementary group").containsExactly(account.uid());
        }
        assertThat(account(identities, Principal.key("alice")))
                .as("alice again")
                .isEqualTo(alice);
        assertThat(account(identities, Principal.unix(ROOT)))
                .as("root's principal again")
                .isEqualTo(root);
    }

    @Test
    void aUnixPrincipalRunsAsItselfInItsPrimaryGroupWithOnlyTheWorkerGroups() throws IOException {
        WorkerIdentities identities = WorkerIdentities.of(
                DaemonSecurity.builder().workerGroups(List.of("4242", "4243")).build(), ROOT);

        UnixAccount nobody = account(identities, Principal.unix(NOBODY.uid()));

        assertThat(nobody.uid()).isEqualTo(NOBODY.uid());
        assertThat(nobody.gid()).isEqualTo(NOBODY.gid());
        assertThat(nobody.groups()).containsExactly(NOBODY.gid(), 4242, 4243);
        assertThat(account(identities, Principal.key("alice")).groups())
                .containsExactly(OsTestbed.freeUid(UidRange.DEFAULT.first()), 4242, 4243);
    }

    @Test
    void aUnixPrincipalWithoutAnAccountIsRefusedInOneLine() throws IOException {
        WorkerIdentities identities = WorkerIdentities.of(DaemonSecurity.defaults(), ROOT);
        int stranger = OsTestbed.freeUid(123_456_789);

        assertThatThrownBy(() -> identities.accountFor(Principal.unix(stranger)))
                .isInstanceOf(UromException.class)
                .hasMessage("unix:" + stranger
                        + " has no account on this machine, so its workers have no group to run in; give uid "
                        + stranger + " an account, or run the daemon with --worker-user")
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(UromStatus.NOT_PERMITTED);
    }

    @Test
    void accountsAndGroupsInTheRangeAreSkippedAndAFullRangeIsRefusedInOneLine() throws IOException {
        int free = OsTestbed.freeUid(Integer.toUnsignedLong(NOBODY.uid()));
        UidRange range = new UidRange(Integer.toUnsignedLong(NOBODY.uid()), Integer.toUnsignedLong(free));
        WorkerIdentities identities = WorkerIdentities.of(
                DaemonSecurity.builder().workerUidRange(range).build(), ROOT);

        assertThat(account(identities, Principal.key("alice")).uid())
                .as("nobody's uid, and any other account's, is skipped")
                .isEqualTo(free);
        assertThatThrownBy(() -> identities.accountFor(Principal.key("bob")))
                .isInstanceOf(UromException.class)
                .hasMessage("no uid is left for key:bob's workers: every uid of --worker-uid-range " + range
                        + " is an account's, a group's or another principal's (1 principals hold one)")
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(UromStatus.FULL);
        assertThat(account(identities, Principal.key("alice")).uid())
                .as("alice keeps hers")
                .isEqualTo(free);
    }

    @Test
    void workerUserRunsEveryPrincipalAsThatOneAccount() throws IOException {
        WorkerIdentities identities = WorkerIdentities.of(
                DaemonSecurity.builder().workerUser("nobody").build(), ROOT);

        for (Principal principal : List.of(
                Principal.key("alice"), Principal.unix(ROOT), Principal.unix(NOBODY.uid()), Principal.ANONYMOUS)) {
            assertThat(account(identities, principal)).as("%s", principal).isEqualTo(NOBODY);
        }
        assertThat(identities.everyWorker()).isEqualTo(NOBODY);
        assertThat(identities.otherUsers()).isTrue();
        assertThat(identities.rootWorkers()).isFalse();
        assertThat(WorkerIdentities.of(
                                DaemonSecurity.builder().workerUser("root").build(), ROOT)
                        .rootWorkers())
                .isTrue();
    }

    @Test
    void perPrincipalChecksReadAsEveryWorkerUidWouldOnlyTheBitsForOthersAndTheWorkerGroups() throws IOException {
        UnixAccount every = WorkerIdentities.of(
                        DaemonSecurity.builder().workerGroups(List.of("4242")).build(), ROOT)
                .everyWorker();

        assertThat(every.uid()).isEqualTo(UnixAccount.NO_ID);
        assertThat(every.groups()).containsExactly(UnixAccount.NO_ID, 4242);
        assertThat(every.describe()).isEqualTo("the workers' uids");
    }

    @Test
    void aDaemonThatIsNotRootRunsEveryWorkerAsItselfAndRefusesWhatItCannotGive() throws IOException {
        int daemon = NOBODY.uid();
        WorkerIdentities identities = WorkerIdentities.of(DaemonSecurity.defaults(), daemon);

        assertThat(account(identities, Principal.key("alice")).uid()).isEqualTo(daemon);
        assertThat(account(identities, Principal.unix(ROOT)).uid()).isEqualTo(daemon);
        assertThat(identities.otherUsers()).isFalse();
        assertThatThrownBy(() -> WorkerIdentities.of(
                        DaemonSecurity.builder()
                                .workerUidRange(UidRange.DEFAULT)
                                .build(),
                        daemon))
                .isInstanceOf(IOException.class)
                .hasMessage("--worker-uid-range: only a daemon running as root can run workers as other uids; "
                        + "this one runs as " + NOBODY.describe());
        assertThatThrownBy(() -> WorkerIdentities.of(
                        DaemonSecurity.builder().workerGroups(List.of("4242")).build(), daemon))
                .isInstanceOf(IOException.class)
                .hasMessage("--worker-groups: only a daemon running as root can choose its workers' groups");
        assertThatThrownBy(() -> WorkerIdentities.of(
                        DaemonSecurity.builder().workerUser("root").build(), daemon))
                .isInstanceOf(IOException.class)
                .hasMessage("--worker-user root: only a daemon running as root can start workers as another user; "
                        + "this one runs as " + NOBODY.describe());
    }

    @Test
    void workerUserAndWorkerUidRangeTogetherAreRefusedInOneLine() {
        assertThatThrownBy(() -> WorkerIdentities.of(
                        DaemonSecurity.builder()
                                .workerUser("nobody")
                                .workerUidRange(UidRange.DEFAULT)
                                .build(),
                        ROOT))
                .isInstanceOf(IOException.class)
                .hasMessage(
                        "--worker-uid-range 1879048192-1879113727 and --worker-user nobody contradict each other: give one");
    }
}
