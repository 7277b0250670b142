// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.host.Notification;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Who a daemon's workers run as, and what they are given (WorkerRuntime, the launcher as the daemon
 * uses it): real worker processes (WorkerMain with a compiled echo plugin) of child daemons run
 * from a class path that the worker user can read, looked at through {@code /proc}: their ids, their
 * supplementary groups, {@code NoNewPrivs}, their working directory and their whole environment;
 * and a command must come back through them.
 *
 * <p>The privilege drop of a root daemon needs root; without it the same options meet a daemon that
 * is not root, which runs its workers as itself and refuses what it cannot give. For any user,
 * a daemon that is not root (as root: run as nobody through setpriv) must run its workers as itself,
 * with the same checks, and must refuse {@code --worker-user} of another user and {@code
 * --worker-groups} with one line.
 */
class WorkerPrivilegeTest {
    private static final Pattern ROOT_WORKERS_WARNING = Pattern.compile(
            "\\S+ \\S+ WARN  \\[main\\] dev\\.urom\\.service\\.daemon\\.WorkerRuntime - workers run as root \\(--worker-user root\\): "
                    + "a plugin's bug is then root's");

    @TempDir
    static Path shared;

    private static OsTestbed testbed;
    private static Path plugins;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void stage() {
        testbed = OsTestbed.in(shared);
        plugins = testbed.echoPlugin();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    static boolean runningAsRoot() {
        return OsTestbed.runningAsRoot();
    }

    /**
     * A daemon with environment that a worker must not inherit (HOME, TMPDIR, XDG_CACHE_HOME, the
     * daemon's own UROM_ variable) and one it passes on (UCX_TLS, by the default allow-list). It
     * listens in its temporary directory, which is its user's.
     */
    private OsChildDaemon.Spec daemon(String... options) {
        Path home = testbed.publicDirectory("daemon");
        OsChildDaemon.Spec spec = new OsChildDaemon.Spec(testbed, home);
        return spec.options(
                        "--listen",
                        spec.tmpdir().resolve("s").resolve("urom.sock").toString(),
                        "--plugin-path",
                        plugins.toString())
                .options(options)
                .env("HOME", home.toString())
                .env("TMPDIR", home.toString())
                .env("XDG_CACHE_HOME", home.toString())
                .env("UROM_TEST_DAEMON_ONLY", "secret")
                .env("UCX_TLS", "tcp");
    }

    private OsChildDaemon started(OsChildDaemon.Spec spec) {
        OsChildDaemon daemon = spec.start();
        opened.add(daemon);
        return daemon;
    }

    /**
     * Told nothing, a root daemon runs the workers of root's own principal (this test, on the Unix
     * socket) as the first uid of the default range that is no account's or group's, in the group of
     * that number and no other; another daemon runs them as itself with its own groups. Neither warns.
     */
    @Test
    void aDaemonRunsItsWorkersAsTheDefaultWorkerUser() throws Exception {
        OsChildDaemon daemon = started(daemon());

        if (runningAsRoot()) {
            int uid = OsTestbed.freeUid(UidRange.DEFAULT.first());
            assertWorkerRunsAs(
                    daemon, new UnixAccount(Integer.toUnsignedString(uid), uid, uid, List.of(uid)), List.of(uid));
        } else {
            assertWorkerRunsAs(daemon, OsTestbed.self(), groupsOf(daemon));
        }
        assertThat(warnings(daemon)).isEmpty();
    }

    /**
     * A root daemon with {@code --worker-user nobody --worker-groups 4242,4243} gives its workers
     * exactly nobody's group and those. Another daemon may name only itself, whose workers then have
     * the daemon's groups, and no groups at all: the same options with its own name fail in one line.
     */
    @Test
    void workerUserAndWorkerGroupsGiveTheWorkersExactlyThoseGroups() throws Exception {
        if (runningAsRoot()) {
            UnixAccount nobody = OsTestbed.nobody();
            OsChildDaemon daemon = started(daemon("--worker-user", "nobody", "--worker-groups", "4242,4243"));

            assertWorkerRunsAs(daemon, nobody, List.of(nobody.gid(), 4242, 4243));
            return;
        }
        UnixAccount self = OsTestbed.self();
        OsChildDaemon daemon = started(daemon("--worker-user", self.name()));
        assertWorkerRunsAs(daemon, self, groupsOf(daemon));

        OsChildDaemon withGroups = started(daemon("--worker-user", self.name(), "--worker-groups", "4242,4243"));
        assertThat(withGroups.failure())
                .isEqualTo("FAILED --worker-groups: only a daemon running as root can choose its workers' groups\n");
    }

    /** {@code --worker-user root} gives a root daemon root workers, and a warning; any other daemon refuses it in one line. */
    @Test
    void workerUserRootGivesRootWorkersAndTheDaemonWarnsOfIt() throws Exception {
        UnixAccount root = UnixAccounts.user(0).orElseThrow();
        OsChildDaemon daemon = started(daemon("--worker-user", "root"));

        if (!runningAsRoot()) {
            assertThat(daemon.failure())
                    .isEqualTo(
                            "FAILED --worker-user root: only a daemon running as root can start workers as another user; "
                                    + "this one runs as " + OsTestbed.self().describe() + "\n");
            return;
        }
        assertWorkerRunsAs(daemon, root, root.groups());
        assertThat(warnings(daemon)).hasSize(1);
    }

    @Test
    void aDaemonThatIsNotRootRunsItsWorkersAsItself() throws Exception {
        UnixAccount account = OsTestbed.nonRootDaemonAccount();
        OsChildDaemon.Spec spec = daemon();
        if (OsTestbed.runningAsRoot()) {
            spec.user(account);
        }
        OsChildDaemon daemon = started(spec);

        assertWorkerRunsAs(daemon, account, groupsOf(daemon));
    }

    private static List<Integer> groupsOf(OsChildDaemon daemon) {
        return OsProcessFacts.of(daemon.handle()).groups().stream()
                .map(Long::intValue)
                .toList();
    }

    /**
     * A root daemon's workers run as uids that own nothing, so a plugin only root can read is
     * rejected at discovery, in one line naming the file and the directory that stops them; a daemon
     * that is not root runs its workers as itself, who can read what it can.
     */
    @Test
    void aPluginTheWorkersCannotReadIsRejectedAtDiscoveryInOneLine() throws Exception {
        Path closed = testbed.publicDirectory("closed");
        OsTestbed.setMode(NativeFixtures.compileMinimalPlugin(closed, "closed.so", 1), "rw-r--r--");
        OsTestbed.setMode(closed, "rwx------");
        OsChildDaemon.Spec spec = daemon().options("--plugin-path", closed.toString());
        if (runningAsRoot()) {
            OsChildDaemon daemon = started(spec);
            try (UromService service = UromService.connect(daemon.address().toString())) {
                assertThat(service.plugins()).as("plugins offered").isEmpty();
            }
            Path plugin = closed.resolve("closed.so");
            assertThat(Files.readAllLines(daemon.logFile()))
                    .filteredOn(line -> line.contains("plugin rejected: "))
                    .singleElement()
                    .asString()
                    .endsWith("plugin rejected: the workers' uids cannot read " + plugin + ": " + closed
                            + " is mode 0700, owner root (uid 0), group root (gid 0)");
            return;
        }
        OsChildDaemon daemon = started(spec);
        try (UromService service = UromService.connect(daemon.address().toString())) {
            assertThat(service.plugins()).as("plugins offered").hasSize(1);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            --worker-user   | root      | --worker-user root: only a daemon running as root can start workers as another user; this one runs as {self}
            --worker-groups | 4242      | --worker-groups: only a daemon running as root can choose its workers' groups
            """)
    void aDaemonThatIsNotRootRefusesAnotherWorkerIdentityInOneLine(String option, String value, String reason)
            throws Exception {
        UnixAccount account = OsTestbed.nonRootDaemonAccount();
        OsChildDaemon.Spec spec = daemon(option, value);
        if (OsTestbed.runningAsRoot()) {
            spec.user(account);
        }
        OsChildDaemon daemon = started(spec);

        assertThat(daemon.failure()).isEqualTo("FAILED " + reason.replace("{self}", account.describe()) + "\n");
    }

    /**
     * Starts a worker through the daemon and checks its process: all four uids and gids those of
     * {@code account}, exactly {@code groups} as supplementary groups, NoNewPrivs, its private
     * directory as working directory, HOME and TMPDIR, and an environment of the daemon's making
     * only. Then a command goes through it and back.
     */
    private void assertWorkerRunsAs(OsChildDaemon daemon, UnixAccount account, Collection<Integer> groups)
            throws Exception {
        UromService service = UromService.connect(daemon.address().toString());
        opened.add(service);
        long echo = service.plugins().get(0).id();
        Worker worker =
                service.newWorker().plugins(echo).env("UCX_LOG_LEVEL=info").build();
        opened.add(worker);
        worker.start().get(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        OsProcessFacts process = OsProcessFacts.of(daemon.worker(worker.id()));

        long uid = Integer.toUnsignedLong(account.uid());
        long gid = Integer.toUnsignedLong(account.gid());
        assertThat(process.ids("Uid"))
                .as("real, effective, saved and file-system uids")
                .containsExactly(uid, uid, uid, uid);
        assertThat(process.ids("Gid"))
                .as("real, effective, saved and file-system gids")
                .containsExactly(gid, gid, gid, gid);
        Set<Long> expectedGroups = new TreeSet<>();
        groups.forEach(g -> expectedGroups.add(Integer.toUnsignedLong(g)));
        assertThat(process.groups()).as("supplementary groups").isEqualTo(expectedGroups);
        assertThat(process.status("NoNewPrivs")).containsExactly("1");

        Path directory = workerDirectory(daemon, worker.id());
        Path workRoot = directory.getParent();
        assertThat(workRoot.getParent())
                .as("the work directory is in the daemon's java.io.tmpdir")
                .isEqualTo(daemon.tmpdir().toRealPath());
        assertThat(workRoot.getFileName().toString()).startsWith("urom-workers-");
        assertThat(modeAndOwner(directory)).as("the worker's private directory").isEqualTo("0700 " + uid);
        boolean otherUser = account.uid()
                != OsProcessFacts.of(daemon.handle()).ids("Uid").get(1).intValue();
        assertThat(modeAndOwner(workRoot))
                .as("the work directory")
                .isEqualTo((otherUser ? "0711 " : "0700 ")
                        + OsProcessFacts.of(daemon.handle()).ids("Uid").get(1));

        if (runningAsRoot()) {
            assertThat(process.cwd()).as("its working directory").isEqualTo(directory);
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put("PATH", WorkerEnvironment.FIXED_PATH);
            expected.put("LANG", WorkerEnvironment.FIXED_LANG);
            expected.put(WorkerEnvironment.UCX_ERROR_SIGNALS, "");
            expected.put("UCX_TLS", "tcp");
            expected.put("UCX_POSIX_USE_PROC_LINK", "n");
            expected.put("UCX_LOG_LEVEL", "info");
            expected.put("HOME", directory.toString());
            expected.put("TMPDIR", directory.toString());
            expected.put(WorkerSupervisor.OWNER_UID_VARIABLE, Integer.toUnsignedString(UnixAccounts.effectiveUid()));
            assertThat(process.environment())
                    .as("the worker's whole environment")
                    .containsExactlyInAnyOrderEntriesOf(expected);
        } else {
            // The test is of the worker's uid: the undumpable worker keeps its environment from it (WorkerIsolationTest
            // tries the rest).
            assertThatThrownBy(process::environment).hasRootCauseInstanceOf(AccessDeniedException.class);
        }

        Notification reply =
                worker.submit(echo, new byte[] {7}).get(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(reply.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(reply.payload()).containsExactly(7);
    }

    /** The private directory of worker {@code workerId}: {@code worker-<id>-<launch>} in the daemon's work directory. */
    private static Path workerDirectory(OsChildDaemon daemon, long workerId) throws IOException {
        try (Stream<Path> roots = Files.list(daemon.tmpdir().toRealPath())) {
            List<Path> found = new ArrayList<>();
            for (Path root : roots.filter(p -> p.getFileName().toString().startsWith(WorkerRuntime.WORK_ROOT_PREFIX))
                    .toList()) {
                try (Stream<Path> dirs = Files.list(root)) {
                    dirs.filter(d -> d.getFileName()
                                    .toString()
                                    .matches("worker-" + Long.toUnsignedString(workerId) + "-[0-9]+"))
                            .forEach(found::add);
                }
            }
            assertThat(found)
                    .as("directories of worker %s", Long.toUnsignedString(workerId))
                    .hasSize(1);
            return found.get(0);
        }
    }

    private static String modeAndOwner(Path path) throws IOException {
        Map<String, Object> attributes = Files.readAttributes(path, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
        return String.format("%04o", (Integer) attributes.get("mode") & 07777) + " "
                + Integer.toUnsignedString((Integer) attributes.get("uid"));
    }

    private static List<String> warnings(OsChildDaemon daemon) throws IOException {
        return Files.readAllLines(daemon.logFile()).stream()
                .filter(line -> ROOT_WORKERS_WARNING.matcher(line).matches())
                .toList();
    }
}
