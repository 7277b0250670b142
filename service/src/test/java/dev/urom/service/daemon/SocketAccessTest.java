// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.ServicePlugin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Who can reach the daemon's Unix sockets, whatever the umask, and which socket directories the
 * daemon refuses to take (SocketAccess). Two child daemons started under {@code umask 000} serve
 * the whole class: one with no socket group, one with {@code --socket-group}.
 *
 * <p>A client of another uid is made with {@code setpriv} and so needs root; without root those
 * tests apply the kernel's rule for another uid to the modes and owners of the same sockets, which
 * is the property they prove: the kernel keeps others out (0700/0600, 0750/0660 of the group). A socket directory of another user is made with chown as root; as another user the test
 * takes {@code /}, root's, and the default directory's refusal runs for the daemon of a non-root user
 * either way (as root through setpriv).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SocketAccessTest {
    /** A gid with no group entry: SocketAccess takes a number as it is. */
    private static final int UNLISTED_GROUP = 4242;
    /** The uid of the "other user" who prepares a directory for the daemon to fall into (root tests). */
    private static final int ATTACKER = 65533;

    @TempDir
    static Path shared;

    @TempDir
    Path dir;

    private OsTestbed testbed;
    private Path probe;
    private Path plugins;
    private OsChildDaemon plain;
    private OsChildDaemon grouped;
    private int socketGroup;

    @BeforeAll
    void startDaemons() {
        testbed = OsTestbed.in(shared);
        probe = testbed.program("connect_probe");
        plugins = testbed.publicDirectory("plugins");
        OsTestbed.setMode(NativeFixtures.compileMinimalPlugin(plugins, "minimal.so", 1), "rw-r--r--");
        socketGroup = OsTestbed.runningAsRoot() ? UNLISTED_GROUP : UnixAccounts.effectiveGid();
        plain = daemonUnderUmask000(testbed.publicDirectory("plain")).start();
        grouped = daemonUnderUmask000(testbed.publicDirectory("grouped"))
                .options("--socket-group", Integer.toString(socketGroup))
                .start();
    }

    private OsChildDaemon.Spec daemonUnderUmask000(Path home) {
        return new OsChildDaemon.Spec(testbed, home)
                .umask("000")
                .options(
                        "--listen",
                        home.resolve("sockets").resolve("urom.sock").toString(),
                        "--plugin-path",
                        plugins.toString());
    }

    @AfterAll
    void stopDaemons() throws InterruptedException {
        for (OsChildDaemon daemon : new OsChildDaemon[] {plain, grouped}) {
            if (daemon != null) {
                daemon.close();
            }
        }
    }

    static boolean runningAsRoot() {
        return OsTestbed.runningAsRoot();
    }

    @Test
    void underUmask000TheSocketDirectoryIs0700AndTheSocketsAre0600OfTheDaemonsUser() throws Exception {
        Path socket = plain.address().unixPath();
        int self = UnixAccounts.effectiveUid();

        assertThat(attributes(socket.getParent()))
                .isEqualTo(new Attributes("directory", "0700", self, UnixAccounts.effectiveGid()));
        assertThat(attributes(socket)).isEqualTo(new Attributes("socket", "0600", self, UnixAccounts.effectiveGid()));
        assertThat(attributes(runDirectory(plain)))
                .extracting(Attributes::type, Attributes::mode, Attributes::uid)
                .containsExactly("directory", "0700", self);
        assertThat(pluginNames(plain.address()))
                .as("the daemon's own user gets in")
                .containsExactly("minimal");

        withWorker(
                plain,
                workerSocket -> assertThat(attributes(workerSocket))
                        .extracting(Attributes::type, Attributes::mode, Attributes::uid)
                        .as("the socket of a worker")
                        .containsExactly("socket", "0600", self));
    }

    @Test
    void withASocketGroupTheDirectoryIs0750AndTheSocket0660OfThatGroup() throws Exception {
        Path socket = grouped.address().unixPath();
        int self = UnixAccounts.effectiveUid();

        assertThat(attributes(socket.getParent())).isEqualTo(new Attributes("directory", "0750", self, socketGroup));
        assertThat(attributes(socket)).isEqualTo(new Attributes("socket", "0660", self, socketGroup));
        assertThat(attributes(runDirectory(grouped))).isEqualTo(new Attributes("directory", "0750", self, socketGroup));
        assertThat(pluginNames(grouped.address())).containsExactly("minimal");

        // a root daemon gives a Unix user's worker to that user alone; any other shares it with the group
        String workerMode = OsTestbed.runningAsRoot() ? "0600" : "0660";
        withWorker(
                grouped,
                workerSocket -> assertThat(attributes(workerSocket))
                        .extracting(Attributes::type, Attributes::mode, Attributes::uid)
                        .as("the socket of a worker")
                        .containsExactly("socket", workerMode, self));
    }

    /**
     * As root a client of another uid (setpriv) meets EACCES from the kernel. Another user cannot be
     * a second uid: the kernel's rule for one (search on each directory above the socket, write on
     * the socket, by the owner's, group's or others' bits) is applied to the stat of the same
     * sockets, after the real probe of the daemon's own user agrees with it.
     */
    @Test
    void anotherUidCannotConnectToTheDaemonOrItsWorkersUnderUmask000() throws Exception {
        UnixAccount other = runningAsRoot() ? OsTestbed.nobody() : stranger();
        Path socket = plain.address().unixPath();
        assertThat(connectAsAnother(other, List.of(), socket)).isEqualTo("EACCES");

        withWorker(
                plain,
                workerSocket -> assertThat(connectAsAnother(other, List.of(), workerSocket))
                        .as("the socket of a worker")
                        .isEqualTo("EACCES"));
    }

    @Test
    void aMemberOfTheSocketGroupGetsInAndAnotherUidDoesNot() throws Exception {
        UnixAccount other = runningAsRoot() ? OsTestbed.nobody() : stranger();
        Path socket = grouped.address().unixPath();

        assertThat(connectAsAnother(other, List.of(socketGroup), socket)).isEqualTo("connected");
        assertThat(connectAsAnother(other, List.of(), socket)).isEqualTo("EACCES");
        assertThat(connectAsAnother(other, List.of(socketGroup + 1), socket)).isEqualTo("EACCES");
    }

    @ParameterizedTest(name = "mode {0}")
    @ValueSource(strings = {"0777", "1777", "0703"})
    void aSocketDirectoryOthersMayWriteIsRefusedInOneLineAndLeftAsItWas(String mode) throws Exception {
        Path prepared = Files.createDirectory(dir.resolve("prepared"));
        chmod(prepared, mode);
        try (Prepared before = Prepared.in(prepared)) {
            IOException refused = assertThrows(IOException.class, () -> startInProcess(before.socket()));

            assertThat(refused.getMessage())
                    .isEqualTo("cannot listen on unix:" + before.socket() + ": the socket directory " + prepared
                            + " may be written by others (mode " + mode + "): remove it or give another --listen");
            before.assertUnchanged();
        }
    }

    @Test
    void aSocketDirectoryAGroupMayWriteIsRefusedUnlessTheGroupIsTheDaemonUsersOwn() throws Exception {
        int uid = UnixAccounts.effectiveUid();
        int gid = UnixAccounts.effectiveGid();
        if (OsTestbed.runningAsRoot()) {
            Path shared = Files.createDirectory(dir.resolve("shared"));
            try (Prepared before = Prepared.in(shared)) {
                OsTestbed.chown(shared, uid, UNLISTED_GROUP);
                chmod(shared, "0770");
                before.remember();
                IOException refused = assertThrows(IOException.class, () -> startInProcess(before.socket()));

                assertThat(refused.getMessage())
                        .isEqualTo("cannot listen on unix:" + before.socket() + ": the socket directory " + shared
                                + " may be written by the members of " + UnixAccounts.describeGroup(UNLISTED_GROUP)
                                + " (mode 0770): remove it or give another --listen");
                before.assertUnchanged();
            }
        }
        Path own = Files.createDirectory(dir.resolve("own"));
        chmod(own, "0770");
        if (UnixAccounts.isPrivateGroup(uid, gid)) {
            startInProcess(own.resolve("urom.sock"));
            assertThat(modeOf(own))
                    .as("the daemon's own group's directory, taken and closed up")
                    .isEqualTo("0700");
        } else {
            assertThatThrownBy(() -> startInProcess(own.resolve("urom.sock")))
                    .hasMessageContaining("may be written by the members of " + UnixAccounts.describeGroup(gid));
        }
    }

    @Test
    void aSocketDirectoryOfAnotherUserIsRefusedInOneLineAndLeftAsItWas() throws Exception {
        if (!OsTestbed.runningAsRoot()) {
            // root's own directory, the one above all: this user cannot own it, nor create anything in it
            Path socket = Path.of(
                    "/", "urom-socket-access-test-" + ProcessHandle.current().pid() + ".sock");
            IOException refused = assertThrows(IOException.class, () -> startInProcess(socket));

            assertThat(refused.getMessage())
                    .isEqualTo("cannot listen on unix:" + socket + ": the socket directory / is owned by root (uid 0), "
                            + "not by this daemon's user (" + UnixAccounts.describeUser(UnixAccounts.effectiveUid())
                            + "): someone else made it; remove it or give another --listen");
            assertThat(socket).doesNotExist();
            return;
        }
        Path prepared = Files.createDirectory(dir.resolve("prepared"));
        try (Prepared before = Prepared.in(prepared)) {
            OsTestbed.chown(before.socket(), ATTACKER, ATTACKER);
            OsTestbed.chown(prepared, ATTACKER, ATTACKER);
            before.remember();
            IOException refused = assertThrows(IOException.class, () -> startInProcess(before.socket()));

            assertThat(refused.getMessage())
                    .isEqualTo("cannot listen on unix:" + before.socket() + ": the socket directory " + prepared
                            + " is owned by " + UnixAccounts.describeUser(ATTACKER)
                            + ", not by this daemon's user (root (uid 0)): someone else made it; "
                            + "remove it or give another --listen");
            before.assertUnchanged();
        }
    }

    @Test
    void aSocketDirectoryThatWouldBeMadeInAnotherUsersDirectoryIsRefusedInOneLine() throws Exception {
        Path socket;
        String reason;
        if (OsTestbed.runningAsRoot()) {
            Path theirs = Files.createDirectory(dir.resolve("theirs"));
            OsTestbed.chown(theirs, ATTACKER, ATTACKER);
            socket = theirs.resolve("urom").resolve("urom.sock");
            reason = "the socket directory " + socket.getParent() + " would be made in " + theirs
                    + ", which is owned by "
                    + UnixAccounts.describeUser(ATTACKER)
                    + ", not by root or this daemon's user (root (uid 0)): someone else made it; "
                    + "remove it or give another --listen";
        } else {
            socket = Path.of(
                    "/", "urom-socket-access-test-" + ProcessHandle.current().pid(), "urom.sock");
            reason = "the socket directory " + socket.getParent() + " cannot be made: / (mode " + modeOf(Path.of("/"))
                    + ", owner root (uid 0)) does not let " + UnixAccounts.describeUser(UnixAccounts.effectiveUid())
                    + " create it; "
                    + "give another --listen";
        }
        IOException refused = assertThrows(IOException.class, () -> startInProcess(socket));

        assertThat(refused.getMessage()).isEqualTo("cannot listen on unix:" + socket + ": " + reason);
        assertThat(socket.getParent()).doesNotExist();
    }

    /**
     * The attack of the issue: another user makes {@code <tmp>/urom-<user>/urom/} (or only {@code
     * <tmp>/urom-<user>/}) before the user's daemon first starts with its default address. The daemon
     * is not root (as root: nobody, through setpriv); the other user is {@value #ATTACKER} as root, and
     * the daemon's own user leaving the directory open to everyone (0777) otherwise.
     */
    @ParameterizedTest(name = "{0} made first")
    @ValueSource(strings = {"the socket directory", "its parent"})
    void theDefaultSocketDirectoryPreparedByAnotherUserIsRefusedInOneLine(String what) throws Exception {
        UnixAccount daemonUser = OsTestbed.nonRootDaemonAccount();
        OsChildDaemon.Spec spec = new OsChildDaemon.Spec(testbed, testbed.publicDirectory("default"));
        if (OsTestbed.runningAsRoot()) {
            spec.user(daemonUser);
        }
        Path base = spec.tmpdir().resolve("urom-" + daemonUser.name());
        Path socketDir = base.resolve("urom");
        Path socket = socketDir.resolve("urom.sock");
        Files.createDirectories(what.equals("its parent") ? base : socketDir);
        Path prepared = what.equals("its parent") ? base : socketDir;
        String expected;
        if (OsTestbed.runningAsRoot()) {
            OsTestbed.setMode(base, "rwxr-xr-x");
            OsTestbed.setMode(prepared, "rwxr-xr-x");
            OsTestbed.chown(base, ATTACKER, ATTACKER);
            OsTestbed.chown(prepared, ATTACKER, ATTACKER);
            String attacker = UnixAccounts.describeUser(ATTACKER);
            expected = what.equals("its parent")
                    ? "the socket directory " + socketDir + " would be made in " + base + ", which is owned by "
                            + attacker + ", not by root or this daemon's user (" + daemonUser.describe()
                            + "): someone else made it; remove it or give another --listen"
                    : "the socket directory " + socketDir + " is owned by " + attacker + ", not by this daemon's user ("
                            + daemonUser.describe() + "): someone else made it; remove it or give another --listen";
        } else {
            chmod(prepared, "0777");
            expected = what.equals("its parent")
                    ? "the socket directory " + socketDir + " is not safe: " + socketDir + " is under " + base
                            + ", which is mode 0777, owner "
                            + UnixAccounts.describeUser(daemonUser.uid()) + ", group "
                            + UnixAccounts.describeGroup(UnixAccounts.effectiveGid())
                            + ": writable by others"
                    : "the socket directory " + socketDir
                            + " may be written by others (mode 0777): remove it or give another --listen";
        }
        List<String> before = listing(base);

        try (OsChildDaemon daemon = spec.options("--listen", "default").start()) {
            assertThat(daemon.failure()).isEqualTo("FAILED cannot listen on unix:" + socket + ": " + expected + "\n");
        }
        assertThat(listing(base)).as("what is in %s", base).isEqualTo(before);
    }

    @Test
    void theDefaultSocketDirectoryIsMadeByTheDaemonWhenNobodyMadeItFirst() throws Exception {
        UnixAccount daemonUser = OsTestbed.nonRootDaemonAccount();
        OsChildDaemon.Spec spec = new OsChildDaemon.Spec(testbed, testbed.publicDirectory("default"));
        if (OsTestbed.runningAsRoot()) {
            spec.user(daemonUser);
        }
        Path socket = spec.tmpdir()
                .resolve("urom-" + daemonUser.name())
                .resolve("urom")
                .resolve("urom.sock");

        try (OsChildDaemon daemon =
                spec.options("--listen", "default").umask("000").start()) {
            assertThat(daemon.address()).isEqualTo(ServiceAddress.unix(socket));
            assertThat(attributes(socket.getParent()))
                    .isEqualTo(new Attributes("directory", "0700", daemonUser.uid(), daemonUser.gid()));
            assertThat(attributes(socket.getParent().getParent()))
                    .extracting(Attributes::mode, Attributes::uid)
                    .containsExactly("0700", daemonUser.uid());
            assertThat(attributes(socket))
                    .isEqualTo(new Attributes("socket", "0600", daemonUser.uid(), daemonUser.gid()));
        }
    }

    /** A directory as someone else prepared it: their live socket where the daemon's would be, and a file. */
    private static final class Prepared implements AutoCloseable {
        private final Path dir;
        private final ServerSocketChannel theirs;
        private List<String> listing;
        private Attributes attributes;

        private Prepared(Path dir, ServerSocketChannel theirs) {
            this.dir = dir;
            this.theirs = theirs;
        }

        static Prepared in(Path dir) throws IOException {
            Files.writeString(dir.resolve("notes.txt"), "theirs");
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(dir.resolve("urom.sock")));
            Prepared prepared = new Prepared(dir, server);
            prepared.remember();
            return prepared;
        }

        Path socket() {
            return dir.resolve("urom.sock");
        }

        void remember() {
            listing = listing(dir);
            attributes = attributes(dir);
        }

        /** Nothing made, removed or changed in it, and their socket still answers. */
        void assertUnchanged() throws IOException {
            assertThat(listing(dir)).as("what is in %s", dir).isEqualTo(listing);
            assertThat(attributes(dir)).isEqualTo(attributes);
            try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(socket()))) {
                assertThat(client.isConnected())
                        .as("their socket still answers")
                        .isTrue();
            }
        }

        @Override
        public void close() throws IOException {
            theirs.close();
        }
    }

    private void startInProcess(Path socket) throws IOException {
        DaemonConfig config = DaemonConfig.builder()
                .listen(ServiceAddress.unix(socket))
                .logDir(dir.resolve("log"))
                .pluginPath("")
                .security(TestWorkers.security())
                .build();
        Daemon.start(config).close();
    }

    private record Attributes(String type, String mode, int uid, int gid) {}

    private static Attributes attributes(Path path) {
        try {
            Map<String, Object> read = Files.readAttributes(path, "unix:mode,uid,gid", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) read.get("mode");
            String type = switch (mode & 0170000) {
                case 0040000 -> "directory";
                case 0140000 -> "socket";
                case 0100000 -> "file";
                default -> "other";
            };
            return new Attributes(
                    type, String.format("%04o", mode & 07777), (Integer) read.get("uid"), (Integer) read.get("gid"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String modeOf(Path path) {
        return attributes(path).mode();
    }

    /** Every path under {@code dir} with its type, mode and owner, sorted. */
    private static List<String> listing(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.map(p -> dir.relativize(p) + " " + attributes(p))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void chmod(Path path, String octal) throws Exception {
        Process chmod = new ProcessBuilder("chmod", octal, path.toString())
                .redirectErrorStream(true)
                .start();
        assertThat(chmod.waitFor(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .isTrue();
        assertThat(chmod.exitValue())
                .as(
                        "chmod %s %s: %s",
                        octal, path, new String(chmod.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isZero();
    }

    private static Path runDirectory(OsChildDaemon daemon) {
        Path socket = daemon.address().unixPath();
        return socket.resolveSibling(socket.getFileName() + ".workers");
    }

    private interface SocketCheck {
        void check(Path workerSocket) throws Exception;
    }

    /**
     * Starts a worker of {@code daemon} with the echo plugin, runs {@code check} on its socket, stops
     * it and waits until the daemon has removed the socket.
     */
    private static void withWorker(OsChildDaemon daemon, SocketCheck check) throws Exception {
        Path socket;
        try (UromService service = UromService.connect(daemon.address().toString())) {
            long minimal = service.plugins().stream()
                    .filter(p -> p.name().equals("minimal"))
                    .findFirst()
                    .orElseThrow()
                    .id();
            try (Worker worker = service.newWorker().plugins(minimal).build()) {
                worker.start().get(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                socket = workerSocket(daemon, worker.id());
                check.check(socket);
            }
        }
        long deadline = System.nanoTime() + OsChildDaemon.PATIENCE.toNanos();
        while (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            assertThat(System.nanoTime())
                    .as("the daemon removes %s once the worker has gone", socket)
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** The socket of worker {@code workerId}: {@code worker-<id>-<launch>.sock} in the run directory. */
    private static Path workerSocket(OsChildDaemon daemon, long workerId) throws IOException {
        String prefix = "worker-" + Long.toUnsignedString(workerId) + "-";
        try (Stream<Path> files = Files.list(runDirectory(daemon))) {
            List<Path> sockets = files.filter(p -> p.getFileName().toString().startsWith(prefix)
                            && p.getFileName().toString().endsWith(".sock"))
                    .toList();
            assertThat(sockets)
                    .as("sockets of worker %s in %s", Long.toUnsignedString(workerId), runDirectory(daemon))
                    .hasSize(1);
            return sockets.get(0);
        }
    }

    private static List<String> pluginNames(ServiceAddress address) throws Exception {
        try (ControlClient client = ControlClient.connect(address)) {
            return ((PluginsReply) client.call(new PluginsRequest()))
                    .plugins().stream().map(ServicePlugin::name).toList();
        }
    }

    /** What {@code connect_probe} says, run as {@code account} with exactly {@code groups}. */
    /** A uid and gid other than this user's, with no groups, for a test that cannot make them real. */
    private static UnixAccount stranger() {
        int uid = UnixAccounts.effectiveUid() + 1;
        int gid = UnixAccounts.effectiveGid() + 1;
        return new UnixAccount("stranger", uid, gid, List.of(gid));
    }

    /**
     * What the kernel answers {@code account}, with exactly {@code groups} besides its own group,
     * connecting to {@code socket}: as root through {@link #connectAs}; else by the kernel's rule on
     * the modes and owners of the socket and the directories above it, checked first against the
     * real answer to this user.
     */
    private String connectAsAnother(UnixAccount account, List<Integer> groups, Path socket) throws Exception {
        if (runningAsRoot()) {
            return connectAs(account, groups, socket);
        }
        assertThat(connectAs(OsTestbed.self(), List.of(), socket))
                .as("the kernel's answer to this user")
                .isEqualTo("connected");
        assertThat(byTheKernelsRule(UnixAccounts.effectiveUid(), List.of(UnixAccounts.effectiveGid()), socket))
                .as("the rule's answer to this user")
                .isEqualTo("connected");
        List<Integer> all = new ArrayList<>(groups);
        all.add(account.gid());
        return byTheKernelsRule(account.uid(), all, socket);
    }

    /** Search ({@code x}) on every directory above {@code socket} and write on it, by the class of bits that applies to {@code uid} and {@code groups}. */
    private static String byTheKernelsRule(int uid, List<Integer> groups, Path socket) {
        for (Path dir = socket.toAbsolutePath().getParent(); dir != null; dir = dir.getParent()) {
            if (!allows(dir, uid, groups, 1)) {
                return "EACCES";
            }
        }
        return allows(socket, uid, groups, 2) ? "connected" : "EACCES";
    }

    private static boolean allows(Path path, int uid, List<Integer> groups, int bit) {
        Attributes attributes = attributes(path);
        int mode = Integer.parseInt(attributes.mode(), 8);
        int shift = attributes.uid() == uid ? 6 : groups.contains(attributes.gid()) ? 3 : 0;
        return (mode >> shift & bit) != 0;
    }

    private String connectAs(UnixAccount account, List<Integer> groups, Path socket) throws Exception {
        Process client = new ProcessBuilder(OsTestbed.as(account, groups, List.of(probe.toString(), socket.toString())))
                .redirectErrorStream(true)
                .start();
        client.getOutputStream().close();
        assertThat(client.waitFor(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .as("connect_probe ends")
                .isTrue();
        String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(client.exitValue())
                .as("connect_probe's exit status; it said: %s", output)
                .isZero();
        return output.strip();
    }
}
