// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.urom.framework.security.UnixAccount;
import dev.urom.host.Notification;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.service.testkit.TestKeys;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a worker's neighbours can reach of it, tried as an attacker would: {@code proc_peek} (its
 * {@code /proc/PID/environ}, {@code mem}, {@code fd}, and {@code ptrace}) run as another process's
 * identity against real workers of a child daemon. Each try is first made against a process the
 * attacker may reach ({@code proc_peek --control}), so that a refusal means something.
 *
 * <p>For any user: a process of a worker's own uid reaches nothing of it (the worker is undumpable).
 * As root: two key principals and a Unix principal (nobody) each get a worker of a uid of its own,
 * and no principal's uid reaches another's worker or its private directory.
 */
class WorkerIsolationTest {
    private static final List<String> REACHED = List.of("environ ok", "mem ok", "fd ok", "ptrace ok");
    private static final List<String> DENIED = List.of("environ EACCES", "mem EACCES", "fd EACCES", "ptrace EPERM");

    @TempDir
    static Path shared;

    private static OsTestbed testbed;
    private static Path plugins;
    private static Path probe;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void stage() {
        testbed = OsTestbed.in(shared);
        plugins = testbed.echoPlugin();
        probe = testbed.program("proc_peek");
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    @Test
    void aProcessOfAWorkersOwnUidReachesNothingOfIt() throws Exception {
        OsChildDaemon daemon = started(daemon());
        UromService service = connected(UromService.connect(daemon.address().toString()));
        Worker worker = startedWorker(service);
        ProcessHandle process = daemon.worker(worker.id());
        UnixAccount account = accountOf(process);

        assertThat(peek(account, "--control"))
                .as("%s against a child of its own", account.describe())
                .isEqualTo(REACHED);
        assertThat(peek(account, Long.toString(process.pid())))
                .as("%s against its worker", account.describe())
                .isEqualTo(DENIED);
        assertEchoes(service, worker);
    }

    /** {@code --dumpable-workers} opens a worker to its own uid (for debuggers): the same tries then succeed. */
    @Test
    void dumpableWorkersAreOpenToTheirOwnUid() throws Exception {
        OsChildDaemon daemon = started(daemon("--dumpable-workers", "true"));
        UromService service = connected(UromService.connect(daemon.address().toString()));
        Worker worker = startedWorker(service);
        ProcessHandle process = daemon.worker(worker.id());
        UnixAccount account = accountOf(process);

        assertThat(peek(account, Long.toString(process.pid())))
                .as("%s against its dumpable worker", account.describe())
                .isEqualTo(REACHED);
        assertEchoes(service, worker);
    }

    /** Where the kernel leaves a worker dumpable (a root worker, a noexec work directory), the worker seals itself. */
    @Test
    void aProcessTheKernelLeftDumpableSealsItselfAgainstItsOwnUid() throws Exception {
        UnixAccount account = OsTestbed.defaultWorkerAccount();
        List<String> java = testbed.javaCommand(SelfSealingMain.class, List.of());
        Process process = new ProcessBuilder(OsTestbed.as(account, List.of(), java))
                .redirectErrorStream(true)
                .start();
        opened.add(() -> {
            process.getOutputStream().close();
            process.waitFor(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        });
        String line =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();

        assertThat(line).as("it sealed itself, having been dumpable").isEqualTo("SEALED false");
        assertThat(peek(account, "--control"))
                .as("%s against a child of its own", account.describe())
                .isEqualTo(REACHED);
        assertThat(peek(account, Long.toString(process.pid())))
                .as("%s against the sealed JVM", account.describe())
                .isEqualTo(DENIED);
    }

    @Test
    void eachPrincipalsWorkersRunAsAUidOfTheirOwnThatNoOtherPrincipalReaches() throws Exception {
        assumeTrue(OsTestbed.runningAsRoot(), "only root can start workers as several uids, or act as them");
        UnixAccount nobody = OsTestbed.nobody();
        Path keys = TestKeys.directory(testbed.publicDirectory("keys"), "alice", "bob");
        OsChildDaemon daemon = started(
                daemon("--auth-keys", keys.toString(), "--socket-group", Integer.toUnsignedString(nobody.gid())));
        ServiceAddress address = daemon.address();
        Map<String, ProcessHandle> workers = new LinkedHashMap<>();
        for (String name : List.of("alice", "bob")) {
            UromService service = connected(UromService.connect(address.toString(), TestKeys.key(keys, name)));
            Worker worker = startedWorker(service);
            assertEchoes(service, worker);
            workers.put(name, daemon.worker(worker.id()));
        }
        long echo = connected(UromService.connect(address.toString(), TestKeys.key(keys, "alice")))
                .plugins()
                .get(0)
                .id();
        OsChildHost host = OsChildHost.start(
                testbed, nobody, address, echo, testbed.publicDirectory("host").resolve("stderr"));
        opened.add(host);
        workers.put("unix:nobody", daemon.worker(host.workerId()));

        Map<String, UnixAccount> accounts = new LinkedHashMap<>();
        workers.forEach((name, process) -> accounts.put(name, accountOf(process)));
        assertThat(accounts.values().stream().map(UnixAccount::uid))
                .as("the workers' uids")
                .doesNotHaveDuplicates();
        for (String name : List.of("alice", "bob")) {
            assertThat(UidRange.DEFAULT.contains(accounts.get(name).uid()))
                    .as("%s's uid %s is in %s", name, accounts.get(name).uid(), UidRange.DEFAULT)
                    .isTrue();
            assertThat(accounts.get(name).gid())
                    .as("%s's gid", name)
                    .isEqualTo(accounts.get(name).uid());
        }
        assertThat(accounts.get("unix:nobody"))
                .as("the Unix principal's worker runs as that user")
                .extracting(UnixAccount::uid, UnixAccount::gid)
                .containsExactly(nobody.uid(), nobody.gid());
        workers.forEach((name, process) -> assertThat(OsProcessFacts.of(process).groups())
                .as("%s's worker's groups", name)
                .containsExactly(Integer.toUnsignedLong(accounts.get(name).gid())));

        for (Map.Entry<String, UnixAccount> attacker : accounts.entrySet()) {
            UnixAccount who = attacker.getValue();
            assertThat(peek(who, "--control"))
                    .as("%s against a child of its own", who.describe())
                    .isEqualTo(REACHED);
            for (Map.Entry<String, ProcessHandle> target : workers.entrySet()) {
                String what = who.describe() + " (" + attacker.getKey() + ") against " + target.getKey() + "'s worker";
                assertThat(peek(who, Long.toString(target.getValue().pid())))
                        .as(what)
                        .isEqualTo(DENIED);
                Path directory = OsProcessFacts.of(target.getValue()).cwd();
                boolean own = attacker.getKey().equals(target.getKey());
                assertThat(peek(who, "--dir", directory.toString()))
                        .as("%s: its directory %s", what, directory)
                        .containsExactly(own ? "dir ok" : "dir EACCES");
            }
        }
    }

    private OsChildDaemon.Spec daemon(String... options) {
        Path home = testbed.publicDirectory("daemon");
        OsChildDaemon.Spec spec = new OsChildDaemon.Spec(testbed, home);
        return spec.options(
                        "--listen",
                        spec.tmpdir().resolve("s").resolve("urom.sock").toString(),
                        "--plugin-path",
                        plugins.toString())
                .options(options)
                .env("HOME", home.toString());
    }

    private OsChildDaemon started(OsChildDaemon.Spec spec) {
        OsChildDaemon daemon = spec.start();
        opened.add(daemon);
        return daemon;
    }

    private UromService connected(UromService service) {
        opened.add(service);
        return service;
    }

    private Worker startedWorker(UromService service) throws Exception {
        Worker worker =
                service.newWorker().plugins(service.plugins().get(0).id()).build();
        opened.add(worker);
        worker.start().get(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        return worker;
    }

    /** An undumpable worker still serves: a command goes through it and back. */
    private static void assertEchoes(UromService service, Worker worker) throws Exception {
        long echo = service.plugins().get(0).id();
        Notification reply =
                worker.submit(echo, new byte[] {7}).get(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(reply.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(reply.payload()).containsExactly(7);
    }

    /** The uid and gid a process runs as (from its status, which anyone may read). */
    private static UnixAccount accountOf(ProcessHandle process) {
        OsProcessFacts facts = OsProcessFacts.of(process);
        int uid = facts.ids("Uid").get(0).intValue();
        int gid = facts.ids("Gid").get(0).intValue();
        return new UnixAccount(Integer.toUnsignedString(uid), uid, gid, List.of(gid));
    }

    /** What {@code proc_peek} says, run as {@code account} without supplementary groups. */
    private static List<String> peek(UnixAccount account, String... arguments) {
        List<String> command = new ArrayList<>(List.of(probe.toString()));
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(OsTestbed.as(account, List.of(), command))
                    .redirectErrorStream(true)
                    .start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("proc_peek ends")
                    .isTrue();
            assertThat(process.exitValue())
                    .as("proc_peek's exit status; it said: %s", out)
                    .isZero();
            return out.lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
