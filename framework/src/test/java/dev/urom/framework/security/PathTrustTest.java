// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.urom.nativebridge.testkit.UserNamespaces;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trust and readability checks against real files and modes in a temporary directory (made
 * 0755 first, so only what a test sets up can fail). Runs as root and as any other user: where a
 * case needs a second identity (a foreign owner, a group the user is not in), root makes it with
 * chown and another user gets the same check through a trusted set, a synthetic reader or a user namespace
 * that maps its own ids to the ones root would set.
 */
class PathTrustTest {
    private static final int ME = UnixAccounts.effectiveUid();
    private static final boolean ROOT = ME == 0;
    private static final Set<Integer> TRUSTED = Set.of(ME);

    @TempDir
    Path temp;

    @BeforeEach
    void openTheTemporaryDirectory() throws IOException {
        mode(temp, 0755);
    }

    @Test
    void aDirectoryOfATrustedOwnerWithMode0755Passes() throws IOException {
        Path dir = directory("plugins", 0755);
        Path file = file(dir.resolve("a.so"), 0644);

        assertThat(PathTrust.untrusted(dir, TRUSTED)).isEmpty();
        assertThat(PathTrust.untrusted(file, TRUSTED)).isEmpty();
        assertThat(PathTrust.untrustedEntry(file, TRUSTED)).isEmpty();
    }

    @Test
    void writableByOthersFailsNamingThePathModeOwnerAndGroup() throws IOException {
        for (int mode : List.of(0777, 0757, 0703)) {
            Path dir = directory("open-" + Integer.toOctalString(mode), mode);

            assertThat(PathTrust.untrusted(dir, TRUSTED))
                    .hasValue(dir + " is mode " + String.format("%04o", mode)
                            + ", owner " + UnixAccounts.describeUser(ME) + ", group "
                            + UnixAccounts.describeGroup(gid(dir))
                            + ": writable by others");
        }
    }

    @Test
    void aFileWritableByOthersFailsEvenAsAnEntryOfACheckedDirectory() throws IOException {
        Path file = file(temp.resolve("a.so"), 0646);

        assertThat(PathTrust.untrustedEntry(file, TRUSTED))
                .get(STRING)
                .startsWith(file + " is mode 0646, owner ")
                .endsWith(": writable by others");
    }

    /**
     * Root chowns the directory to a gid that names no group. Another user cannot, so it looks at its
     * own directory from a user namespace that maps its uid to 0 and its gid to such a gid: there the
     * directory is {@code 0:GID} exactly as root builds it, and a child JVM inside runs the check.
     */
    @Test
    void groupWritableFailsWhenTheGroupIsNotTheOwnersPrivateGroup() throws Exception {
        Path dir = directory("shared", 0775);
        int gid = TestAccounts.gidWithoutGroup();
        String expected = dir + " is mode 0775, owner root (uid 0), group gid " + gid
                + ": writable by its group, which is not the owner's private group";
        if (ROOT) {
            Files.setAttribute(dir, "unix:gid", gid);
            assertThat(PathTrust.untrusted(dir, TRUSTED)).hasValue(expected);
            return;
        }

        assertThat(untrustedAsRootOfANamespace(dir, gid)).isEqualTo(expected);
    }

    @Test
    void groupWritableByTheOwnersOwnPrimaryGroupPassesExactlyWhenItIsPrivate() throws IOException {
        Path dir = directory("umask002", 0775);
        Path file = file(dir.resolve("a.so"), 0664);
        int gid = gid(file);
        boolean privateGroup = UnixAccounts.isPrivateGroup(ME, gid);

        assertThat(PathTrust.untrusted(file, TRUSTED).isEmpty()).isEqualTo(privateGroup);
        if (!privateGroup) {
            assertThat(PathTrust.untrusted(file, TRUSTED))
                    .get(STRING)
                    .endsWith("writable by its group, which is not the owner's private group");
        }
    }

    @Test
    void thePrivateGroupRuleFollowsTheAccountDatabase() {
        UnixAccount nobody = UnixAccounts.user("nobody").orElseThrow();

        assertThat(UnixAccounts.isPrivateGroup(0, 0))
                .as("root:root lists no member")
                .isTrue();
        assertThat(UnixAccounts.isPrivateGroup(0, nobody.gid()))
                .as("not root's primary group")
                .isFalse();
        assertThat(UnixAccounts.isPrivateGroup(nobody.uid(), nobody.gid()))
                .as("nobody's group is not named nobody")
                .isEqualTo(UnixAccounts.groupName(nobody.gid()).orElseThrow().equals("nobody"));
        assertThat(UnixAccounts.isPrivateGroup(TestAccounts.uidWithoutAccount(), 0))
                .isFalse();
        assertThat(UnixAccounts.isPrivateGroup(0, TestAccounts.gidWithoutGroup()))
                .isFalse();
    }

    @Test
    void anAncestorWritableByOthersFailsUnlessItIsSticky() throws IOException {
        Path open = directory("open", 0777);
        Path inner = Files.createDirectory(open.resolve("inner"));
        mode(inner, 0755);

        Optional<String> problem = PathTrust.untrusted(inner, TRUSTED);
        mode(open, 01777);
        Optional<String> sticky = PathTrust.untrusted(inner, TRUSTED);

        assertThat(problem)
                .hasValue(inner + " is under " + open + ", which is mode 0777, owner " + UnixAccounts.describeUser(ME)
                        + ", group " + UnixAccounts.describeGroup(gid(open)) + ": writable by others");
        assertThat(sticky).isEmpty();
        assertThat(PathTrust.untrustedEntry(inner, TRUSTED))
                .as("the entry alone")
                .isEmpty();
        assertThat(PathTrust.untrusted(open, TRUSTED))
                .as("sticky does not excuse the path itself")
                .get(STRING)
                .startsWith(open + " is mode 1777")
                .endsWith("writable by others");
    }

    @Test
    void anOwnerOutsideTheTrustedSetFails() throws IOException {
        Path file = file(temp.resolve("foreign.so"), 0644);
        int owner = ME;
        if (ROOT) {
            owner = UnixAccounts.user("nobody").orElseThrow().uid();
            Files.setAttribute(file, "unix:uid", owner);
        }

        Optional<String> problem = PathTrust.untrusted(file, ROOT ? Set.of() : Set.of(owner + 1));

        assertThat(problem)
                .hasValue(file + " is mode 0644, owner " + UnixAccounts.describeUser(owner) + ", group "
                        + UnixAccounts.describeGroup(gid(file)) + ": its owner is not trusted (trusted: root (uid 0)"
                        + (ROOT ? "" : ", " + UnixAccounts.describeUser(owner + 1)) + ")");
        assertThat(PathTrust.untrusted(file, Set.of(owner))).isEmpty();
    }

    @Test
    void anAncestorOfAnUntrustedOwnerFails() throws IOException {
        Path dir = directory("theirs", 0755);
        Path file = file(dir.resolve("a.so"), 0644);
        int owner = ME;
        if (ROOT) {
            owner = UnixAccounts.user("nobody").orElseThrow().uid();
            Files.setAttribute(dir, "unix:uid", owner);
        }
        Set<Integer> trusted = ROOT ? Set.of() : Set.of(owner + 1);

        assertThat(PathTrust.untrusted(file, trusted))
                .get(STRING)
                .startsWith(file + " is ")
                .contains(ROOT ? "is under " + dir + ", which is mode 0755" : "mode 0644")
                .endsWith("its owner is not trusted (trusted: root (uid 0)"
                        + (ROOT ? "" : ", " + UnixAccounts.describeUser(owner + 1)) + ")");
    }

    @Test
    void symbolicLinksAreFollowedAndTheTargetIsChecked() throws IOException {
        Path open = directory("open", 0777);
        Path badTarget = file(open.resolve("bad.so"), 0646);
        Path good = directory("good", 0755);
        Path goodTarget = file(good.resolve("good.so"), 0644);
        Path links = directory("links", 0755);
        Path toBad = Files.createSymbolicLink(links.resolve("bad.so"), badTarget);
        Path toGood = Files.createSymbolicLink(open.resolve("to-good.so"), goodTarget);

        assertThat(PathTrust.untrusted(toBad, TRUSTED))
                .get(STRING)
                .startsWith(toBad + " (real path " + badTarget + ") is mode 0646")
                .endsWith("writable by others");
        assertThat(PathTrust.untrusted(toGood, TRUSTED))
                .as("the link's own directory is the operator's choice")
                .isEmpty();
    }

    @Test
    void aMissingPathIsAProblem() {
        Path missing = temp.resolve("missing.so");

        assertThat(PathTrust.untrusted(missing, TRUSTED)).hasValue(missing + " does not exist");
        assertThat(PathTrust.untrustedEntry(missing, TRUSTED)).hasValue(missing + " does not exist");
        assertThat(PathTrust.unreadable(missing, UnixAccounts.user(ME).orElseThrow()))
                .hasValue(UnixAccounts.user(ME).orElseThrow().describe() + " cannot read " + missing + ": " + missing
                        + " does not exist");
    }

    @Test
    void aFileUnderA0700DirectoryIsUnreadableByAnotherUser() throws IOException {
        Path closed = directory("closed", 0700);
        Path lib = Files.createDirectories(closed.resolve("x/lib"));
        Path jar = file(lib.resolve("a.jar"), 0644);
        UnixAccount nobody = TestAccounts.anotherUser();

        Optional<String> problem = PathTrust.unreadable(jar, nobody);
        mode(closed, 0755);
        Optional<String> opened = PathTrust.unreadable(jar, nobody);

        assertThat(problem)
                .hasValue(nobody.describe() + " cannot read " + jar + ": " + closed + " is mode 0700, owner "
                        + UnixAccounts.describeUser(ME) + ", group " + UnixAccounts.describeGroup(gid(closed)));
        assertThat(opened).isEmpty();
        assertThat(PathTrust.unreadable(jar, UnixAccounts.user(ME).orElseThrow()))
                .isEmpty();
        assertThat(PathTrust.unreadable(jar, UnixAccounts.user(0).orElseThrow()))
                .isEmpty();
    }

    @Test
    void readabilityFollowsTheOwnerThenGroupThenOtherBits() throws IOException {
        Path dir = directory("bits", 0750);
        Path file = file(dir.resolve("a.so"), 0640);
        int owner = ownedBySomeoneOtherThanRoot(dir, file);
        int group = gid(file);
        int stranger = TestAccounts.uidWithoutAccount();
        UnixAccount theOwner = new UnixAccount("owner", owner, group + 1, List.of());
        UnixAccount member = new UnixAccount("member", stranger, group + 1, List.of(group));
        UnixAccount outsider = new UnixAccount("outsider", stranger, group + 1, List.of());

        assertThat(PathTrust.unreadable(file, theOwner)).isEmpty();
        assertThat(PathTrust.unreadable(file, member)).isEmpty();
        assertThat(PathTrust.unreadable(file, outsider))
                .get(STRING)
                .startsWith("outsider (uid " + stranger + ") cannot read " + file + ": " + dir + " is mode 0750");

        mode(dir, 0755);
        assertThat(PathTrust.unreadable(file, outsider))
                .get(STRING)
                .isEqualTo("outsider (uid " + stranger + ") cannot read " + file + ": " + file + " is mode 0640, owner "
                        + UnixAccounts.describeUser(owner) + ", group " + UnixAccounts.describeGroup(group));

        mode(file, 0074);
        assertThat(PathTrust.unreadable(file, theOwner))
                .as("the owner's bits decide for the owner")
                .get(STRING)
                .contains("is mode 0074");
        assertThat(PathTrust.unreadable(file, member)).isEmpty();

        mode(file, 0704);
        assertThat(PathTrust.unreadable(file, member))
                .as("the group's bits decide for a member")
                .get(STRING)
                .contains("is mode 0704");
        assertThat(PathTrust.unreadable(file, outsider)).isEmpty();
    }

    @Test
    void aDirectoryMustBeListableAndSearchable() throws IOException {
        Path dir = directory("plugins", 0744);
        int owner = ownedBySomeoneOtherThanRoot(dir);
        UnixAccount outsider = new UnixAccount(
                "outsider", TestAccounts.uidWithoutAccount(), TestAccounts.gidWithoutGroup(), List.of());

        Optional<String> readOnly = PathTrust.unreadable(dir, outsider);
        mode(dir, 0711);
        Optional<String> searchOnly = PathTrust.unreadable(dir, outsider);
        mode(dir, 0755);

        assertThat(readOnly)
                .get(STRING)
                .endsWith(dir + " is mode 0744, owner " + UnixAccounts.describeUser(owner) + ", group "
                        + UnixAccounts.describeGroup(gid(dir)));
        assertThat(searchOnly).get(STRING).contains(dir + " is mode 0711");
        assertThat(PathTrust.unreadable(dir, outsider)).isEmpty();
    }

    @Test
    void theWayThroughALinkMustBeSearchableToo() throws IOException {
        Path closed = directory("closed", 0700);
        Path link = Files.createSymbolicLink(
                closed.resolve("link.so"), file(directory("open", 0755).resolve("a.so"), 0644));
        UnixAccount outsider = new UnixAccount(
                "outsider", TestAccounts.uidWithoutAccount(), TestAccounts.gidWithoutGroup(), List.of());

        assertThat(PathTrust.unreadable(link, outsider)).get(STRING).contains(": " + closed + " is mode 0700");
    }

    @Test
    void modesAreFourOctalDigits() {
        assertThat(PathTrust.octalMode(0755)).isEqualTo("0755");
        assertThat(PathTrust.octalMode(0100644)).isEqualTo("0644");
        assertThat(PathTrust.octalMode(041777)).isEqualTo("1777");
        assertThat(PathTrust.octalMode(04755)).isEqualTo("4755");
    }

    /**
     * What {@link PathTrust#untrusted} says of {@code dir} to a JVM in a new user namespace that maps
     * this user's uid to 0 and its gid to {@code gid}, trusting that root: the problem, or
     * {@code "trusted"}.
     */
    private static String untrustedAsRootOfANamespace(Path dir, int gid) throws IOException, InterruptedException {
        UserNamespaces.assumeAvailable();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(
                        "unshare",
                        "--user",
                        "--map-user=0",
                        "--map-group=" + gid,
                        "--",
                        java.toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        InANamespace.class.getName(),
                        dir.toString())
                .redirectErrorStream(true)
                .start();
        child.getOutputStream().close();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(child.waitFor())
                .as("the child JVM in the namespace said: %s", output)
                .isZero();
        return output;
    }

    /** The child JVM of {@link #untrustedAsRootOfANamespace}. */
    static final class InANamespace {
        public static void main(String[] args) {
            if (UnixAccounts.effectiveUid() != 0) {
                throw new IllegalStateException("not root of the namespace: uid " + UnixAccounts.effectiveUid());
            }
            System.out.println(PathTrust.untrusted(Path.of(args[0]), Set.of(0)).orElse("trusted"));
        }
    }

    /**
     * Makes {@code paths} owned by a uid other than root (as root: chown to an unused uid), so the
     * owner's bits are not root's, and returns that uid.
     */
    private static int ownedBySomeoneOtherThanRoot(Path... paths) throws IOException {
        if (!ROOT) {
            return ME;
        }
        int owner = TestAccounts.uidWithoutAccount() + 1;
        for (Path path : paths) {
            Files.setAttribute(path, "unix:uid", owner);
        }
        return owner;
    }

    private Path directory(String name, int mode) throws IOException {
        return mode(Files.createDirectory(temp.resolve(name)), mode);
    }

    private static Path file(Path file, int mode) throws IOException {
        return mode(Files.writeString(file, "x"), mode);
    }

    private static Path mode(Path path, int mode) throws IOException {
        Files.setAttribute(path, "unix:mode", mode);
        return path;
    }

    private static int gid(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:gid");
    }
}
