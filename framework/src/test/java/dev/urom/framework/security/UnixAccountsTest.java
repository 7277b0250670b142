// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The look-ups against this machine's real accounts, cross-checked with what the kernel
 * ({@code /proc/self/status}), {@code /etc/group} and {@code id(1)} say. Runs as root and as any
 * other user.
 */
class UnixAccountsTest {
    @Test
    void theEffectiveUidIsTheOneTheKernelReports() throws IOException {
        assertThat(UnixAccounts.effectiveUid()).isEqualTo(procStatusId("Uid:"));
        assertThat(UnixAccounts.effectiveGid()).isEqualTo(procStatusId("Gid:"));
    }

    @Test
    void rootResolvesByNameUidAndUidGid() {
        UnixAccount root = UnixAccounts.user("root").orElseThrow();

        assertThat(root.name()).isEqualTo("root");
        assertThat(root.uid()).isZero();
        assertThat(root.gid()).isZero();
        assertThat(root.groups()).first().isEqualTo(0);
        assertThat(UnixAccounts.user(0)).hasValue(root);
        assertThat(UnixAccounts.user("0")).hasValue(root);
        assertThat(UnixAccounts.user("0:0")).hasValue(new UnixAccount("0", 0, 0, List.of(0)));
    }

    @Test
    void theCurrentUserResolvesByNameUidAndUidGidWithTheGroupsIdReports() throws Exception {
        int uid = UnixAccounts.effectiveUid();
        UnixAccount me = UnixAccounts.user(uid).orElseThrow();

        assertThat(UnixAccounts.user(me.name())).hasValue(me);
        assertThat(UnixAccounts.user(Integer.toString(uid))).hasValue(me);
        assertThat(me.groups()).first().isEqualTo(me.gid());
        assertThat(me.groups()).doesNotHaveDuplicates();
        assertThat(new HashSet<>(me.groups())).isEqualTo(idGroups(me.name()));
        assertThat(UnixAccounts.user(uid + ":" + me.gid()))
                .hasValue(new UnixAccount(Integer.toString(uid), uid, me.gid(), List.of(me.gid())));
    }

    @Test
    void nobodyResolves() {
        UnixAccount nobody = UnixAccounts.user("nobody").orElseThrow();

        assertThat(nobody.uid()).isNotZero();
        assertThat(UnixAccounts.user(nobody.uid()).map(UnixAccount::name)).hasValue("nobody");
        assertThat(nobody.describe()).isEqualTo("nobody (uid " + nobody.uid() + ")");
    }

    @Test
    void aNumericUidGidNeedsNoAccount() {
        int free = TestAccounts.uidWithoutAccount();

        UnixAccount account = UnixAccounts.user(free + ":4321").orElseThrow();

        assertThat(account).isEqualTo(new UnixAccount(Integer.toString(free), free, 4321, List.of(4321)));
        assertThat(account.describe()).isEqualTo("uid " + free);
        assertThat(UnixAccounts.user(Integer.toString(free)))
                .as("a bare uid needs an account")
                .isEmpty();
        assertThat(UnixAccounts.user(free)).isEmpty();
    }

    @Test
    void anythingElseIsEmpty() {
        for (String spec : List.of(
                "no-such-user-urom",
                "",
                "1:2:3",
                ":0",
                "0:",
                "-1",
                "+0",
                "0x10",
                "4294967295",
                "4294967295:0",
                "0:4294967295",
                "99999999999",
                "root\0",
                "root:0")) {
            assertThat(UnixAccounts.user(spec)).as("'%s'", spec).isEmpty();
        }
        assertThat(UnixAccounts.groupId("no-such-group-urom")).isEmpty();
        assertThat(UnixAccounts.groupName(TestAccounts.gidWithoutGroup())).isEmpty();
        assertThat(UnixAccounts.groupMembers(TestAccounts.gidWithoutGroup())).isEmpty();
    }

    @Test
    void groupsAgreeWithEtcGroup() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/etc/group"), StandardCharsets.UTF_8);
        assertThat(lines).isNotEmpty();
        for (String line : lines) {
            String[] fields = line.split(":", -1);
            if (fields.length != 4 || fields[0].startsWith("+") || fields[0].startsWith("-")) {
                continue;
            }
            int gid = Integer.parseUnsignedInt(fields[2]);
            List<String> members = fields[3].isEmpty() ? List.of() : Arrays.asList(fields[3].split(","));

            assertThat(UnixAccounts.groupId(fields[0])).as(line).isEqualTo(OptionalInt.of(gid));
            assertThat(UnixAccounts.groupName(gid)).as(line).hasValue(fields[0]);
            assertThat(UnixAccounts.groupMembers(gid)).as(line).isEqualTo(members);
        }
        assertThat(UnixAccounts.groupId("0")).isEqualTo(OptionalInt.of(0));
        assertThat(UnixAccounts.groupId(Integer.toString(TestAccounts.gidWithoutGroup())))
                .isEqualTo(OptionalInt.of(TestAccounts.gidWithoutGroup()));
        assertThat(UnixAccounts.describeGroup(0)).isEqualTo("root (gid 0)");
        assertThat(UnixAccounts.describeGroup(TestAccounts.gidWithoutGroup()))
                .isEqualTo("gid " + TestAccounts.gidWithoutGroup());
    }

    @Test
    void thePeerOfAUnixSocketMapsBackToThisProcessesUid(@TempDir Path dir) throws IOException {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("peer.sock"));
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(address);
            try (SocketChannel client = SocketChannel.open(address);
                    SocketChannel accepted = server.accept()) {
                UnixDomainPrincipal peer = accepted.getOption(ExtendedSocketOptions.SO_PEERCRED);

                assertThat(UnixAccounts.uidOfPrincipalName(peer.user().getName()))
                        .isEqualTo(OptionalInt.of(UnixAccounts.effectiveUid()));
                assertThat(client.isConnected()).isTrue();
            }
        }
    }

    @Test
    void aPrincipalNameIsAPasswdNameOrTheUidOfAnAccountlessUid() {
        int free = TestAccounts.uidWithoutAccount();

        assertThat(UnixAccounts.uidOfPrincipalName("root")).isEqualTo(OptionalInt.of(0));
        assertThat(UnixAccounts.uidOfPrincipalName("nobody"))
                .isEqualTo(
                        OptionalInt.of(UnixAccounts.user("nobody").orElseThrow().uid()));
        assertThat(UnixAccounts.uidOfPrincipalName(Integer.toString(free))).isEqualTo(OptionalInt.of(free));
        assertThat(UnixAccounts.uidOfPrincipalName("-2"))
                .as("the JDK prints uid 4294967294 as a signed int")
                .isEqualTo(OptionalInt.of(-2));
        assertThat(UnixAccounts.uidOfPrincipalName("no-such-user-urom")).isEmpty();
        assertThat(UnixAccounts.uidOfPrincipalName("-1")).isEmpty();
        assertThat(UnixAccounts.uidOfPrincipalName("")).isEmpty();
    }

    @Test
    void theAccountPutsItsPrimaryGroupFirstWithoutDuplicates() {
        assertThat(new UnixAccount("a", 5, 7, List.of(9, 7, 9, 3)).groups()).containsExactly(7, 9, 3);
        assertThat(new UnixAccount("a", 5, 7, List.of()).groups()).containsExactly(7);
    }

    /** The effective id of a {@code Uid:}/{@code Gid:} line (real, effective, saved, file system). */
    private static int procStatusId(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field)) {
                return Integer.parseUnsignedInt(
                        line.substring(field.length()).trim().split("\\s+")[1]);
            }
        }
        throw new AssertionError("no " + field + " line in /proc/self/status");
    }

    private static Set<Integer> idGroups(String user) throws Exception {
        Process id =
                new ProcessBuilder("id", "-G", user).redirectErrorStream(true).start();
        String output = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(id.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(id.exitValue()).as(output).isZero();
        Set<Integer> groups = new HashSet<>();
        for (String gid : output.split("\\s+")) {
            groups.add(Integer.parseUnsignedInt(gid));
        }
        return groups;
    }
}
