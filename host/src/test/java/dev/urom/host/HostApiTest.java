// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.PluginInfo;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Stop;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.ServicePlugin;
import dev.urom.wire.ServiceWorker;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostApiTest {
    private static final int MAX_MSG = 4096;
    private static final long GRAPH = 0x2;
    private static final Plugin GRAPH_PLUGIN = new Plugin(new PluginInfo(GRAPH, 1, "worker_graph"), Plugin.NATIVE);
    private static final Plugin SANDBOX_PLUGIN = new Plugin(new PluginInfo(0x4, 1, "worker_sandbox"), Plugin.JAVA);

    @TempDir
    Path dir;

    FakeDaemon daemon;
    UromService service;

    @BeforeEach
    void startDaemon() throws Exception {
        daemon = new FakeDaemon(dir, MAX_MSG);
        daemon.plugins = List.of(
                new ServicePlugin(GRAPH_PLUGIN.info(), ServicePlugin.NATIVE),
                new ServicePlugin(SANDBOX_PLUGIN.info(), ServicePlugin.JAVA));
        service = UromService.connect(daemon.address.toString());
    }

    @AfterEach
    void stopDaemon() throws Exception {
        service.close();
        daemon.close();
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private Worker runningWorker(WorkerBuilder b) throws Exception {
        Worker w = b.build();
        assertThat(await(w.start())).isSameAs(w);
        assertThat(w.state()).isEqualTo(Worker.State.RUNNING);
        return w;
    }

    @Test
    void listsPluginsAndReportsTheServiceLimits() throws Exception {
        assertThat(service.plugins()).containsExactly(GRAPH_PLUGIN, SANDBOX_PLUGIN);
        assertThat(service.maxMessageSize()).isEqualTo(MAX_MSG);
        assertThat(service.address()).isEqualTo(daemon.address.toString());
    }

    @Test
    void startGoesThroughStartingToRunning() throws Exception {
        Worker w = service.newWorker()
                .plugins(List.of(GRAPH_PLUGIN))
                .gid(7)
                .env("A=1")
                .cpus(0, 2)
                .build();
        List<Worker.State> seen = new CopyOnWriteArrayList<>();
        w.addStateListener(seen::add);
        assertThat(w.state()).isEqualTo(Worker.State.IDLE);

        await(w.start());

        assertThat(seen).containsExactly(Worker.State.STARTING, Worker.State.RUNNING);
        assertThat(w.id()).isEqualTo(100);
        assertThat(w.gid()).isEqualTo(7);
        assertThat(w.pluginMask()).isEqualTo(GRAPH);
        assertThat(w.destId()).isEqualTo(1001);
        assertThatThrownBy(() -> await(w.start()))
                .hasCauseInstanceOf(UromException.class)
                .cause()
                .hasMessage("worker 100 is RUNNING, not IDLE");
    }

    @Test
    void manyConcurrentSubmittersEachGetTheirOwnAnswer() throws Exception {
        Worker w = runningWorker(service.newWorker().plugins(GRAPH));
        int threads = 8;
        int perThread = 300;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(CompletableFuture.supplyAsync(
                        () -> {
                            int ok = 0;
                            List<CompletableFuture<Notification>> window = new ArrayList<>();
                            for (int i = 0; i < perThread; i++) {
                                byte[] payload = ByteBuffer.allocate(8)
                                        .putInt(thread)
                                        .putInt(i)
                                        .array();
                                byte[] userData = {(byte) thread, (byte) i};
                                window.add(w.submit(GRAPH, payload, userData));
                                if (window.size() == 4) {
                                    ok += check(window, thread);
                                }
                            }
                            return ok + check(window, thread);
                        },
                        pool));
            }
            for (CompletableFuture<Integer> r : results) {
                assertThat(r.get(60, TimeUnit.SECONDS)).isEqualTo(perThread);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static int check(List<CompletableFuture<Notification>> window, int thread) {
        int ok = 0;
        for (CompletableFuture<Notification> f : window) {
            Notification n = f.join();
            assertThat(n.status()).isEqualTo(UromStatus.SUCCESS);
            ByteBuffer echoed = ByteBuffer.wrap(n.payload());
            assertThat(echoed.getInt()).isEqualTo(thread);
            assertThat(n.userData()).containsExactly((byte) thread, (byte) echoed.getInt());
            ok++;
        }
        window.clear();
        return ok;
    }

    @Test
    void submissionsPastMaxInflightGetAgainUntilOneIsAnswered() throws Exception {
        Worker w = runningWorker(service.newWorker().id(5).plugins(GRAPH).maxInflight(4));
        FakeWorker fake = daemon.workers.get(5L);
        fake.hold = true;
        List<CompletableFuture<Notification>> first = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            first.add(w.submit(GRAPH, new byte[] {(byte) i}));
        }

        Notification refused = await(w.submit(GRAPH, new byte[] {9}, new byte[] {42}));

        assertThat(refused).isEqualTo(new Notification(UromStatus.AGAIN, new byte[0], new byte[] {42}));
        Command c = fake.nextHeld();
        fake.reply(c);
        assertThat(await(first.get(c.payload()[0])).status()).isEqualTo(UromStatus.SUCCESS);
        CompletableFuture<Notification> fifth = w.submit(GRAPH, new byte[] {5});
        for (int i = 0; i < 4; i++) {
            fake.reply(fake.nextHeld());
        }
        assertThat(await(fifth).payload()).containsExactly(5);
        for (CompletableFuture<Notification> f : first) {
            assertThat(await(f).status()).isEqualTo(UromStatus.SUCCESS);
        }
    }

    @Test
    void aWorkerThatAllowsFewerCommandsInFlightThanAskedLowersTheLimit() throws Exception {
        daemon.workerMaxInflight = 2;
        Worker w = runningWorker(service.newWorker().id(6).plugins(GRAPH).maxInflight(16));
        daemon.workers.get(6L).hold = true;

        CompletableFuture<Notification> first = w.submit(GRAPH, new byte[] {1});
        CompletableFuture<Notification> second = w.submit(GRAPH, new byte[] {2});
        Notification third = await(w.submit(GRAPH, new byte[] {3}));

        assertThat(w.maxInflight()).isEqualTo(2);
        assertThat(third.status()).isEqualTo(UromStatus.AGAIN);
        assertThat(first).isNotDone();
        assertThat(second).isNotDone();
    }

    @Test
    void tooBigCommandIsRefusedWithoutBeingSent() throws Exception {
        Worker w = runningWorker(service.newWorker().id(6).plugins(GRAPH));
        FakeWorker fake = daemon.workers.get(6L);

        Notification tooBig = await(w.submit(GRAPH, new byte[MAX_MSG - 24 + 1]));
        Notification fits = await(w.submit(GRAPH, new byte[MAX_MSG - 24]));

        assertThat(tooBig.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(tooBig.reason())
                .isEqualTo("a command of " + (MAX_MSG + 1) + " bytes (24-byte header + " + (MAX_MSG - 24 + 1)
                        + " bytes of payload) is over the daemon's max message size of " + MAX_MSG
                        + " bytes (urom daemon -m, --max-msg-size)");
        assertThat(fits.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(fits.reason()).isEmpty();
        assertThat(fits.payload()).hasSize(MAX_MSG - 24);
        assertThat(fake.commandsReceived).hasValue(1);
        assertThat(w.state()).isEqualTo(Worker.State.RUNNING);
    }

    @Test
    void droppedConnectionResetsEveryInflightCommandAndGoesIdle() throws Exception {
        Worker w = runningWorker(service.newWorker().id(8).plugins(GRAPH));
        FakeWorker fake = daemon.workers.get(8L);
        fake.hold = true;
        CompletableFuture<Worker.State> idle = new CompletableFuture<>();
        w.addStateListener(s -> {
            if (s == Worker.State.IDLE) {
                idle.complete(s);
            }
        });
        List<CompletableFuture<Notification>> inflight = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            inflight.add(w.submit(GRAPH, new byte[] {(byte) i}, new byte[] {(byte) i}));
        }
        for (int i = 0; i < 3; i++) {
            fake.nextHeld();
        }

        fake.dropConnections();

        for (int i = 0; i < 3; i++) {
            assertThat(await(inflight.get(i)))
                    .isEqualTo(new Notification(UromStatus.CONNECTION_RESET, new byte[0], new byte[] {(byte) i}));
        }
        assertThat(await(idle)).isEqualTo(Worker.State.IDLE);
        assertThat(w.state()).isEqualTo(Worker.State.IDLE);
        assertThat(await(w.submit(GRAPH, new byte[1])).status()).isEqualTo(UromStatus.BAD_STATE);
    }

    @Test
    void errorReplyToWorkerStartFailsTheStartWithThatStatus() throws Exception {
        daemon.refuseStart = new ErrorReply(UromStatus.NOT_FOUND, "plugin mask 0x8 names no plugin");
        Worker w = service.newWorker().plugins(0x8).build();
        List<Worker.State> seen = new CopyOnWriteArrayList<>();
        w.addStateListener(seen::add);

        assertThatThrownBy(() -> await(w.start()))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND))
                .hasMessage("plugin mask 0x8 names no plugin");
        assertThat(w.state()).isEqualTo(Worker.State.IDLE);
        assertThat(seen).containsExactly(Worker.State.STARTING, Worker.State.IDLE);

        daemon.refuseStart = null;
        daemon.startReplyStatus = UromStatus.INITIALIZATION;
        assertThatThrownBy(() -> await(w.start()))
                .cause()
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INITIALIZATION))
                .hasMessage("plugin 0x4 failed to open");

        daemon.startReplyStatus = null;
        assertThat(await(w.start()).state()).isEqualTo(Worker.State.RUNNING);
    }

    @Test
    void versionMismatchAtConnectIsUnsupportedVersion() throws Exception {
        daemon.refuseHello = new ErrorReply(
                UromStatus.UNSUPPORTED_VERSION, "protocol version 1 is not supported; this service speaks 2");
        assertThatThrownBy(() -> UromService.connect(daemon.address.toString()))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.UNSUPPORTED_VERSION))
                .hasMessage(daemon.address
                        + " refused the connection: protocol version 1 is not supported; this service speaks 2");
    }

    @Test
    void connectingToNothingIsNotConnected() throws Exception {
        ServiceAddress stale = ServiceAddress.unix(dir.resolve("stale.sock"));
        stale.bind().close();
        assertThatThrownBy(() -> UromService.connect(stale.toString()))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_CONNECTED))
                .hasMessage("cannot connect to " + stale + ": Connection refused");
        assertThatThrownBy(() -> UromService.connect("unix:relative"))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE))
                .hasMessage("service address 'unix:relative' is invalid: the path is not absolute");
    }

    @Test
    void workersInGroupListsTheWorkersStartedWithThatGid() throws Exception {
        List<Worker> workers = new ArrayList<>();
        for (long i = 0; i < 4; i++) {
            workers.add(runningWorker(service.newWorker().id(i).gid(i % 2).plugins(GRAPH)));
        }
        for (Worker w : workers) {
            byte[] echo = ByteBuffer.allocate(16)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(0)
                    .putLong(w.id())
                    .array();
            assertThat(await(w.submit(GRAPH, echo)).payload()).isEqualTo(echo);
        }
        assertThat(service.workersInGroup(0)).containsExactly(0L, 2L);
        assertThat(service.workersInGroup(1)).containsExactly(1L, 3L);
        assertThat(service.workersInGroup(9)).isEmpty();
    }

    @Test
    void stopSendsStopAndGoesIdle() throws Exception {
        Worker w = runningWorker(service.newWorker().id(11).plugins(GRAPH));
        List<Worker.State> seen = new CopyOnWriteArrayList<>();
        w.addStateListener(seen::add);

        await(w.stop());

        assertThat(w.state()).isEqualTo(Worker.State.IDLE);
        assertThat(seen).containsExactly(Worker.State.STOPPING, Worker.State.IDLE);
        assertThat(daemon.workers.get(11L).controlSeen.poll(30, TimeUnit.SECONDS))
                .isEqualTo(new Stop());
        assertThat(await(w.submit(GRAPH, new byte[1])).status()).isEqualTo(UromStatus.BAD_STATE);
        w.close();
        assertThat(w.state()).isEqualTo(Worker.State.IDLE);
    }

    @Test
    void submitBeforeStartIsBadState() throws Exception {
        Worker w = service.newWorker().build();
        assertThat(await(w.submit(GRAPH, new byte[1], new byte[] {1})))
                .isEqualTo(new Notification(UromStatus.BAD_STATE, new byte[0], new byte[] {1}));
        assertThatThrownBy(() -> w.submit(GRAPH, new byte[1], new byte[33]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("user data of 33 bytes is over the limit of 32");
    }

    @Test
    void aCommandForAPluginTheWorkerLacksIsAnsweredNotFound() throws Exception {
        Worker w = runningWorker(service.newWorker().plugins(GRAPH));
        byte[] wire = ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(0)
                .putLong(77)
                .array();
        assertThat(await(w.submit(0x4, wire)).status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(await(w.submit(GRAPH, wire)).payload()).isEqualTo(wire);
    }

    @Test
    void workersInfoDescribesEachWorkerInTheHostsOwnTerms() throws Exception {
        daemon.workersInfo = List.of(
                new ServiceWorker(3, 7, GRAPH, ServiceWorker.State.STARTING, -1, 0, 0, List.of()),
                new ServiceWorker(
                        4,
                        7,
                        GRAPH | 0x4,
                        ServiceWorker.State.RUNNING,
                        4242,
                        75_000,
                        -1,
                        List.of("worker_graph", "worker_sandbox")));

        assertThat(service.workersInfo(UromService.ALL_GROUPS))
                .containsExactly(
                        new WorkerInfo(3, 7, GRAPH, WorkerInfo.State.STARTING, -1, 0, 0, List.of()),
                        new WorkerInfo(
                                4,
                                7,
                                GRAPH | 0x4,
                                WorkerInfo.State.RUNNING,
                                4242,
                                75_000,
                                -1,
                                List.of("worker_graph", "worker_sandbox")));
    }

    @Test
    void aPluginIsNativeOrJava() {
        assertThatThrownBy(() -> new Plugin(new PluginInfo(GRAPH, 1, "worker_graph"), "wasm"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("plugin kind 'wasm' is neither 'native' nor 'java'");
        assertThat(GRAPH_PLUGIN.id()).isEqualTo(GRAPH);
        assertThat(SANDBOX_PLUGIN.name()).isEqualTo("worker_sandbox");
    }

    @Test
    void pluginVersionsRequireTheExpectedVersion() throws Exception {
        List<Plugin> plugins = service.plugins();
        assertThat(PluginVersions.require(plugins, "worker_graph", 1)).isEqualTo(GRAPH_PLUGIN);
        assertThatThrownBy(() -> PluginVersions.require(plugins, "worker_graph", 2))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.UNSUPPORTED_VERSION))
                .hasMessage("plugin worker_graph has version 1; this host was written for 2");
        assertThatThrownBy(() -> PluginVersions.require(plugins, "worker_rdmo", 1))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND))
                .hasMessage("plugin worker_rdmo is not offered by the service");
    }

    @Test
    void unansweredControlRequestTimesOut() throws Exception {
        try (UromService impatient =
                UromService.connect(daemon.address.toString(), java.util.Optional.empty(), Duration.ofMillis(300))) {
            daemon.silent = true;
            assertThatThrownBy(impatient::plugins)
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.TIME_OUT))
                    .hasMessage("no answer from " + daemon.address + " to PLUGINS within 300 ms");
        }
    }

    @Test
    void lostControlConnectionIsNotConnected() throws Exception {
        daemon.close();
        assertThatThrownBy(service::plugins)
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_CONNECTED))
                .message()
                .matches("(connection to " + daemon.address + " lost: .+|cannot send PLUGINS to " + daemon.address
                        + ": .+)");
    }

    @Test
    void builderRefusesBadSettings() {
        assertThatThrownBy(() -> service.newWorker().maxInflight(48))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max in-flight 48 is not a power of two");
        assertThatThrownBy(() -> service.newWorker().env("NOVALUE"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("env entry 'NOVALUE' is not NAME=value");
        assertThatThrownBy(() -> service.newWorker().cpus(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cpu -1 is negative");
    }
}
