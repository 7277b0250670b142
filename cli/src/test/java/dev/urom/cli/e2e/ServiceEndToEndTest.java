// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.Proofs;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service end to end: a real daemon process ({@code urom daemon}), real worker processes, the
 * Java host API. One daemon serves most tests; the tests that need their own options or kill the
 * daemon start their own. After every test no worker of the shared daemon is left running.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServiceEndToEndTest {
    private static final long SECONDS = ServiceHarness.LIMIT.toSeconds();

    @TempDir
    static Path shared;

    private ServiceHarness daemon;
    private UromService service;
    private long graphId;
    private long javaGraphId;
    private long fixtureId;
    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @BeforeAll
    void startDaemon() throws Exception {
        daemon = ServiceHarness.start(shared, Map.of(), "-l", "60", "--max-workers", "8");
        service = UromService.connect(daemon.address);
        for (Plugin plugin : service.plugins()) {
            switch (plugin.info().name()) {
                case "worker_graph" -> graphId = plugin.info().id();
                case "worker_graph_java" -> javaGraphId = plugin.info().id();
                case "service_fixture" -> fixtureId = plugin.info().id();
                default -> throw new AssertionError("unexpected plugin " + plugin);
            }
        }
    }

    @AfterEach
    void noWorkerLeft() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
        cleanup.clear();
        ServiceHarness.awaitExit(daemon.workers());
        awaitNoWorkerListed();
    }

    /** The daemon reaps an exited worker on its own thread, after its last log lines: waits until it has. */
    private void awaitNoWorkerListed() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        while (!service.workersInGroup(Protocol.ALL_GROUPS).isEmpty() && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertThat(service.workersInGroup(Protocol.ALL_GROUPS)).isEmpty();
    }

    @AfterAll
    void stopDaemon() throws Exception {
        service.close();
        daemon.close();
        assertThat(Path.of(daemon.address.substring("unix:".length()))).doesNotExist();
    }

    private Worker started(Worker worker) throws Exception {
        cleanup.add(worker);
        worker.start().get(SECONDS, TimeUnit.SECONDS);
        return worker;
    }

    private static Notification await(CompletableFuture<Notification> future) throws Exception {
        return future.get(SECONDS, TimeUnit.SECONDS);
    }

    private static UromException startFailure(Worker worker) {
        ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> worker.start().get(SECONDS, TimeUnit.SECONDS));
        assertThat(failure.getCause()).isInstanceOf(UromException.class);
        assertThat(worker.state()).isEqualTo(Worker.State.IDLE);
        return (UromException) failure.getCause();
    }

    private static long get(CompletableFuture<Long> future) throws Exception {
        return future.get(SECONDS, TimeUnit.SECONDS);
    }

    private static byte[] op(char c) {
        return new byte[] {(byte) c};
    }

    @Test
    void theDaemonReportsEveryPluginWithItsKindAndVersion() throws Exception {
        List<Plugin> plugins = service.plugins();

        assertThat(plugins)
                .extracting(
                        p -> p.info().name() + "/" + p.kind() + "/v" + p.info().version())
                .containsExactlyInAnyOrder(
                        "worker_graph/native/v1", "worker_graph_java/java/v1", "service_fixture/native/v1");
        assertThat(plugins).extracting(p -> Long.bitCount(p.info().id())).containsOnly(1);
        assertThat(service.maxMessageSize()).isEqualTo(4096);
    }

    @Test
    void aWorkerIsItsOwnProcessWithItsPluginsOnItsCommandLineAndItsOwnLog() throws Exception {
        Worker worker =
                started(service.newWorker().plugins(graphId | javaGraphId).build());

        assertThat(worker.state()).isEqualTo(Worker.State.RUNNING);
        assertThat(get(GraphClient.loopback(worker, graphId, 77))).isEqualTo(77);
        assertThat(get(GraphClient.loopback(worker, javaGraphId, -5))).isEqualTo(-5);
        List<ProcessHandle> processes = daemon.workers();
        assertThat(processes).hasSize(1);
        String commandLine = ServiceHarness.commandLine(processes.get(0));
        assertThat(commandLine)
                .contains(daemon.plugins.resolve("worker_graph.so") + ":" + Long.toUnsignedString(graphId))
                .contains(daemon.plugins.resolve("worker_graph_java.jar") + ":" + Long.toUnsignedString(javaGraphId));
        Path workerLog = daemon.logDir.resolve("urom_worker_" + processes.get(0).pid() + "_dev.log");
        assertThat(workerLog).exists();
        assertThat(daemon.daemonLog()).exists();

        worker.stop().get(SECONDS, TimeUnit.SECONDS);
        assertThat(worker.state()).isEqualTo(Worker.State.IDLE);
        ServiceHarness.awaitExit(processes);
        awaitNoWorkerListed();
        List<String> log = Files.readAllLines(workerLog);
        assertThat(log)
                .as("the worker's log, to its very last line")
                .hasSizeGreaterThan(1)
                .last()
                .asString()
                .endsWith("worker process " + processes.get(0).pid() + " exited with status 0");
        assertThat(log.get(log.size() - 2))
                .as("the worker's own last line, before the daemon's note of its exit")
                .endsWith(": stopped");
    }

    @Test
    void theMultiWorkersBootstrapGroupsWorkersByGid() throws Exception {
        for (long plugin : new long[] {graphId, javaGraphId}) {
            List<Worker> workers = new ArrayList<>();
            for (int index = 0; index < 4; index++) {
                workers.add(started(service.newWorker()
                        .id(10 + index)
                        .gid(index % 2)
                        .plugins(plugin)
                        .build()));
            }
            for (Worker worker : workers) {
                assertThat(get(GraphClient.loopback(worker, plugin, worker.id())))
                        .isEqualTo(worker.id());
            }
            assertThat(service.workersInGroup(0)).containsExactly(10L, 12L);
            assertThat(service.workersInGroup(1)).containsExactly(11L, 13L);
            List<ProcessHandle> processes = daemon.workers();
            for (Worker worker : workers) {
                worker.stop().get(SECONDS, TimeUnit.SECONDS);
            }
            ServiceHarness.awaitExit(processes);
            assertThat(service.workersInGroup(0)).isEmpty();
        }
    }

    @Test
    void askingForARunningIdJoinsItAndEachConnectionGetsItsOwnAnswers() throws Exception {
        Worker first = started(
                service.newWorker().id(20).maxInflight(4).plugins(fixtureId).build());
        UromService other = UromService.connect(daemon.address);
        cleanup.add(other);
        Worker second = started(other.newWorker().id(20).plugins(fixtureId).build());

        assertThat(second.destId()).isNotEqualTo(first.destId());
        assertThat(daemon.workers()).hasSize(1);
        List<CompletableFuture<Notification>> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(first.submit(fixtureId, op('h')));
        }
        // Past max in-flight: refused at once, nothing sent.
        Notification refused = first.submit(fixtureId, op('e')).getNow(null);
        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(UromStatus.AGAIN);
        // The two connections are read independently: the held commands must be in before the release.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        while (await(second.submit(fixtureId, op('n'))).payload()[0] != held.size()) {
            assertThat(System.nanoTime())
                    .as("the worker holds the first connection's %d commands", held.size())
                    .isLessThan(deadline);
        }
        // The second connection releases the first one's held commands; each answer goes home.
        assertThat(await(second.submit(fixtureId, op('r'))).status()).isEqualTo(UromStatus.SUCCESS);
        for (CompletableFuture<Notification> answer : held) {
            assertThat(await(answer).status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(await(answer).payload()).containsExactly('h');
        }
        assertThat(await(first.submit(fixtureId, op('e'))).payload()).containsExactly('e');

        List<ProcessHandle> processes = daemon.workers();
        first.stop().get(SECONDS, TimeUnit.SECONDS);
        assertThat(await(second.submit(fixtureId, op('e'))).status())
                .as("the worker outlives one of two connections")
                .isEqualTo(UromStatus.SUCCESS);
        second.stop().get(SECONDS, TimeUnit.SECONDS);
        ServiceHarness.awaitExit(processes);
    }

    @Test
    void anyIdPicksAFreeId() throws Exception {
        Worker a = started(service.newWorker().plugins(graphId).build());
        Worker b = started(service.newWorker().plugins(graphId).build());

        assertThat(a.id()).isNotEqualTo(b.id());
        assertThat(service.workersInGroup(Protocol.ALL_GROUPS)).containsExactlyInAnyOrder(a.id(), b.id());
    }

    @Test
    void envThatCouldInjectCodeIsNotPermitted() {
        UromException preload = startFailure(service.newWorker()
                .plugins(graphId)
                .env("LD_PRELOAD=/tmp/evil.so")
                .build());
        UromException javaOptions = startFailure(service.newWorker()
                .plugins(graphId)
                .env("JAVA_TOOL_OPTIONS=-Dx=1")
                .build());

        assertThat(preload.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(preload.getMessage()).contains("LD_PRELOAD");
        assertThat(javaOptions.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(javaOptions.getMessage()).contains("JAVA_TOOL_OPTIONS");
        assertThat(daemon.workers()).isEmpty();
    }

    @Test
    void malformedEnvIsRefusedAndGoodEnvReachesTheWorker() throws Exception {
        UromException spaced = startFailure(
                service.newWorker().plugins(graphId).env("NAME=two words").build());
        assertThat(spaced.status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(spaced.getMessage()).contains("NAME=two words");

        started(service.newWorker()
                .plugins(graphId)
                .env("UCX_TCP_CM_REUSEADDR=y")
                .build());
        Path environ = Path.of("/proc/" + daemon.workers().get(0).pid() + "/environ");
        if (UnixAccounts.effectiveUid() != 0) {
            // The worker is undumpable: its environment is closed to the test's (its own) uid.
            // DaemonWorkerEnvironmentTest
            // reads a stand-in worker's environment from the inside, for any user.
            assertThatThrownBy(() -> Files.readString(environ)).isInstanceOf(AccessDeniedException.class);
            return;
        }
        assertThat(Files.readString(environ, StandardCharsets.ISO_8859_1).split("\0"))
                .contains("UCX_TCP_CM_REUSEADDR=y", "LANG=C.UTF-8")
                .as("the daemon's own environment does not reach the worker")
                .noneMatch(item -> item.startsWith("UROM_PLUGIN_PATH="));
    }

    @Test
    void aCpuOutsideTheDaemonsSetIsRefusedAndAGoodOneIsPinned() throws Exception {
        UromException outside =
                startFailure(service.newWorker().plugins(graphId).cpus(4095).build());
        assertThat(outside.status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(outside.getMessage()).contains("cpu 4095");

        started(service.newWorker().plugins(graphId).cpus(0).build());
        long pid = daemon.workers().get(0).pid();
        assertThat(Files.readAllLines(Path.of("/proc/" + pid + "/status"))).contains("Cpus_allowed_list:\t0");
    }

    @Test
    void aCommandOverTheMaximumSizeIsTooBigAndTheConnectionStaysUsable() throws Exception {
        Worker worker = started(service.newWorker().plugins(graphId).build());
        int largest = worker.maxMessageSize() - Message.Command.HEADER_BYTES;

        Notification tooBig = await(worker.submit(graphId, new byte[largest + 1]));
        Notification fits = await(worker.submit(graphId, new byte[largest]));

        assertThat(tooBig.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(fits.status())
                .as("delivered, and refused by the graph plugin for its length")
                .isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(get(GraphClient.loopback(worker, graphId, 3))).isEqualTo(3);
    }

    @Test
    void theWorkerItselfRefusesAnOversizeCommandFrameWithTooBig() throws Exception {
        Worker worker = started(service.newWorker().plugins(graphId).build());
        try (FrameChannel raw = rawWorkerConnection(worker)) {
            raw.send(0, new Message.Command(graphId, 99, new byte[4096]));
            Message answer = raw.receive().message();
            assertThat(answer).isInstanceOf(Message.Notify.class);
            assertThat(((Message.Notify) answer).status()).isEqualTo(UromStatus.TOO_BIG);
            assertThat(((Message.Notify) answer).uromContext()).isEqualTo(99);
            raw.send(0, new Message.Command(graphId, 100, GraphClient.loopbackCommand(8)));
            assertThat(((Message.Notify) raw.receive().message()).status()).isEqualTo(UromStatus.SUCCESS);
            raw.send(0, new Message.Stop());
        }
    }

    @Test
    void aCommandForAPluginTheWorkerDoesNotHaveIsNotFound() throws Exception {
        Worker worker = started(service.newWorker().plugins(graphId).build());

        assertThat(await(worker.submit(fixtureId, op('e'))).status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(get(GraphClient.loopback(worker, graphId, 1))).isEqualTo(1);
    }

    @Test
    void garbageClosesOnlyThatConnectionAtTheDaemonAndAtTheWorker() throws Exception {
        Worker worker = started(service.newWorker().plugins(graphId).build());
        for (String address : List.of(daemon.address, workerAddress(worker))) {
            try (SocketChannel raw = ServiceAddress.parse(address).connect()) {
                raw.write(ByteBuffer.wrap(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f, 1, 2, 3, 4}));
                assertThat(readUntilClosed(raw)).as("closed by " + address).isTrue();
            }
        }
        try (SocketChannel raw = ServiceAddress.parse(daemon.address).connect()) {
            FrameChannel frames = new FrameChannel(raw, Protocol.CONTROL_FRAME_LIMIT);
            Handshake.client(frames, Role.HOST, Proofs.Channel.CONTROL, Optional.empty(), ServiceHarness.LIMIT);
            raw.write(frame(99));
            assertThat(readUntilClosed(raw)).as("unknown message type").isTrue();
        }
        assertThat(service.plugins()).hasSize(3);
        assertThat(get(GraphClient.loopback(worker, graphId, 2))).isEqualTo(2);
        assertThat(Files.readString(daemon.daemonLog()))
                .contains("over the limit")
                .contains("unknown message type 99");
    }

    @Test
    void aPeerWithAnotherProtocolVersionIsRefused() throws Exception {
        try (SocketChannel raw = ServiceAddress.parse(daemon.address).connect();
                FrameChannel frames = new FrameChannel(raw, Protocol.CONTROL_FRAME_LIMIT)) {
            frames.send(0, new Message.Hello(Protocol.MAGIC, Protocol.VERSION + 1, Role.HOST, new byte[0], ""));
            Message answer = frames.receive().message();
            assertThat(answer).isInstanceOf(Message.ErrorReply.class);
            assertThat(((Message.ErrorReply) answer).status()).isEqualTo(UromStatus.UNSUPPORTED_VERSION);
            assertThat(((Message.ErrorReply) answer).message()).contains(String.valueOf(Protocol.VERSION + 1));
        }
    }

    @Test
    void aWorkerThatCrashesMidCommandFailsItsCommandsAndNothingElse() throws Exception {
        Worker doomed = started(service.newWorker().plugins(fixtureId).build());
        Worker bystander = started(service.newWorker().plugins(graphId).build());
        List<ProcessHandle> before = daemon.workers();

        CompletableFuture<Notification> held = doomed.submit(fixtureId, op('h'));
        CompletableFuture<Notification> crash = doomed.submit(fixtureId, op('c'));

        assertThat(await(held).status()).isEqualTo(UromStatus.CONNECTION_RESET);
        assertThat(await(crash).status()).isEqualTo(UromStatus.CONNECTION_RESET);
        assertThat(doomed.state()).isNotEqualTo(Worker.State.RUNNING);
        assertThat(get(GraphClient.loopback(bystander, graphId, 4))).isEqualTo(4);
        assertThat(service.plugins()).hasSize(3);
        ServiceHarness.awaitExit(
                before.stream().filter(p -> !daemon.workers().contains(p)).toList());
        assertThat(Files.readString(daemon.daemonLog())).contains("SIGSEGV");
        // The plugin's own last words (UROM_LOG_ERR) are in its worker's log.
        try (var logs = Files.list(daemon.logDir)) {
            assertThat(logs.filter(p -> p.getFileName().toString().matches("urom_worker_\\d+_dev\\.log"))
                            .map(p -> {
                                try {
                                    return Files.readString(p);
                                } catch (java.io.IOException e) {
                                    return "";
                                }
                            }))
                    .anySatisfy(log -> assertThat(log).contains("UROM::TEST::SERVICE - crashing on purpose"));
        }
    }

    @Test
    void aHostThatDisappearsTakesItsWorkerWithIt() throws Exception {
        Process host = new ProcessBuilder(
                        ProcessHandle.current().info().command().orElse("java"),
                        "-cp",
                        System.getProperty("java.class.path"),
                        HostProcess.class.getName(),
                        daemon.address,
                        "30",
                        Long.toUnsignedString(graphId))
                .redirectErrorStream(true)
                .start();
        try {
            BufferedReader lines =
                    new BufferedReader(new InputStreamReader(host.getInputStream(), StandardCharsets.UTF_8));
            String line = CompletableFuture.supplyAsync(() -> {
                        try {
                            return lines.readLine();
                        } catch (java.io.IOException e) {
                            return null;
                        }
                    })
                    .get(SECONDS, TimeUnit.SECONDS);
            assertThat(line).isEqualTo("RUNNING 30");
            assertThat(service.workersInGroup(Protocol.ALL_GROUPS)).containsExactly(30L);
            List<ProcessHandle> workers = daemon.workers();

            host.destroyForcibly();

            ServiceHarness.awaitExit(workers);
        } finally {
            host.destroyForcibly();
        }
    }

    @Test
    void workersDoNotOutliveADaemonKilledWithSigkill(@TempDir Path own) throws Exception {
        ServiceHarness killed = ServiceHarness.start(own, Map.of());
        try (UromService connection = UromService.connect(killed.address)) {
            long graph = connection.plugins().stream()
                    .filter(p -> p.info().name().equals("worker_graph"))
                    .findFirst()
                    .orElseThrow()
                    .info()
                    .id();
            for (int i = 0; i < 2; i++) {
                connection.newWorker().plugins(graph).build().start().get(SECONDS, TimeUnit.SECONDS);
            }
            List<ProcessHandle> workers = killed.workers();
            assertThat(workers).hasSize(2);

            killed.daemon.destroyForcibly();

            ServiceHarness.awaitExit(workers);
        } finally {
            killed.close();
        }
    }

    @Test
    void maxWorkersIsEnforcedWithFull(@TempDir Path own) throws Exception {
        try (ServiceHarness small = ServiceHarness.start(own, Map.of(), "--max-workers", "2");
                UromService connection = UromService.connect(small.address)) {
            long graph = connection.plugins().get(0).info().id();
            List<Worker> workers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Worker worker = connection.newWorker().plugins(graph).build();
                workers.add(worker);
                worker.start().get(SECONDS, TimeUnit.SECONDS);
            }
            UromException full =
                    startFailure(connection.newWorker().plugins(graph).build());
            assertThat(full.status()).isEqualTo(UromStatus.FULL);
            for (Worker worker : workers) {
                worker.close();
            }
        }
    }

    @Test
    void serviceArgsComeFirstAndSetTheMaximumMessageSize(@TempDir Path own) throws Exception {
        try (ServiceHarness configured = ServiceHarness.start(own, Map.of("SERVICE_ARGS", "-l 60 -m 2048"));
                UromService connection = UromService.connect(configured.address)) {
            assertThat(connection.maxMessageSize()).isEqualTo(2048);
        }
    }

    @Test
    void theCommandLineOverridesAnOptionOfServiceArgs(@TempDir Path own) throws Exception {
        try (ServiceHarness configured =
                        ServiceHarness.start(own, Map.of("SERVICE_ARGS", "-l 60 -m 2048"), "-m", "1024");
                UromService connection = UromService.connect(configured.address)) {
            assertThat(connection.maxMessageSize()).isEqualTo(1024);
        }
    }

    private String workerAddress(Worker worker) throws IOException {
        return daemon.workerAddress(worker.id());
    }

    private FrameChannel rawWorkerConnection(Worker worker) throws Exception {
        SocketChannel raw = ServiceAddress.parse(workerAddress(worker)).connect();
        FrameChannel frames = new FrameChannel(raw, Protocol.dataFrameLimit(4096));
        Handshake.client(frames, Role.HOST, Proofs.Channel.DATA, Optional.empty(), ServiceHarness.LIMIT);
        return frames;
    }

    private static ByteBuffer frame(int type) {
        return ByteBuffer.allocate(16)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putInt(12)
                .putShort((short) type)
                .putShort((short) 0)
                .putLong(0)
                .flip();
    }

    /** Reads until the peer closes; true when it did within the limit. */
    private static boolean readUntilClosed(SocketChannel raw) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
                    ByteBuffer sink = ByteBuffer.allocate(4096);
                    try {
                        while (raw.read(sink) >= 0) {
                            sink.clear();
                        }
                        return true;
                    } catch (java.io.IOException e) {
                        return true;
                    }
                })
                .get(SECONDS, TimeUnit.SECONDS);
    }
}
