// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.nativebridge.testkit.UserNamespaces;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the built {@code urom-launch} for real, with {@code src/test/c/launch_check.c} as the
 * program it execs; the checker reports what its process looks like on stderr.
 *
 * <p>The privilege drop itself and giving a socket file to another user need root; without it those
 * tests check the same calls where another user meets them: the drop as root of a user namespace
 * that maps only its uid (where the kernel refuses the drop's setgroups), the chown with its own ids
 * and with a group it does not hold. The refusal to change ids as non-root runs everywhere: directly when the tests
 * are not root, and as root through the launcher itself dropped to uid 65534 first.
 */
class UromLaunchTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final long NOBODY = 65534;
    private static final Path LAUNCHER_SOURCE =
            Path.of("src", "main", "c", "urom_launch.c").toAbsolutePath();

    /** Readable and searchable by everyone, so that a dropped identity can run what is in it. */
    @TempDir
    static Path tools;

    private static Path launcher;
    private static Path sharedLauncher;
    private static Path listingLauncher;
    private static Path checker;

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @BeforeAll
    static void build() throws IOException {
        launcher = NativeArtifacts.launcherExecutable();
        checker = TestPlugins.buildProgram(tools, "launch_check.c", "launch_check");
        listingLauncher = NativeFixtures.compileProgram(
                tools,
                "urom-launch-listing",
                Files.readString(LAUNCHER_SOURCE),
                "-DUROM_LAUNCH_NO_CLOSE_RANGE",
                "-I" + LAUNCHER_SOURCE.getParent());
        sharedLauncher = Files.copy(launcher, tools.resolve("urom-launch"), StandardCopyOption.REPLACE_EXISTING);
        for (Path path : List.of(tools, checker, listingLauncher, sharedLauncher)) {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @AfterEach
    void stopProcesses() throws InterruptedException {
        for (Process process : started) {
            process.destroyForcibly();
            process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @CsvSource({"default, 0600", "0600, 0600", "0660, 0660", "0777, 0777"})
    void listensOnAUnixSocketWithTheRequestedModeWhateverTheUmask(String requested, String expected) throws Exception {
        Path socket = dir.resolve("worker.sock");
        List<String> options = new ArrayList<>(List.of("--listen-unix", socket.toString()));
        if (!requested.equals("default")) {
            options.addAll(List.of("--socket-mode", requested));
        }
        Map<String, String> facts = succeeded(run(inShell("umask 000", launch(launcher, options)), ""));
        assertThat(facts)
                .containsEntry("fd0_listening", "1")
                .containsEntry("fd0_family", "AF_UNIX")
                .containsEntry("fd0_address", socket.toString())
                .containsEntry("socket_mode", expected)
                .containsEntry(
                        "socket_uid", Long.toString(Identity.ofThisProcess().effectiveUid()));
    }

    @Test
    void aClientConnectsToTheUnixSocketAndTheProgramAcceptsIt() throws Exception {
        Path socket = dir.resolve("worker.sock");
        Process process = start(launch(launcher, List.of("--listen-unix", socket.toString()), "accept"));
        process.getOutputStream().close();
        BufferedReader status =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        assertThat(within(status::readLine)).isEqualTo("READY 0");
        try (SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            client.connect(UnixDomainSocketAddress.of(socket));
            assertThat(within(() -> readLine(client))).isEqualTo("hello");
        }
        assertThat(finish(process).facts()).containsEntry("accepted", "1");
    }

    @Test
    void listensOnTcpOnAPortTheSystemPicksAndTheProgramAcceptsAClient() throws Exception {
        Process process = start(launch(launcher, List.of("--listen-tcp", "127.0.0.1"), "accept"));
        process.getOutputStream().close();
        BufferedReader status =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String ready = within(status::readLine);
        assertThat(ready).matches("READY [1-9][0-9]*");
        int port = Integer.parseInt(ready.substring("READY ".length()));
        try (SocketChannel client = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            assertThat(within(() -> readLine(client))).isEqualTo("hello");
        }
        Map<String, String> facts = finish(process).facts();
        assertThat(facts)
                .containsEntry("fd0_listening", "1")
                .containsEntry("fd0_family", "AF_INET")
                .containsEntry("fd0_address", "127.0.0.1")
                .containsEntry("fd0_port", Integer.toString(port))
                .containsEntry("accepted", "1");
    }

    /** The shell opens fds 7 and 9 without close-on-exec; the launcher must not pass them on. */
    @ParameterizedTest
    @ValueSource(strings = {"close_range", "listing /proc/self/fd"})
    void movesTheDaemonPipeToFd3AndClosesEveryOtherFd(String how) throws Exception {
        Path built = how.equals("close_range") ? launcher : listingLauncher;
        String daemonBytes = "bytes for fd 3\n\u0001\u00ff";
        List<String> command = inShell(
                "exec 7</dev/null 9</dev/null",
                launch(
                        built,
                        List.of("--listen-unix", dir.resolve("worker.sock").toString())));
        Map<String, String> facts = succeeded(run(command, daemonBytes));
        assertThat(facts)
                .containsEntry("fds", "0,1,2,3")
                .containsEntry("fd3_fifo", "1")
                .containsEntry("fd3_hex", HexFormat.of().formatHex(daemonBytes.getBytes(StandardCharsets.UTF_8)))
                .containsEntry("fd0_listening", "1");
    }

    @Test
    void changesIntoTheDirectory() throws Exception {
        Path work = Files.createDirectory(dir.resolve("work"));
        Map<String, String> facts =
                succeeded(run(launch(launcher, List.of("--listen-tcp", "127.0.0.1", "--chdir", work.toString())), ""));
        assertThat(facts).containsEntry("cwd", work.toRealPath().toString());
    }

    @Test
    void setsNoNewPrivilegesAlwaysAndTheParentDeathSignalWhenAskedTo() throws Exception {
        Map<String, String> plain = succeeded(run(launch(launcher, List.of("--listen-tcp", "127.0.0.1")), ""));
        assertThat(plain).containsEntry("no_new_privs", "1").containsEntry("pdeathsig", "0");

        Map<String, String> watched = succeeded(run(
                launch(
                        launcher,
                        List.of(
                                "--listen-tcp",
                                "127.0.0.1",
                                "--parent-pid",
                                Long.toString(ProcessHandle.current().pid()))),
                ""));
        assertThat(watched).containsEntry("no_new_privs", "1").containsEntry("pdeathsig", "9");
    }

    @Test
    void stopsWhenTheParentIsNotTheOneNamed() throws Exception {
        long jvm = ProcessHandle.current().pid();
        long other = jvm == 1 ? 2 : 1;
        Run run = run(launch(launcher, List.of("--listen-tcp", "127.0.0.1", "--parent-pid", Long.toString(other))), "");
        assertFailed(
                run, "OPERATING_SYSTEM", "the parent process " + other + " is gone (the parent is now " + jvm + ")");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown option          | --bogus 1 --listen-tcp 127.0.0.1 -- {checker}      | INVALID_VALUE    | unknown option --bogus
            program without --      | --listen-tcp 127.0.0.1 {checker}                   | INVALID_VALUE    | unexpected argument {checker}: the program must follow --
            no -- at all            | --listen-tcp 127.0.0.1                             | INVALID_VALUE    | no program: the options must end with -- PROGRAM [ARGS...]
            nothing after --        | --listen-tcp 127.0.0.1 --                          | INVALID_VALUE    | no program after --
            relative program        | --listen-tcp 127.0.0.1 -- launch_check             | INVALID_VALUE    | program launch_check: the path must be absolute
            missing value           | --listen-tcp                                       | INVALID_VALUE    | option --listen-tcp needs a value
            value replaced by --    | --listen-tcp -- {checker}                          | INVALID_VALUE    | option --listen-tcp needs a value
            option twice            | --chdir / --chdir / --listen-tcp 127.0.0.1 -- {checker} | INVALID_VALUE | option --chdir is given twice
            both listen options     | --listen-tcp 127.0.0.1 --listen-unix {dir}/s -- {checker} | INVALID_VALUE | give exactly one of --listen-unix and --listen-tcp
            no listen option        | --chdir / -- {checker}                             | INVALID_VALUE    | give exactly one of --listen-unix and --listen-tcp
            path exists             | --listen-unix {dir}/taken -- {checker}             | IN_USE           | --listen-unix {dir}/taken: the path exists
            relative path           | --listen-unix worker.sock -- {checker}             | INVALID_VALUE    | --listen-unix worker.sock: the path must be absolute
            path too long           | --listen-unix {long} -- {checker}                  | INVALID_VALUE    | --listen-unix {long}: the path is 108 bytes long, at most 107 fit in a socket address
            mode not octal          | --listen-unix {dir}/s --socket-mode 0800 -- {checker} | INVALID_VALUE | --socket-mode 0800: not an octal mode of at most 0777
            mode above 0777         | --listen-unix {dir}/s --socket-mode 1777 -- {checker} | INVALID_VALUE | --socket-mode 1777: not an octal mode of at most 0777
            mode for tcp            | --listen-tcp 127.0.0.1 --socket-mode 0600 -- {checker} | INVALID_VALUE | --socket-mode and --socket-owner apply to --listen-unix only
            owner without colon     | --listen-unix {dir}/s --socket-owner 12 -- {checker} | INVALID_VALUE | --socket-owner 12: expected UID:GID, decimal ids or -1 to keep one
            owner not numeric       | --listen-unix {dir}/s --socket-owner root:0 -- {checker} | INVALID_VALUE | --socket-owner root:0: expected UID:GID, decimal ids or -1 to keep one
            non-numeric uid         | --listen-tcp 127.0.0.1 --user nobody --group 0 -- {checker} | INVALID_VALUE | --user nobody: not a decimal id (0 to 4294967294)
            uid out of range        | --listen-tcp 127.0.0.1 --user 4294967295 --group 0 -- {checker} | INVALID_VALUE | --user 4294967295: not a decimal id (0 to 4294967294)
            negative gid            | --listen-tcp 127.0.0.1 --user 0 --group -1 -- {checker} | INVALID_VALUE | --group -1: not a decimal id (0 to 4294967294)
            empty group item        | --listen-tcp 127.0.0.1 --user 0 --group 0 --groups 1,,2 -- {checker} | INVALID_VALUE | --groups 1,,2: item 2 is not a decimal id (0 to 4294967294)
            user without group      | --listen-tcp 127.0.0.1 --user 0 -- {checker}       | INVALID_VALUE    | --user and --group go together
            groups without user     | --listen-tcp 127.0.0.1 --groups 0 -- {checker}     | INVALID_VALUE    | --groups needs --user and --group
            parent pid zero         | --listen-tcp 127.0.0.1 --parent-pid 0 -- {checker} | INVALID_VALUE    | --parent-pid 0: not a process id
            parent pid not a number | --listen-tcp 127.0.0.1 --parent-pid 12x -- {checker} | INVALID_VALUE  | --parent-pid 12x: not a process id
            relative directory      | --listen-tcp 127.0.0.1 --chdir work -- {checker}   | INVALID_VALUE    | --chdir work: the path must be absolute
            missing directory       | --listen-unix {dir}/s --chdir {dir}/missing -- {checker} | OPERATING_SYSTEM | chdir({dir}/missing) failed: No such file or directory
            address not local       | --listen-tcp 192.0.2.1 -- {checker}                | OPERATING_SYSTEM | --listen-tcp 192.0.2.1: bind on 192.0.2.1 failed: Cannot assign requested address
            program missing         | --listen-unix {dir}/s -- {dir}/missing-program     | OPERATING_SYSTEM | execv({dir}/missing-program) failed: No such file or directory
            """)
    void refusesWithOneFailedLineAndDoesNotRunTheProgram(String what, String arguments, String status, String reason)
            throws Exception {
        Path taken = Files.writeString(dir.resolve("taken"), "someone else's file");
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(Arrays.asList(fill(arguments).split(" +")));
        assertFailed(run(command, ""), status, fill(reason));
        assertThat(dir.resolve("s")).as("the socket file the launcher bound").doesNotExist();
        assertThat(taken).hasContent("someone else's file");
    }

    @Test
    void aNonRootLauncherRefusesAnotherUserOrGroup() throws Exception {
        Identity self = Identity.nonRoot();
        String idsNow =
                "uids " + join(self.uids(), "/") + " gids " + join(self.gids(), "/") + " (real/effective/saved)";
        long uid = self.effectiveUid();
        long gid = self.gids().get(1);

        assertFailed(
                run(
                        asNonRoot(
                                launchOnTcp(List.of("--user", Long.toString(uid + 1), "--group", Long.toString(gid)))),
                        ""),
                "NOT_PERMITTED",
                "only root can start workers as another user: asked for uid " + (uid + 1) + " gid " + gid
                        + ", the process has " + idsNow);
        assertFailed(
                run(
                        asNonRoot(
                                launchOnTcp(List.of("--user", Long.toString(uid), "--group", Long.toString(gid + 1)))),
                        ""),
                "NOT_PERMITTED",
                "only root can start workers as another user: asked for uid " + uid + " gid " + (gid + 1)
                        + ", the process has " + idsNow);

        long notAMember = Stream.iterate(gid + 1, g -> g + 1)
                .filter(g -> !self.groups().contains(g))
                .findFirst()
                .orElseThrow();
        String groups = gid + "," + notAMember;
        assertFailed(
                run(
                        asNonRoot(launchOnTcp(List.of(
                                "--user", Long.toString(uid), "--group", Long.toString(gid), "--groups", groups))),
                        ""),
                "NOT_PERMITTED",
                "only root can start workers as another user: asked for groups " + groups + ", the process has "
                        + self.groups().size() + " different ones");
    }

    @Test
    void aNonRootLauncherAcceptsItsOwnIdsAndChangesNothing() throws Exception {
        Identity self = Identity.nonRoot();
        long uid = self.effectiveUid();
        long gid = self.gids().get(1);
        List<String> options = new ArrayList<>(List.of("--user", Long.toString(uid), "--group", Long.toString(gid)));
        if (!self.groups().isEmpty()) {
            options.addAll(List.of("--groups", join(self.groups(), ",")));
        }
        Map<String, String> facts = succeeded(run(asNonRoot(launchOnTcp(options)), ""));
        assertThat(facts)
                .containsEntry("uids", join(self.uids(), ","))
                .containsEntry("gids", join(self.gids(), ","))
                .containsEntry("groups", join(self.groups(), ","))
                .containsEntry("no_new_privs", "1");
    }

    @Test
    void aNonRootLauncherCannotGiveTheSocketToAnotherUser() throws Exception {
        Identity self = Identity.nonRoot();
        Path sockets = directoryOfTheNonRootUser();
        Path socket = sockets.resolve("worker.sock");
        String owner = (self.effectiveUid() + 1) + ":-1";
        List<String> command = new ArrayList<>(List.of(
                sharedLauncher.toString(),
                "--listen-unix",
                socket.toString(),
                "--socket-owner",
                owner,
                "--",
                checker.toString()));
        assertFailed(
                run(asNonRoot(command), ""),
                "NOT_PERMITTED",
                "chown(" + socket + ", " + owner + ") failed: Operation not permitted");
        assertThat(socket).as("the socket file the launcher bound").doesNotExist();
    }

    /**
     * As root the launcher drops to the worker's ids and groups and cannot take root back. Another
     * user reaches the same drop as root of a user namespace that maps its uid only ({@code unshare
     * --map-user=0}: setgroups stays allowed there, but with no gid mapped the kernel refuses it), and
     * the launch stops at the refused setgroups, the first call of the drop, in one line; its own ids
     * it keeps, with root out of reach.
     */
    @Test
    void dropsToTheWorkerIdsAndGroupsForGood() throws Exception {
        List<String> options =
                List.of("--listen-tcp", "127.0.0.1", "--user", "65534", "--group", "65534", "--groups", "65534,4242");
        if (runningAsRoot()) {
            Map<String, String> facts = succeeded(run(launch(launcher, options), ""));
            assertThat(facts)
                    .containsEntry("uids", "65534,65534,65534")
                    .containsEntry("gids", "65534,65534,65534")
                    .containsEntry("setuid0", "EPERM")
                    .containsEntry("setgid0", "EPERM")
                    .containsEntry("no_new_privs", "1");
            assertThat(sortedIds(facts.get("groups"))).containsExactly(4242L, 65534L);
            return;
        }

        assertFailed(
                run(asRootOfANamespaceOfTheUidOnly(launch(sharedLauncher, options)), ""),
                "NOT_PERMITTED",
                "setgroups(65534,4242) failed: Operation not permitted");
        assertThat(keepingItsOwnIds(true)).containsEntry("setuid0", "EPERM").containsEntry("no_new_privs", "1");
    }

    /**
     * Without {@code --groups} the worker has its group alone, none of the launcher's: as root that
     * is what the worker ends up with; for another user, in the namespace of {@link
     * #dropsToTheWorkerIdsAndGroupsForGood}, the launcher still calls setgroups, with that group
     * alone (a launcher that left the groups as they were would get as far as setresgid).
     */
    @Test
    void withoutGroupsTheWorkerHasOnlyItsGroup() throws Exception {
        List<String> options = List.of("--listen-tcp", "127.0.0.1", "--user", "65534", "--group", "4243");
        if (runningAsRoot()) {
            Map<String, String> facts = succeeded(run(launch(launcher, options), ""));
            assertThat(facts)
                    .containsEntry("uids", "65534,65534,65534")
                    .containsEntry("gids", "4243,4243,4243")
                    .containsEntry("groups", "4243")
                    .containsEntry("setuid0", "EPERM")
                    .containsEntry("setgid0", "EPERM");
            return;
        }

        assertFailed(
                run(asRootOfANamespaceOfTheUidOnly(launch(sharedLauncher, options)), ""),
                "NOT_PERMITTED",
                "setgroups(4243) failed: Operation not permitted");
        Identity self = Identity.ofThisProcess();
        assertThat(keepingItsOwnIds(false))
                .containsEntry("gids", join(self.gids(), ","))
                .containsEntry("groups", join(self.groups(), ","));
    }

    /**
     * The socket file gets the owner and group asked for. Root gives it to another user; another
     * user may give it only to itself and its own group, and the same chown refuses a group it does
     * not hold (so the chown is made, with the ids asked for).
     */
    @Test
    void givesTheSocketFileItsOwner() throws Exception {
        Identity self = Identity.ofThisProcess();
        String uid = runningAsRoot() ? "65534" : Long.toString(self.effectiveUid());
        String gid = runningAsRoot() ? "65534" : Long.toString(self.gids().get(1));
        String otherGid = runningAsRoot() ? "4242" : gid;
        Path socket = dir.resolve("worker.sock");
        Map<String, String> both = succeeded(run(
                launch(
                        launcher,
                        List.of(
                                "--listen-unix",
                                socket.toString(),
                                "--socket-owner",
                                uid + ":" + gid,
                                "--socket-mode",
                                "0660")),
                ""));
        assertThat(both)
                .containsEntry("socket_uid", uid)
                .containsEntry("socket_gid", gid)
                .containsEntry("socket_mode", "0660");

        Path second = dir.resolve("second.sock");
        Map<String, String> groupOnly = succeeded(run(
                launch(launcher, List.of("--listen-unix", second.toString(), "--socket-owner", "-1:" + otherGid)), ""));
        assertThat(groupOnly)
                .containsEntry("socket_uid", Long.toString(self.effectiveUid()))
                .containsEntry("socket_gid", otherGid)
                .containsEntry("socket_mode", "0600");

        if (!runningAsRoot()) {
            long notHeld = Stream.iterate(self.gids().get(1) + 1, g -> g + 1)
                    .filter(g -> !self.groups().contains(g))
                    .findFirst()
                    .orElseThrow();
            Path third = dir.resolve("third.sock");
            assertFailed(
                    run(
                            launch(
                                    launcher,
                                    List.of("--listen-unix", third.toString(), "--socket-owner", "-1:" + notHeld)),
                            ""),
                    "NOT_PERMITTED",
                    "chown(" + third + ", -1:" + notHeld + ") failed: Operation not permitted");
            assertThat(third).as("the socket file the launcher bound").doesNotExist();
        }
    }

    /**
     * Root of a user namespace made by {@code unshare --map-root-user} (any user may make one; it
     * denies setgroups) keeps the ids it has, as a non-root launcher does: its own uid, gid and groups
     * it holds pass; another uid, or a group it does not hold, is refused naming the namespace.
     */
    @Test
    void rootOfAUserNamespaceThatDeniesSetgroupsKeepsItsIdsAndMayAskForNoOther() throws Exception {
        UserNamespaces.assumeAvailable();
        List<String> unshare = List.of("unshare", "--user", "--map-root-user", "--");
        List<String> same = new ArrayList<>(unshare);
        same.addAll(launchOnTcp(List.of("--user", "0", "--group", "0", "--groups", "0")));
        assertThat(succeeded(run(same, ""))).containsEntry("uids", "0,0,0").containsEntry("no_new_privs", "1");

        List<String> other = new ArrayList<>(unshare);
        other.addAll(launchOnTcp(List.of("--user", "65534", "--group", "0")));
        assertFailed(
                run(other, ""),
                "NOT_PERMITTED",
                "root of a user namespace that denies setgroups cannot start workers as another user: "
                        + "asked for uid 65534 gid 0, the process has uids 0/0/0 gids 0/0/0 (real/effective/saved)");

        List<String> otherGroup = new ArrayList<>(unshare);
        otherGroup.addAll(launchOnTcp(List.of("--user", "0", "--group", "0", "--groups", "0,65534")));
        assertFailed(
                run(otherGroup, ""),
                "NOT_PERMITTED",
                "root of a user namespace that denies setgroups cannot change groups: asked for groups 0,65534, not all held");
    }

    /**
     * Everything a daemon asks for when it starts a worker, at once: a root daemon gives the socket
     * to the worker's user and drops to it; another daemon's worker keeps the daemon's user, its
     * socket the daemon's with mode 0600 (as {@code SocketAccess} and {@code WorkerRuntime} ask).
     */
    @Test
    void setsUpAWorkerTheWayTheDaemonDoes() throws Exception {
        Identity self = Identity.ofThisProcess();
        String uid = runningAsRoot() ? "65534" : Long.toString(self.effectiveUid());
        Path sockets = Files.createDirectory(
                tools.resolve("daemon-" + System.nanoTime()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path work = Files.createDirectory(dir.resolve("worker-1"));
        Path socket = sockets.resolve("worker-1.sock");
        List<String> options = new ArrayList<>(List.of("--listen-unix", socket.toString(), "--socket-mode", "0600"));
        if (runningAsRoot()) {
            Files.setOwner(
                    work, work.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("65534"));
            options.addAll(List.of("--socket-owner", "65534:65534"));
        }
        options.addAll(List.of("--chdir", work.toString()));
        if (runningAsRoot()) {
            options.addAll(List.of("--user", "65534", "--group", "65534"));
        }
        options.addAll(
                List.of("--parent-pid", Long.toString(ProcessHandle.current().pid())));
        Map<String, String> facts = succeeded(run(launch(sharedLauncher, options), "worker commands"));
        assertThat(facts)
                .containsEntry("fd0_listening", "1")
                .containsEntry("fd0_address", socket.toString())
                .containsEntry("socket_uid", uid)
                .containsEntry("socket_mode", "0600")
                .containsEntry("fds", "0,1,2,3")
                .containsEntry("fd3_hex", HexFormat.of().formatHex("worker commands".getBytes(StandardCharsets.UTF_8)))
                .containsEntry("cwd", work.toRealPath().toString())
                .containsEntry("uids", uid + "," + uid + "," + uid)
                .containsEntry("groups", runningAsRoot() ? "65534" : join(self.groups(), ","))
                .containsEntry("no_new_privs", "1")
                .containsEntry("pdeathsig", "9")
                .containsEntry("setuid0", "EPERM");
    }

    /** {@code command} as root of a new user namespace that maps this user's uid to 0 and no gid. */
    private static List<String> asRootOfANamespaceOfTheUidOnly(List<String> command) {
        UserNamespaces.assumeAvailable();
        List<String> all = new ArrayList<>(List.of("unshare", "--user", "--map-user=0", "--"));
        all.addAll(command);
        return all;
    }

    /** What the checker reports when a non-root launcher is asked for its own ids (and its groups, when {@code withGroups}). */
    private Map<String, String> keepingItsOwnIds(boolean withGroups) throws Exception {
        Identity self = Identity.ofThisProcess();
        List<String> options = new ArrayList<>(List.of(
                "--user",
                Long.toString(self.effectiveUid()),
                "--group",
                Long.toString(self.gids().get(1))));
        if (withGroups && !self.groups().isEmpty()) {
            options.addAll(List.of("--groups", join(self.groups(), ",")));
        }
        Map<String, String> facts = succeeded(run(launchOnTcp(options), ""));
        assertThat(facts).containsEntry("uids", join(self.uids(), ","));
        return facts;
    }

    static boolean runningAsRoot() {
        return Identity.ofThisProcess().effectiveUid() == 0;
    }

    /** {@code urom-launch --listen-tcp 127.0.0.1 <options> -- launch_check}, for {@link #asNonRoot}. */
    private static List<String> launchOnTcp(List<String> options) {
        List<String> all = new ArrayList<>(List.of("--listen-tcp", "127.0.0.1"));
        all.addAll(options);
        return launch(sharedLauncher, all);
    }

    /**
     * The command run by a non-root user: this JVM's user when that is not root, else uid and gid
     * 65534 (the launcher itself drops there first, then execs the command).
     */
    private static List<String> asNonRoot(List<String> command) {
        if (!runningAsRoot()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of(
                sharedLauncher.toString(),
                "--listen-tcp",
                "127.0.0.1",
                "--user",
                Long.toString(NOBODY),
                "--group",
                Long.toString(NOBODY),
                "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** A directory the user of {@link #asNonRoot} may create files in. */
    private Path directoryOfTheNonRootUser() throws IOException {
        if (!runningAsRoot()) {
            return dir;
        }
        Path sockets = Files.createDirectory(tools.resolve("nonroot-" + System.nanoTime()));
        Files.setOwner(
                sockets,
                sockets.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(Long.toString(NOBODY)));
        return sockets;
    }

    private static List<String> launch(Path launcherPath, List<String> options, String... checkerArguments) {
        List<String> command = new ArrayList<>();
        command.add(launcherPath.toString());
        command.addAll(options);
        command.add("--");
        command.add(checker.toString());
        command.addAll(List.of(checkerArguments));
        return command;
    }

    /** The command, exec'd by {@code sh} after {@code prelude} (which may change the umask or open fds). */
    private static List<String> inShell(String prelude, List<String> command) {
        List<String> all = new ArrayList<>(List.of("sh", "-c", prelude + "; exec \"$@\"", "sh"));
        all.addAll(command);
        return all;
    }

    private String fill(String text) {
        return text.replace("{checker}", checker.toString())
                .replace("{dir}", dir.toString())
                .replace("{long}", "/" + "x".repeat(107));
    }

    private Process start(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).start();
        started.add(process);
        return process;
    }

    private Run run(List<String> command, String stdin) throws Exception {
        Process process = start(command);
        try (OutputStream in = process.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        return finish(process);
    }

    private static Run finish(Process process) throws Exception {
        if (!process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            fail("urom-launch did not end within " + DEADLINE.toSeconds() + " s: "
                    + process.info().commandLine().orElse("?"));
        }
        return new Run(
                process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static Map<String, String> succeeded(Run run) {
        assertThat(run.exit())
                .as("exit status; stdout: %s; stderr: %s", run.stdout(), run.stderr())
                .isZero();
        assertThat(run.stdout()).as("stdout").isEmpty();
        assertThat(run.stderr()).as("stderr").doesNotContain("error=");
        return run.facts();
    }

    private static void assertFailed(Run run, String status, String reason) {
        assertThat(run.stdout()).isEqualTo("FAILED " + status + " urom-launch: " + reason + "\n");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.stderr())
                .as("the program's report: it must not have run")
                .isEmpty();
    }

    private static <T> T within(Callable<T> blocking) throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            return executor.submit(blocking).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("nothing came within " + DEADLINE.toSeconds() + " s", e);
        } finally {
            executor.shutdownNow();
        }
    }

    private static String readLine(SocketChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(256);
        while (buffer.position() == 0 || buffer.get(buffer.position() - 1) != '\n') {
            if (channel.read(buffer) < 0) {
                break;
            }
        }
        String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII);
        return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    }

    private static List<Long> sortedIds(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(","))
                .map(Long::valueOf)
                .sorted()
                .toList();
    }

    private static String join(List<Long> ids, String separator) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(separator));
    }

    private record Run(int exit, String stdout, String stderr) {
        Map<String, String> facts() {
            Map<String, String> facts = new LinkedHashMap<>();
            for (String line : stderr.split("\n")) {
                int equals = line.indexOf('=');
                if (equals > 0) {
                    facts.put(line.substring(0, equals), line.substring(equals + 1));
                }
            }
            return facts;
        }
    }

    /** Real, effective and saved uids and gids, and the supplementary groups (sorted), of a process. */
    private record Identity(List<Long> uids, List<Long> gids, List<Long> groups) {
        long effectiveUid() {
            return uids.get(1);
        }

        /** The identity {@link #asNonRoot} runs the launcher with. */
        static Identity nonRoot() {
            if (runningAsRoot()) {
                return new Identity(List.of(NOBODY, NOBODY, NOBODY), List.of(NOBODY, NOBODY, NOBODY), List.of(NOBODY));
            }
            return ofThisProcess();
        }

        static Identity ofThisProcess() {
            Map<String, List<Long>> fields = new LinkedHashMap<>();
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                    int colon = line.indexOf(':');
                    String name = line.substring(0, colon);
                    if (name.equals("Uid") || name.equals("Gid") || name.equals("Groups")) {
                        String values = line.substring(colon + 1).strip();
                        fields.put(
                                name,
                                values.isEmpty()
                                        ? List.of()
                                        : Arrays.stream(values.split("\\s+"))
                                                .map(Long::valueOf)
                                                .toList());
                    }
                }
            } catch (IOException e) {
                throw new AssertionError("cannot read /proc/self/status: " + e.getMessage(), e);
            }
            return new Identity(
                    fields.get("Uid").subList(0, 3),
                    fields.get("Gid").subList(0, 3),
                    fields.get("Groups").stream().sorted().toList());
        }
    }
}
