// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.AuthKey;
import dev.urom.host.ServiceInfo;
import dev.urom.host.UromService;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.service.daemon.testing.FakeWorkerMain;
import dev.urom.service.os.ChildJvm;
import dev.urom.service.process.WorkerLaunch;
import dev.urom.service.testkit.TestKeys;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Message;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.ServiceInfoReply;
import dev.urom.wire.Message.ServiceInfoRequest;
import dev.urom.wire.Message.StopOk;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Message.WorkersInGroupReply;
import dev.urom.wire.Message.WorkersInGroupRequest;
import dev.urom.wire.Message.WorkersInfoReply;
import dev.urom.wire.Message.WorkersInfoRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.ServicePlugin;
import dev.urom.wire.ServiceWorker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon with real sockets and real worker processes (the {@link FakeWorkerMain} stand-in). */
class DaemonTest {
    private static final long ANY = Protocol.ANY_WORKER;
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @TempDir
    static Path pluginDir;

    @TempDir
    Path dir;

    private final List<Daemon> daemons = new ArrayList<>();
    private final List<ControlClient> clients = new ArrayList<>();
    private Path logFile;
    private long alpha;
    private long beta;

    @BeforeAll
    static void compilePlugins() {
        NativeFixtures.compileMinimalPlugin(pluginDir, "alpha.so", 1);
        NativeFixtures.compileMinimalPlugin(pluginDir, "beta.so", 2);
    }

    @BeforeEach
    void setUp() {
        logFile = Daemon.logFile(Daemon.configureLogging(config()));
    }

    @AfterEach
    void tearDown() {
        clients.forEach(ControlClient::close);
        daemons.forEach(Daemon::close);
        ProcessHandle.current()
                .children()
                .filter(p -> arguments(p).contains(FakeWorkerMain.class.getName()))
                .forEach(ProcessHandle::destroyForcibly);
        Configurator.reconfigure();
    }

    /**
     * The process's arguments from /proc: {@code ProcessHandle.Info} gives none when the command
     * line is longer than a page, as a test JVM's class path makes it.
     */
    private static List<String> arguments(ProcessHandle process) {
        try {
            return List.of(Files.readString(Path.of("/proc", Long.toString(process.pid()), "cmdline"))
                    .split("\0"));
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    private DaemonConfig config() {
        return DaemonConfig.builder()
                .listen(ServiceAddress.unix(dir.resolve("urom.sock")))
                .logDir(dir.resolve("log"))
                .pluginPath(pluginDir.toString())
                .workerMainClass(FakeWorkerMain.class.getName())
                .security(TestWorkers.security().toBuilder()
                        .workerEnvAllow(List.of("FAKE_*", "GREETING"))
                        .build())
                .build();
    }

    private Daemon start(DaemonConfig config) throws IOException {
        Daemon daemon = Daemon.start(config);
        daemons.add(daemon);
        return daemon;
    }

    private ControlClient connect(Daemon daemon) throws Exception {
        return connect(daemon, Optional.empty());
    }

    private ControlClient connect(Daemon daemon, Optional<AuthKey> key) throws Exception {
        ControlClient client = ControlClient.connect(daemon.address(), key);
        clients.add(client);
        return client;
    }

    /** {@code config} with a key directory holding the key of principal jobA. */
    private DaemonConfig withKeys(DaemonConfig config) {
        return config.toBuilder()
                .security(config.security().toBuilder()
                        .authKeys(TestKeys.directory(dir, "jobA"))
                        .build())
                .build();
    }

    /** The key of jobA in the directory {@link #withKeys} made. */
    private AuthKey key() {
        return TestKeys.key(dir.resolve("keys"), "jobA");
    }

    /** Starts a daemon, connects a client and learns the two plugins' ids. */
    private ControlClient daemonAndClient(DaemonConfig config) throws Exception {
        return daemonAndClient(config, Optional.empty());
    }

    /** Starts a daemon, connects a client (proving {@code key} when given) and learns the two plugins' ids. */
    private ControlClient daemonAndClient(DaemonConfig config, Optional<AuthKey> key) throws Exception {
        ControlClient client = connect(start(config), key);
        PluginsReply plugins = (PluginsReply) client.call(new PluginsRequest());
        alpha = idOf(plugins, "alpha");
        beta = idOf(plugins, "beta");
        return client;
    }

    private static long idOf(PluginsReply reply, String name) {
        return reply.plugins().stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow()
                .id();
    }

    private String log() throws IOException {
        return Files.readString(logFile);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void pluginsAreTheCompiledOnesWithStableIds() throws Exception {
        ControlClient client = connect(start(config()));

        PluginsReply first = (PluginsReply) client.call(new PluginsRequest());
        NativeFixtures.compileMinimalPlugin(pluginDir.resolve("later"), "gamma.so", 3);
        Daemon second = start(config().toBuilder()
                .listen(ServiceAddress.unix(dir.resolve("second.sock")))
                .pluginPath(pluginDir + ";" + pluginDir.resolve("later"))
                .build());
        ControlClient other = connect(second);
        PluginsReply withGamma = (PluginsReply) other.call(new PluginsRequest());
        PluginsReply again = (PluginsReply) client.call(new PluginsRequest());

        assertThat(first.plugins())
                .extracting(ServicePlugin::name, ServicePlugin::version, ServicePlugin::kind)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("alpha", 1L, "native"),
                        org.assertj.core.groups.Tuple.tuple("beta", 2L, "native"));
        assertThat(first.plugins())
                .allSatisfy(p -> assertThat(Long.bitCount(p.id())).isEqualTo(1));
        assertThat(first.plugins().get(0).id())
                .isNotEqualTo(first.plugins().get(1).id());
        assertThat(again).isEqualTo(first);
        assertThat(withGamma.plugins()).extracting(ServicePlugin::name).containsExactly("alpha", "beta", "gamma");
        assertThat(client.hello().maxMessageSize()).isEqualTo(DaemonConfig.DEFAULT_MAX_MESSAGE_SIZE);
    }

    @Test
    void startAnyTakesTheLowestFreeIdsAndPassesTheCommandLineAndEnv() throws Exception {
        ControlClient client =
                daemonAndClient(config().toBuilder().maxMessageSize(8192).build());
        Path argsFile = dir.resolve("args.txt");
        int cpu = firstAllowedCpu();

        WorkerStartReply first =
                client.start(ANY, alpha | beta, 5, List.of("FAKE_RECORD=" + argsFile, "GREETING=hello"), List.of(cpu));
        WorkerStartReply second = client.start(ANY, alpha, List.of());

        Path runDir = dir.resolve("urom.sock.workers");
        assertThat(first.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(first.message()).isEmpty();
        assertThat(first.workerId()).isZero();
        assertThat(first.gid()).isEqualTo(5);
        assertThat(first.pluginMask()).isEqualTo(alpha | beta);
        assertThat(first.workerAddress()).isEqualTo("unix:" + runDir.resolve("worker-0-1.sock"));
        assertThat(second.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(second.workerId()).isEqualTo(1);
        assertThat(second.workerAddress()).isEqualTo("unix:" + runDir.resolve("worker-1-2.sock"));

        List<String> args = Files.readAllLines(argsFile);
        WorkerLaunch launch = WorkerLaunch.fromArgv(
                args.stream().filter(arg -> !arg.matches("[A-Z_]+=.*")).toArray(String[]::new));
        assertThat(launch.workerId()).isZero();
        assertThat(launch.gid()).isEqualTo(5);
        assertThat(launch.listenFd()).isZero();
        assertThat(launch.daemonFd()).isEqualTo(3);
        assertThat(launch.logLevel()).isEqualTo(50);
        assertThat(launch.sdkLogLevel()).isEqualTo(40);
        assertThat(launch.maxMessageSize()).isEqualTo(8192);
        assertThat(launch.cpus().stream().boxed().toList()).containsExactly(cpu);
        assertThat(launch.idleTimeoutMs()).isEqualTo(30000);
        assertThat(launch.maxInflight()).isEqualTo(1024);
        assertThat(launch.maxHostConnections()).isEqualTo(64);
        assertThat(launch.handshakeTimeoutMs()).isEqualTo(5000);
        assertThat(args)
                .contains(
                        pluginDir.resolve("alpha.so") + ":" + Long.toUnsignedString(alpha),
                        pluginDir.resolve("beta.so") + ":" + Long.toUnsignedString(beta),
                        "GREETING=hello");
        assertThat(args.indexOf(pluginDir.resolve("alpha.so") + ":" + Long.toUnsignedString(alpha)))
                .isGreaterThan(args.indexOf("--idle-timeout-ms"));

        List<WorkerInfo> running = daemons.get(0).workers();
        assertThat(running).extracting(WorkerInfo::id).containsExactly(0L, 1L);
        assertThat(running).allSatisfy(w -> {
            assertThat(w.state()).isEqualTo(WorkerInfo.State.RUNNING);
            assertThat(alive(w.pid())).isTrue();
        });
        assertThat(log()).contains("worker 0 (pid " + running.get(0).pid() + ") started for connection 1");
    }

    @Test
    void anExplicitIdStartsOnceAndLaterStartsJoinIt() throws Exception {
        ControlClient client = daemonAndClient(config());
        ControlClient other = connect(daemons.get(0));

        WorkerStartReply started = client.start(7, alpha | beta, 3, List.of(), List.of());
        WorkerStartReply joined = other.start(7, alpha, 4, List.of("FAKE_MODE=failed_UNKNOWN"), List.of());
        WorkerStartReply sameMaskAgain = other.start(7, alpha | beta, 3, List.of(), List.of());

        assertThat(started.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(started.workerId()).isEqualTo(7);
        assertThat(joined.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(joined.workerId()).isEqualTo(7);
        assertThat(joined.gid()).isEqualTo(3);
        assertThat(joined.pluginMask()).isEqualTo(alpha | beta);
        assertThat(joined.workerAddress()).isEqualTo(started.workerAddress());
        assertThat(sameMaskAgain.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(daemons.get(0).workers()).hasSize(1);
        assertThat(log())
                .contains("worker 7 (pid " + daemons.get(0).workers().get(0).pid() + ") joined by connection 2");

        WorkerStartReply otherPlugins = client.start(8, alpha, List.of());
        WorkerStartReply joinWithMore = other.start(8, alpha | beta, 0, List.of(), List.of());
        assertThat(otherPlugins.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(joinWithMore.status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(joinWithMore.message())
                .isEqualTo("worker 8 runs plugins " + StartRequestCheck.hex(alpha) + " and cannot take on "
                        + StartRequestCheck.hex(beta) + "; ask for a subset of its plugins or another worker id");
    }

    @Test
    void concurrentStartsOfOneIdSpawnOneWorker() throws Exception {
        daemonAndClient(config());
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Callable<WorkerStartReply>> starts = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ControlClient c = connect(daemons.get(0));
                starts.add(() -> c.start(9, alpha, List.of()));
            }
            List<WorkerStartReply> replies = new ArrayList<>();
            for (Future<WorkerStartReply> f : pool.invokeAll(starts)) {
                replies.add(f.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
            }
            assertThat(replies).extracting(WorkerStartReply::status).containsOnly(UromStatus.SUCCESS);
            assertThat(replies)
                    .extracting(WorkerStartReply::workerAddress)
                    .containsOnly(replies.get(0).workerAddress());
        } finally {
            pool.shutdownNow();
        }
        List<WorkerInfo> workers = daemons.get(0).workers();
        assertThat(workers).hasSize(1);
        String log = log();
        assertThat(log.split("\\) started for ", -1)).hasSize(2);
        assertThat(log.split("\\) joined by ", -1)).hasSize(3);
    }

    @Test
    void workersInGroupListsTheRunningWorkersOfThatGroup() throws Exception {
        ControlClient client = daemonAndClient(config());
        for (int i = 0; i < 4; i++) {
            assertThat(client.start(ANY, alpha, i % 2, List.of(), List.of()).status())
                    .isEqualTo(UromStatus.SUCCESS);
        }
        assertThat(client.start(ANY, alpha, 0, List.of("FAKE_MODE=failed_NOT_FOUND"), List.of())
                        .status())
                .isEqualTo(UromStatus.NOT_FOUND);

        assertThat(((WorkersInGroupReply) client.call(new WorkersInGroupRequest(0))).workerIds())
                .containsExactly(0L, 2L);
        assertThat(((WorkersInGroupReply) client.call(new WorkersInGroupRequest(1))).workerIds())
                .containsExactly(1L, 3L);
        assertThat(((WorkersInGroupReply) client.call(new WorkersInGroupRequest(2))).workerIds())
                .isEmpty();
    }

    @Test
    void workersInfoDescribesEachWorkerOfTheGroupWithItsProcessAndPlugins() throws Exception {
        ControlClient client = daemonAndClient(config());
        for (int i = 0; i < 3; i++) {
            assertThat(client.start(ANY, alpha, i % 2, List.of(), List.of()).status())
                    .isEqualTo(UromStatus.SUCCESS);
        }

        List<ServiceWorker> even = ((WorkersInfoReply) client.call(new WorkersInfoRequest(0))).workers();
        List<ServiceWorker> all =
                ((WorkersInfoReply) client.call(new WorkersInfoRequest(Protocol.ALL_GROUPS))).workers();

        assertThat(even).extracting(ServiceWorker::id).containsExactly(0L, 2L);
        assertThat(all).extracting(ServiceWorker::id).containsExactly(0L, 1L, 2L);
        List<WorkerInfo> table = daemons.get(0).workers();
        for (ServiceWorker worker : all) {
            WorkerInfo known = table.stream()
                    .filter(w -> w.id() == worker.id())
                    .findFirst()
                    .orElseThrow();
            assertThat(worker.pid()).isEqualTo(known.pid()).isPositive();
            assertThat(worker.gid()).isEqualTo(worker.id() % 2);
            assertThat(worker.pluginMask()).isEqualTo(alpha);
            assertThat(worker.state()).isEqualTo(ServiceWorker.State.RUNNING);
            assertThat(worker.plugins()).hasSize(1);
            assertThat(worker.uptimeMillis()).isNotNegative();
        }
    }

    @Test
    void serviceInfoGivesEveryPrincipalTheDaemonsCpusAndItsWorkersPerPrincipal() throws Exception {
        Daemon daemon = start(withKeys(config().toBuilder()
                .maxWorkers(8)
                .security(TestWorkers.security().toBuilder()
                        .maxWorkersPerPrincipal(3)
                        .build())
                .build()));
        List<Integer> daemonCpus = CpuSet.ofThisProcess().toList();

        try (UromService unixUser = UromService.connect(daemon.address().toString(), Optional.empty());
                UromService keyHolder = UromService.connect(daemon.address().toString(), key())) {
            ServiceInfo info = unixUser.serviceInfo();

            assertThat(info.cpus()).isNotEmpty().isSorted().isEqualTo(daemonCpus);
            assertThat(info.maxWorkers()).isEqualTo(3);
            assertThat(keyHolder.principal()).isNotEqualTo(unixUser.principal());
            assertThat(keyHolder.serviceInfo()).isEqualTo(info);
            assertThat(unixUser.serviceInfo())
                    .as("asked again on the same connection")
                    .isEqualTo(info);
        }
    }

    @Test
    void serviceInfoSaysMaxWorkersWhenNoPrincipalBoundIsSetAndItsCpusAreAllAWorkerStartMayName() throws Exception {
        ControlClient client =
                daemonAndClient(config().toBuilder().maxWorkers(4).build());

        ServiceInfoReply reply = (ServiceInfoReply) client.call(new ServiceInfoRequest());

        assertThat(reply.maxWorkers()).isEqualTo(4);
        WorkerStartReply started = client.start(ANY, alpha, 0, List.of(), reply.cpus());
        assertThat(started.status()).as(started.message()).isEqualTo(UromStatus.SUCCESS);
        int beyond = reply.cpus().get(reply.cpus().size() - 1) + 1;
        assertRefused(
                client.start(ANY, alpha, 0, List.of(), List.of(beyond)),
                UromStatus.INVALID_VALUE,
                "cpu " + beyond + " is not in the daemon's cpu set " + CpuSet.ofThisProcess());
    }

    @Test
    void aDaemonStartedUnderTasksetAnswersExactlyItsOneCpu() throws Exception {
        // taskset is util-linux's, which .ci/run installs.
        int cpu = firstAllowedCpu();
        List<String> command = new ArrayList<>(List.of("taskset", "-c", Integer.toString(cpu)));
        command.addAll(ChildJvm.command(
                ChildDaemonMain.class,
                List.of(),
                List.of(
                        dir.resolve("child.sock").toString(),
                        dir.resolve("child-log").toString(),
                        pluginDir.toString())));
        Path stderr = dir.resolve("child-stderr.txt");
        Process child =
                new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String ready = CompletableFuture.supplyAsync(() -> {
                        try {
                            return out.readLine();
                        } catch (IOException e) {
                            return null;
                        }
                    })
                    .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(ready)
                    .as("the child daemon's first line (stderr: %s)", Files.readString(stderr))
                    .startsWith("READY ");

            try (UromService service = UromService.connect(ready.substring("READY ".length()), Optional.empty())) {
                ServiceInfo info = service.serviceInfo();

                assertThat(info.cpus()).containsExactly(cpu);
                assertThat(info.maxWorkers()).isEqualTo(DaemonConfig.DEFAULT_MAX_WORKERS);
            }
        } finally {
            child.getOutputStream().close();
            if (!child.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
    }

    @Test
    void beyondMaxWorkersTheAnswerIsFull() throws Exception {
        ControlClient client =
                daemonAndClient(config().toBuilder().maxWorkers(2).build());
        assertThat(client.start(ANY, alpha, List.of()).status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(client.start(ANY, alpha, List.of()).status()).isEqualTo(UromStatus.SUCCESS);

        WorkerStartReply third = client.start(ANY, alpha, List.of());
        WorkerStartReply joinStillWorks = client.start(1, alpha, List.of());

        assertThat(third.status()).isEqualTo(UromStatus.FULL);
        assertThat(third.message()).isEqualTo("the daemon already runs its maximum of 2 workers (--max-workers)");
        assertThat(joinStillWorks.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(log())
                .contains("WORKER_START from connection 1 (unix, user " + System.getProperty("user.name")
                        + ") refused: FULL the daemon already runs its maximum of 2 workers");
    }

    @Test
    void badRequestsAreRefusedWithTheirStatusAndMessageAndStartNothing() throws Exception {
        ControlClient client = daemonAndClient(config());
        long unknown = 1L << 40;
        CpuSet cpus = CpuSet.ofThisProcess();

        assertRefused(
                client.start(ANY, 0, List.of()),
                UromStatus.NOT_FOUND,
                "plugin mask is 0: a worker needs at least one plugin");
        assertRefused(
                client.start(ANY, alpha | unknown, List.of()),
                UromStatus.NOT_FOUND,
                "plugin mask " + StartRequestCheck.hex(alpha | unknown) + " names id " + StartRequestCheck.hex(unknown)
                        + ", which this daemon does not have (its plugins: " + StartRequestCheck.hex(alpha | beta)
                        + ")");
        assertRefused(
                client.start(ANY, alpha, List.of("NOEQUALS")),
                UromStatus.INVALID_VALUE,
                "env item 'NOEQUALS' is not NAME=value");
        assertRefused(
                client.start(ANY, alpha, List.of("1X=y")),
                UromStatus.INVALID_VALUE,
                "env item '1X=y' has an invalid name '1X' (letters, digits and _, not starting with a digit, at most 128)");
        assertRefused(
                client.start(ANY, alpha, List.of("A-B=y")),
                UromStatus.INVALID_VALUE,
                "env item 'A-B=y' has an invalid name 'A-B' (letters, digits and _, not starting with a digit, at most 128)");
        assertRefused(
                client.start(ANY, alpha, List.of("A=b c")),
                UromStatus.INVALID_VALUE,
                "env item 'A=b c' holds white space or a NUL");
        assertRefused(
                client.start(ANY, alpha, List.of("A=b\tc")),
                UromStatus.INVALID_VALUE,
                "env item 'A=b\\tc' holds white space or a NUL");
        for (String name : List.of(
                "LD_PRELOAD",
                "LD_LIBRARY_PATH",
                "LD_AUDIT",
                "JAVA_TOOL_OPTIONS",
                "_JAVA_OPTIONS",
                "JDK_JAVA_OPTIONS",
                "CLASSPATH",
                "GCONV_PATH",
                "LOCPATH",
                "LC_ALL",
                "LANGUAGE",
                "GLIBC_TUNABLES",
                "MALLOC_PERTURB_",
                "TMPDIR",
                "XDG_CACHE_HOME",
                "LD_DEBUG_OUTPUT",
                "LOG4J_DEBUG",
                "ld_preload",
                "UROM_OWNER_UID",
                "FAKE_MODULE_DIR",
                "FAKE_GDB_COMMAND",
                "FAKE_TOOL_LIBRARIES")) {
            assertRefused(
                    client.start(ANY, alpha, List.of("FAKE_OK=1", name + "=/tmp/x")),
                    UromStatus.NOT_PERMITTED,
                    "env " + name
                            + " is never passed to a worker: the C library, the loader, the JVM, JNA or Log4j reads it, or it names a file, "
                            + "library or command the worker would use");
        }
        assertRefused(
                client.start(ANY, alpha, List.of("FAKE_OK=1", "OTHER=1")),
                UromStatus.NOT_PERMITTED,
                "env OTHER is not one the operator allows (--worker-env-allow FAKE_*,GREETING)");
        assertRefused(
                client.start(ANY, alpha, List.of("FAKE_LONG=" + "x".repeat(65_000))),
                UromStatus.INVALID_VALUE,
                "env FAKE_LONG has a value of 65000 bytes; the limit is 4096");
        assertRefused(
                client.start(ANY, alpha, List.of("LD_PRELOAD=/tmp/x.so", "BAD")),
                UromStatus.INVALID_VALUE,
                "env item 'BAD' is not NAME=value");
        assertRefused(
                client.start(ANY, alpha, 0, List.of(), List.of(firstAllowedCpu(), 4096)),
                UromStatus.INVALID_VALUE,
                "cpu 4096 is not in the daemon's cpu set " + cpus);
        assertRefused(
                client.start(ANY, 0, 0, List.of("LD_PRELOAD=x"), List.of(4096)),
                UromStatus.NOT_FOUND,
                "plugin mask is 0: a worker needs at least one plugin");

        assertThat(daemons.get(0).workers()).isEmpty();
        // refusals are the host's doing: the first 20 of a burst are logged, the rest counted (RateLimitedLog)
        assertThat(log()).contains("refused: NOT_PERMITTED env LD_PRELOAD is never passed to a worker");
        assertThat(countInLog("WORKER_START from connection 1")).isEqualTo(20);
    }

    @Test
    void aFailedLineGivesItsStatusAndFreesTheId() throws Exception {
        ControlClient client = daemonAndClient(config());

        WorkerStartReply failed = client.start(ANY, alpha, List.of("FAKE_MODE=failed_NOT_PERMITTED"));

        assertThat(failed.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(failed.message()).matches("worker 0 \\(pid \\d+\\) failed to start: fake worker told to fail");
        assertThat(failed.workerAddress()).isEmpty();
        assertThat(daemons.get(0).workers()).isEmpty();
        await("the failed worker is reaped", () -> logHas("exited with status 1"));
        WorkerStartReply next = client.start(ANY, alpha, List.of());
        assertThat(next.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(next.workerId()).isZero();
    }

    @Test
    void noLineWithinTheStartTimeoutIsTimeOutAndTheWorkerIsKilled() throws Exception {
        ControlClient client = daemonAndClient(
                config().toBuilder().workerStartTimeout(Duration.ofSeconds(2)).build());

        WorkerStartReply reply = client.start(ANY, alpha, List.of("FAKE_MODE=silent"));

        assertThat(reply.status()).isEqualTo(UromStatus.TIME_OUT);
        assertThat(reply.message())
                .matches("worker 0 \\(pid \\d+\\) did not report READY within 2000 ms; it was killed");
        long pid = Long.parseLong(reply.message().replaceAll(".*\\(pid (\\d+)\\).*", "$1"));
        await("the silent worker is gone", () -> !alive(pid));
        await(
                "the silent worker is reaped",
                () -> logHas("worker 0 (pid " + pid + ") was killed by signal 9 (SIGKILL)"));
        assertThat(daemons.get(0).workers()).isEmpty();
    }

    @Test
    void startsAskedOnOneConnectionRunSideBySideAndEachAnswerCarriesItsRequestId() throws Exception {
        ControlClient client = daemonAndClient(
                config().toBuilder().workerStartTimeout(Duration.ofSeconds(30)).build());

        client.send(new WorkerStartRequest(ANY, alpha, 0, List.of("FAKE_MODE=silent"), List.of()));
        long ready = client.send(new WorkerStartRequest(ANY, alpha, 0, List.of(), List.of()));
        Frame first = client.receive();

        assertThat(first.requestId())
                .as("the second start is answered while the first still waits for its worker's READY")
                .isEqualTo(ready);
        assertThat(((WorkerStartReply) first.message()).status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(daemons.get(0).workers())
                .as("both workers are in the table, the silent one still starting")
                .hasSize(2);
    }

    @Test
    void aWorkerThatExitsOrBabblesBeforeReadyIsAnInitializationFailure() throws Exception {
        ControlClient client = daemonAndClient(config());

        WorkerStartReply exited = client.start(ANY, alpha, List.of("FAKE_MODE=exit_3"));
        WorkerStartReply babbled = client.start(ANY, alpha, List.of("FAKE_MODE=garbage"));

        assertThat(exited.status()).isEqualTo(UromStatus.INITIALIZATION);
        assertThat(exited.message()).matches("worker 0 \\(pid \\d+\\) exited with status 3 before it reported READY");
        assertThat(babbled.status()).isEqualTo(UromStatus.INITIALIZATION);
        assertThat(babbled.message())
                .matches("worker 0 \\(pid \\d+\\) wrote 'HELLO there' instead of READY or FAILED; it was killed");
        await("both are reaped", () -> logHas("exited with status 3") && logHas("was killed by signal 9"));
        assertThat(daemons.get(0).workers()).isEmpty();
    }

    @Test
    void anExitedWorkerIsReapedAndItsIdIsFreeAgain() throws Exception {
        ControlClient client = daemonAndClient(config());
        assertThat(client.start(ANY, alpha, List.of()).status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(client.start(ANY, alpha, List.of()).status()).isEqualTo(UromStatus.SUCCESS);
        long pid = daemons.get(0).workers().get(0).pid();

        ProcessHandle.of(pid).orElseThrow().destroyForcibly();

        await("worker 0 is forgotten", () -> daemons.get(0).workers().stream().noneMatch(w -> w.id() == 0));
        assertThat(log()).contains("worker 0 (pid " + pid + ") was killed by signal 9 (SIGKILL)");
        assertThat(((WorkersInGroupReply) client.call(new WorkersInGroupRequest(0))).workerIds())
                .containsExactly(1L);
        WorkerStartReply again = client.start(ANY, alpha, List.of());
        assertThat(again.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(again.workerId()).isZero();
    }

    @Test
    void aWorkerHoldsALeaseOnItsPluginIdsUntilItExits() throws Exception {
        dev.urom.framework.discovery.PluginDiscovery discovery = new dev.urom.framework.discovery.PluginDiscovery();
        Daemon daemon = Daemon.start(config(), policy -> discovery);
        daemons.add(daemon);
        ControlClient client = connect(daemon);
        PluginsReply plugins = (PluginsReply) client.call(new PluginsRequest());
        long a = idOf(plugins, "alpha");
        long b = idOf(plugins, "beta");

        assertThat(client.start(ANY, a, List.of()).status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(client.start(ANY, a | b, List.of()).status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(discovery.registry().leaseCount(a)).isEqualTo(2);
        assertThat(discovery.registry().leaseCount(b)).isEqualTo(1);

        long pid = daemon.workers().get(1).pid();
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        await("worker 1 is reaped", () -> discovery.registry().leaseCount(b) == 0);
        assertThat(discovery.registry().leaseCount(a)).isEqualTo(1);
    }

    @Test
    void aConnectionThatSaysItIsAWorkerIsRefused() throws Exception {
        Daemon daemon = start(config());
        try (FrameChannel channel = new FrameChannel(daemon.address().connect(), Protocol.CONTROL_FRAME_LIMIT)) {
            channel.send(0, Hello.of(Role.WORKER));
            assertThat(channel.receive().message())
                    .isEqualTo(new ErrorReply(
                            UromStatus.NOT_PERMITTED, "the daemon serves hosts; this connection said it is a WORKER"));
            assertThat(readsEof(channel.socket())).isTrue();
        }
    }

    @Test
    void aBadFrameClosesOnlyItsConnection() throws Exception {
        ControlClient bystander = daemonAndClient(config());
        ServiceAddress address = daemons.get(0).address();

        assertThat(sendRawAfterHandshake(address, rawFrame(70_000 - 4, 10, new byte[0])))
                .isTrue();
        assertThat(sendRawAfterHandshake(address, rawFrame(12, 99, new byte[0])))
                .isTrue();
        assertThat(sendRawAfterHandshake(address, rawFrame(15, 10, new byte[3])))
                .isTrue();

        assertThat(bystander.call(new PluginsRequest())).isInstanceOf(PluginsReply.class);
        await(
                "the three reasons are logged",
                () -> logHas("closed by the daemon: ") && countInLog("closed by the daemon: ") == 3);
        assertThat(log()).contains("unknown message type 99");
    }

    @Test
    void aMessageThatIsNotARequestGetsNotSupportedAndTheConnectionStays() throws Exception {
        ControlClient client = daemonAndClient(config());

        Message reply = client.call(new StopOk());

        assertThat(reply)
                .isEqualTo(new ErrorReply(UromStatus.NOT_SUPPORTED, "STOP_OK is not a request the daemon serves"));
        assertThat(client.call(new PluginsRequest())).isInstanceOf(PluginsReply.class);
    }

    @Test
    void anotherProtocolVersionIsRefused() throws Exception {
        Daemon daemon = start(config());
        try (FrameChannel channel = new FrameChannel(daemon.address().connect(), Protocol.CONTROL_FRAME_LIMIT)) {
            channel.send(0, new Hello(Protocol.MAGIC, 3, Role.HOST, new byte[0], ""));
            Message reply = channel.receive().message();

            assertThat(reply).isInstanceOf(ErrorReply.class);
            assertThat(((ErrorReply) reply).status()).isEqualTo(UromStatus.UNSUPPORTED_VERSION);
            assertThat(((ErrorReply) reply).message())
                    .isEqualTo("protocol version 3 is not supported; this service speaks 2");
            assertThat(readsEof(channel.socket())).isTrue();
        }
        await("the refusal is logged", () -> logHas("refused at the handshake: UNSUPPORTED_VERSION"));
    }

    @Test
    void closeEndsEveryWorkerAndRemovesTheSocketFiles() throws Exception {
        ControlClient client = daemonAndClient(config());
        client.start(ANY, alpha, List.of());
        client.start(ANY, beta, List.of());
        List<Long> pids = daemons.get(0).workers().stream().map(WorkerInfo::pid).toList();
        assertThat(pids).hasSize(2).allSatisfy(pid -> assertThat(alive(pid)).isTrue());

        daemons.get(0).close();

        assertThat(daemons.get(0).awaitTermination(Duration.ZERO)).isTrue();
        assertThat(pids).allSatisfy(pid -> assertThat(alive(pid)).isFalse());
        assertThat(dir.resolve("urom.sock")).doesNotExist();
        assertThat(dir.resolve("urom.sock.workers")).doesNotExist();
        assertThat(readsEof(client.socket())).isTrue();
        for (long pid : pids) {
            await("worker " + pid + " is reaped", () -> logHas("(pid " + pid + ") exited with status 0"));
        }
        daemons.get(0).close();
    }

    @Test
    void closeEscalatesToSigtermForAWorkerThatIgnoresEof() throws Exception {
        ControlClient client = daemonAndClient(config());
        assertThat(client.start(ANY, alpha, List.of("FAKE_MODE=ignore_eof")).status())
                .isEqualTo(UromStatus.SUCCESS);
        long pid = daemons.get(0).workers().get(0).pid();

        daemons.get(0).close();

        assertThat(alive(pid)).isFalse();
        assertThat(log())
                .contains("worker process " + pid + " did not end within 3000 ms of EOF on its stdin; sending SIGTERM");
        await("the worker is reaped", () -> logHas("worker 0 (pid " + pid + ") was killed by signal 15 (SIGTERM)"));
    }

    @Test
    void aTcpDaemonReportsItsPortAndGivesWorkersTcpAddresses() throws Exception {
        ControlClient client = daemonAndClient(
                withKeys(config().toBuilder()
                        .listen(ServiceAddress.tcp("127.0.0.1", 0))
                        .build()),
                Optional.of(key()));

        WorkerStartReply reply = client.start(ANY, alpha, List.of());

        assertThat(daemons.get(0).address().port()).isPositive();
        assertThat(reply.workerAddress()).matches("tcp:127\\.0\\.0\\.1:[1-9][0-9]*");
    }

    @Test
    void aDaemonOnEveryInterfaceAnnouncesWorkersAtTheAddressTheHostCameInOn() throws Exception {
        ControlClient client = daemonAndClient(
                withKeys(config().toBuilder()
                        .listen(ServiceAddress.tcp("0.0.0.0", 0))
                        .build()),
                Optional.of(key()));

        WorkerStartReply reply = client.start(ANY, alpha, List.of());

        assertThat(reply.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(reply.workerAddress())
                .as("not the wildcard, which a host elsewhere cannot connect to")
                .matches("tcp:127\\.0\\.0\\.1:[1-9][0-9]*");
    }

    private static void assertRefused(WorkerStartReply reply, UromStatus status, String message) {
        assertThat(reply.status()).as(message).isEqualTo(status);
        assertThat(reply.message()).isEqualTo(message);
        assertThat(reply.workerAddress()).isEmpty();
    }

    private static int firstAllowedCpu() {
        CpuSet cpus = CpuSet.ofThisProcess();
        for (int cpu = 0; cpu < 4096; cpu++) {
            if (cpus.contains(cpu)) {
                return cpu;
            }
        }
        throw new AssertionError("this process may run on no cpu below 4096: " + cpus);
    }

    private boolean logHas(String text) {
        try {
            return log().contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    private int countInLog(String text) {
        try {
            return log().split(java.util.regex.Pattern.quote(text), -1).length - 1;
        } catch (IOException e) {
            return -1;
        }
    }

    /** A frame whose length field says {@code length}, of type {@code type}, with {@code body}. */
    private static ByteBuffer rawFrame(int length, int type, byte[] body) {
        ByteBuffer frame = ByteBuffer.allocate(4 + 12 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(length)
                .putShort((short) type)
                .putShort((short) 0)
                .putLong(1)
                .put(body);
        return frame.flip();
    }

    /** Connects, shakes hands, writes {@code frame} and tells whether the daemon then closed the connection. */
    private static boolean sendRawAfterHandshake(ServiceAddress address, ByteBuffer frame) throws Exception {
        try (FrameChannel channel = new FrameChannel(address.connect(), Protocol.CONTROL_FRAME_LIMIT)) {
            ControlClient.handshake(channel, java.util.Optional.empty());
            while (frame.hasRemaining()) {
                channel.socket().write(frame);
            }
            return readsEof(channel.socket());
        }
    }

    /** Whether the next read sees the end of the stream (rather than data or a hang). */
    private static boolean readsEof(SocketChannel socket) throws Exception {
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> read = reader.submit(() -> {
                ByteBuffer one = ByteBuffer.allocate(1);
                try {
                    return socket.read(one);
                } catch (IOException e) {
                    return -1;
                }
            });
            return read.get(PATIENCE.toSeconds(), TimeUnit.SECONDS) < 0;
        } finally {
            reader.shutdownNow();
        }
    }
}
