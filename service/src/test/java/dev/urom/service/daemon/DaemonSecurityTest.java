// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.service.daemon.testing.Await;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.service.daemon.testing.DaemonLog;
import dev.urom.service.daemon.testing.RawConnection;
import dev.urom.service.testkit.TestKeys;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.DomainPeer;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.AddressRequest;
import dev.urom.wire.Message.Challenge;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.DomainSet;
import dev.urom.wire.Message.DomainSetReply;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.Proof;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Message.WorkersInGroupReply;
import dev.urom.wire.Message.WorkersInGroupRequest;
import dev.urom.wire.Message.WorkersInfoReply;
import dev.urom.wire.Message.WorkersInfoRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.ServiceWorker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks on a daemon's control plane, each tried against one TCP daemon with a key
 * directory of four principals and real worker processes ({@code WorkerMain}) that run the graph
 * sample plugin, compiled from its source. Alice owns worker {@value #ALICE_WORKER} (group {@value
 * #GROUP}) for the whole class, connected through the Java host API; each test ends by checking that
 * her LOOPBACK still round-trips on the same worker process. Bob holds a key of his own and tries to
 * reach her worker; hosts without a key, with a wrong key or with an unknown name try to get in at
 * all; carol and dave share out the per-principal quota. Key principals over TCP work for any Unix
 * user, so the class runs as root and as any other user alike.
 */
class DaemonSecurityTest {
    private static final long ALICE_WORKER = 5;
    private static final long GROUP = 77;
    private static final int QUOTA = 2;
    /** Alice's LOOPBACKs in flight while bob tries her worker: fewer than her connection's in-flight limit. */
    private static final int LOOPBACKS = 50;

    private static final String GRAPH_SOURCE = "../plugins/graph/src/main/c/worker_graph.c";

    @TempDir
    static Path dir;

    private static Path keys;
    private static DaemonLog log;
    private static Daemon daemon;
    private static String address;
    private static long graphId;
    private static UromService alice;
    private static Worker aliceWorker;
    private static long aliceWorkerPid;
    private static ServiceAddress aliceWorkerAddress;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void startDaemonAndAlicesWorker() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        NativeFixtures.compilePlugin(
                plugins, "worker_graph.so", Files.readString(Path.of(GRAPH_SOURCE)), "-Wextra", "-Werror");
        keys = TestKeys.directory(dir, "alice", "bob", "carol", "dave");
        DaemonConfig config = Daemon.configureLogging(DaemonConfig.builder()
                .listen(ServiceAddress.tcp("127.0.0.1", 0))
                .logDir(dir.resolve("log"))
                .pluginPath(plugins.toString())
                .workerIdleTimeout(Duration.ofMinutes(10))
                .security(TestWorkers.security().toBuilder()
                        .authKeys(keys)
                        .maxWorkersPerPrincipal(QUOTA)
                        .build())
                .build());
        log = new DaemonLog(Daemon.logFile(config));
        daemon = Daemon.start(config);
        address = daemon.address().toString();

        alice = UromService.connect(address, key("alice"));
        graphId = alice.plugins().stream()
                .filter(p -> p.name().equals("worker_graph"))
                .mapToLong(Plugin::id)
                .findFirst()
                .orElseThrow();
        aliceWorker =
                alice.newWorker().id(ALICE_WORKER).gid(GROUP).plugins(graphId).build();
        aliceWorker.start().get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        WorkerInfo info = worker(ALICE_WORKER);
        aliceWorkerPid = info.pid();
        aliceWorkerAddress = ServiceAddress.parse(info.address());
        assertThat(info.owner()).isEqualTo(Principal.key("alice"));
        assertAliceIsUnaffected();
    }

    @AfterAll
    static void stopEverything() {
        if (aliceWorker != null) {
            aliceWorker.close();
        }
        if (alice != null) {
            alice.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        Configurator.reconfigure();
    }

    @AfterEach
    void closeConnectionsAndCheckOnAlice() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        assertAliceIsUnaffected();
    }

    private static AuthKey key(String principal) {
        return TestKeys.key(keys, principal);
    }

    private static WorkerInfo worker(long id) {
        return daemon.workers().stream()
                .filter(w -> w.id() == id)
                .findFirst()
                .orElseThrow(() -> new AssertionError("the daemon has no worker " + id + ": " + daemon.workers()));
    }

    /** Alice's worker is the same process, still hers, still in her group, and answers her LOOPBACK. */
    private static void assertAliceIsUnaffected() throws Exception {
        long value = System.nanoTime();
        assertThat(GraphClient.loopback(aliceWorker, graphId, value).get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .isEqualTo(value);
        WorkerInfo info = worker(ALICE_WORKER);
        assertThat(info.pid()).isEqualTo(aliceWorkerPid);
        assertThat(info.owner()).isEqualTo(Principal.key("alice"));
        assertThat(alice.workersInGroup(GROUP)).containsExactly(ALICE_WORKER);
    }

    private ControlClient control(String principal) throws Exception {
        ControlClient client = ControlClient.connect(daemon.address(), Optional.of(key(principal)));
        opened.add(client);
        return client;
    }

    private RawConnection raw(ServiceAddress to) throws IOException {
        RawConnection connection = RawConnection.open(to);
        opened.add(connection);
        return connection;
    }

    private UromService service(String principal) throws UromException {
        UromService service = UromService.connect(address, key(principal));
        opened.add(service);
        return service;
    }

    /** How the daemon's log names a connection from local port {@code port}. */
    private static String peer(int port) {
        return "(127.0.0.1:" + port + ")";
    }

    private static int localPort(ControlClient client) throws IOException {
        return ((InetSocketAddress) client.socket().getLocalAddress()).getPort();
    }

    /** Runs a control handshake proving {@code key} on a new connection; the daemon's refusal, with the connection's local port. */
    private record Refused(UromException failure, int port) {}

    private Refused refusedHandshake(Optional<AuthKey> key) throws Exception {
        RawConnection connection = raw(daemon.address());
        try {
            HelloOk ok = ControlClient.handshake(connection.channel(), key);
            throw new AssertionError("the daemon admitted " + key + " as " + ok.principal());
        } catch (UromException e) {
            return new Refused(e, connection.localPort());
        }
    }

    private static void assertOneLine(String message) {
        assertThat(message).isNotBlank().doesNotContain("\n").doesNotContain("\r");
    }

    @Test
    void aHostWithoutAKeyGetsOneAuthenticationErrorAndNothingElseEvenForRequestsSentAlongWithItsHello()
            throws Exception {
        List<WorkerInfo> before = daemon.workers();
        RawConnection host = raw(daemon.address());
        host.sendAtOnce(
                Hello.of(Role.HOST),
                new PluginsRequest(),
                new WorkersInGroupRequest(Protocol.ALL_GROUPS),
                new WorkerStartRequest(Protocol.ANY_WORKER, graphId, GROUP, List.of(), List.of()));

        Message answer = host.receive();

        assertThat(answer)
                .isEqualTo(new ErrorReply(
                        UromStatus.AUTHENTICATION,
                        "this daemon admits TCP hosts that prove a key: give one with --auth-key-file or "
                                + AuthKey.ENVIRONMENT_VARIABLE));
        assertOneLine(((ErrorReply) answer).message());
        assertThat(host.next()).as("anything after the refusal").isEmpty();
        assertThat(log.awaitLinesWith(peer(host.localPort())))
                .singleElement()
                .asString()
                .contains("WARN")
                .contains("refused at the handshake: AUTHENTICATION this daemon admits TCP hosts that prove a key");
        assertThat(daemon.workers()).isEqualTo(before);

        assertThatThrownBy(() -> UromService.connect(address, Optional.empty()))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.AUTHENTICATION))
                .hasMessage(address
                        + " refused the connection: this daemon admits TCP hosts that prove a key: give one with"
                        + " --auth-key-file or " + AuthKey.ENVIRONMENT_VARIABLE);
    }

    @Test
    void aHostThatSkipsTheHelloOrSaysItIsAWorkerGetsNoAnswerToItsRequest() throws Exception {
        RawConnection skipper = raw(daemon.address());
        skipper.send(1, new PluginsRequest());
        assertThat(skipper.receive())
                .isEqualTo(new ErrorReply(UromStatus.UNEXPECTED, "the first message must be HELLO, not PLUGINS"));
        assertThat(skipper.next()).isEmpty();

        RawConnection worker = raw(daemon.address());
        worker.sendAtOnce(Hello.of(Role.WORKER, "alice"), new PluginsRequest());
        assertThat(worker.receive())
                .isEqualTo(new ErrorReply(
                        UromStatus.NOT_PERMITTED, "the daemon serves hosts; this connection said it is a WORKER"));
        assertThat(worker.next()).isEmpty();

        RawConnection badName = raw(daemon.address());
        badName.send(0, Hello.of(Role.HOST, "../alice"));
        assertThat(badName.receive())
                .isEqualTo(new ErrorReply(UromStatus.AUTHENTICATION, "the key name claimed is not a valid key name"));
        assertThat(badName.next()).isEmpty();

        for (RawConnection refused : List.of(skipper, worker, badName)) {
            assertThat(log.awaitLinesWith(peer(refused.localPort()), "refused at the handshake"))
                    .hasSize(1);
        }
    }

    @Test
    void aWrongKeyAndAnUnknownNameGetTheSameAuthenticationRefusalAndTheLogSaysWhichItWas() throws Exception {
        Refused wrongKey = refusedHandshake(Optional.of(AuthKey.of("bob", Proofs.randomSecret(32))));
        Refused unknownName = refusedHandshake(Optional.of(AuthKey.of("mallory", Proofs.randomSecret(32))));
        Refused bobAsAlice = refusedHandshake(Optional.of(AuthKey.of("alice", Proofs.controlKey(key("bob")))));

        for (Refused refused : List.of(wrongKey, unknownName, bobAsAlice)) {
            assertThat(refused.failure().status()).isEqualTo(UromStatus.AUTHENTICATION);
            assertOneLine(refused.failure().getMessage());
        }
        assertThat(wrongKey.failure())
                .hasMessage("authentication failed: the proof does not match the key of principal 'bob'");
        assertThat(unknownName.failure().getMessage().replace("'mallory'", "'bob'"))
                .isEqualTo(wrongKey.failure().getMessage());
        assertThat(bobAsAlice.failure())
                .hasMessage("authentication failed: the proof does not match the key of principal 'alice'");

        assertThat(log.awaitLinesWith(peer(wrongKey.port())))
                .singleElement()
                .asString()
                .contains(
                        "refused at the handshake: AUTHENTICATION principal 'bob' refused: its proof does not match the key");
        assertThat(log.awaitLinesWith(peer(unknownName.port())))
                .singleElement()
                .asString()
                .contains("refused at the handshake: AUTHENTICATION principal 'mallory' refused: the key directory "
                        + keys + " has no usable key for it");
        assertThat(log.awaitLinesWith(peer(bobAsAlice.port())))
                .singleElement()
                .asString()
                .contains("principal 'alice' refused: its proof does not match the key");

        assertThat(control("bob").call(new PluginsRequest())).isInstanceOf(PluginsReply.class);
    }

    @Test
    void aRecordedProofOfAlicesIsWorthNothingOnAnotherConnection() throws Exception {
        byte[] clientNonce = Proofs.nonce();
        RawConnection recorded = raw(daemon.address());
        recorded.send(0, new Hello(Protocol.MAGIC, Protocol.VERSION, Role.HOST, clientNonce, "alice"));
        Challenge first = (Challenge) recorded.receive();
        byte[] proof = Proofs.clientProof(
                Proofs.controlKey(key("alice")),
                new Proofs.Transcript(Proofs.Channel.CONTROL, Role.HOST.code(), "alice", clientNonce, first.nonce()));
        recorded.send(0, new Proof(proof));
        assertThat(recorded.receive())
                .isInstanceOfSatisfying(
                        HelloOk.class, ok -> assertThat(ok.principal()).isEqualTo("key:alice"));

        RawConnection replay = raw(daemon.address());
        replay.send(0, new Hello(Protocol.MAGIC, Protocol.VERSION, Role.HOST, clientNonce, "alice"));
        Challenge second = (Challenge) replay.receive();
        replay.send(0, new Proof(proof)).send(1, new PluginsRequest());

        assertThat(second.nonce()).isNotEqualTo(first.nonce());
        assertThat(replay.receive())
                .isEqualTo(new ErrorReply(
                        UromStatus.AUTHENTICATION,
                        "authentication failed: the proof does not match the key of principal 'alice'"));
        assertThat(replay.next()).isEmpty();
    }

    @Test
    void anotherPrincipalCanNeitherStartNorJoinAlicesWorkerAndLearnsNotEvenItsAddress() throws Exception {
        ControlClient bob = control("bob");
        WorkerStartReply sameRequest = bob.start(ALICE_WORKER, graphId, GROUP, List.of(), List.of());
        WorkerStartReply otherGroup = bob.start(ALICE_WORKER, graphId, 0, List.of(), List.of());

        for (WorkerStartReply reply : List.of(sameRequest, otherGroup)) {
            assertThat(reply.status()).isEqualTo(UromStatus.NOT_PERMITTED);
            assertThat(reply.message()).isEqualTo("worker 5 belongs to another principal");
            assertThat(reply.workerAddress()).isEmpty();
        }
        assertThat(log.awaitLinesWith(peer(localPort(bob))
                        + " as key:bob refused: NOT_PERMITTED worker 5 belongs to another principal"))
                .hasSize(2);

        Worker stolen = service("bob")
                .newWorker()
                .id(ALICE_WORKER)
                .gid(GROUP)
                .plugins(graphId)
                .build();
        assertThatThrownBy(() -> stolen.start().get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_PERMITTED))
                .hasMessage("worker 5 belongs to another principal");
        assertThat(stolen.state()).isEqualTo(Worker.State.IDLE);
    }

    @Test
    void workersInGroupListsOnlyTheCallersOwnWorkers() throws Exception {
        ControlClient bob = control("bob");
        WorkerStartReply own = bob.start(Protocol.ANY_WORKER, graphId, GROUP, List.of(), List.of());
        assertThat(own.status()).as(own.message()).isEqualTo(UromStatus.SUCCESS);
        assertThat(own.workerId()).isNotEqualTo(ALICE_WORKER);
        try {
            assertThat(((WorkersInGroupReply) bob.call(new WorkersInGroupRequest(GROUP))).workerIds())
                    .containsExactly(own.workerId());
            assertThat(((WorkersInGroupReply) bob.call(new WorkersInGroupRequest(Protocol.ALL_GROUPS))).workerIds())
                    .contains(own.workerId())
                    .doesNotContain(ALICE_WORKER);
            assertThat(alice.workersInGroup(GROUP)).containsExactly(ALICE_WORKER);
            assertThat(alice.workersInGroup(Protocol.ALL_GROUPS)).containsExactly(ALICE_WORKER);
            assertThat(worker(own.workerId()).owner()).isEqualTo(Principal.key("bob"));
        } finally {
            ProcessHandle.of(worker(own.workerId()).pid()).ifPresent(ProcessHandle::destroy);
        }
    }

    @Test
    void workersInfoDescribesOnlyTheCallersOwnWorkers() throws Exception {
        ControlClient bob = control("bob");
        WorkerStartReply own = bob.start(Protocol.ANY_WORKER, graphId, GROUP, List.of(), List.of());
        assertThat(own.status()).as(own.message()).isEqualTo(UromStatus.SUCCESS);
        try {
            List<ServiceWorker> bobs =
                    ((WorkersInfoReply) bob.call(new WorkersInfoRequest(Protocol.ALL_GROUPS))).workers();
            List<dev.urom.host.WorkerInfo> alices = alice.workersInfo(UromService.ALL_GROUPS);

            assertThat(bobs).extracting(ServiceWorker::id).containsExactly(own.workerId());
            assertThat(bobs.get(0).pid()).isEqualTo(worker(own.workerId()).pid());
            assertThat(bobs.get(0).state()).isEqualTo(ServiceWorker.State.RUNNING);
            assertThat(alices).extracting(dev.urom.host.WorkerInfo::id).containsExactly(ALICE_WORKER);
        } finally {
            ProcessHandle.of(worker(own.workerId()).pid()).ifPresent(ProcessHandle::destroy);
        }
    }

    @Test
    void anotherPrincipalCannotOpenAlicesWorkersDataSocketSoItCanNeitherTakeHerAnswersNorAskForAddressesNorSetADomain()
            throws Exception {
        ExecutorService aliceSends = Executors.newSingleThreadExecutor();
        try {
            Future<List<Long>> aliceEchoes = aliceSends.submit(() -> {
                List<CompletableFuture<Long>> answers = new ArrayList<>();
                for (long value = 1; value <= LOOPBACKS; value++) {
                    answers.add(GraphClient.loopback(aliceWorker, graphId, value));
                }
                List<Long> echoed = new ArrayList<>();
                for (CompletableFuture<Long> answer : answers) {
                    echoed.add(answer.get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS));
                }
                return echoed;
            });

            // bob is challenged like the owner, so he cannot tell a worker of another principal from a wrong key
            assertDataHandshakeRefused(
                    Optional.of(key("bob")),
                    UromStatus.AUTHENTICATION,
                    "authentication failed: the proof does not match the key of principal 'bob'");
            assertDataHandshakeRefused(
                    Optional.empty(), UromStatus.NOT_PERMITTED, "worker 5 belongs to another principal");
            assertDataHandshakeRefused(
                    Optional.of(AuthKey.of("alice", Proofs.controlKey(key("bob")))),
                    UromStatus.AUTHENTICATION,
                    "principal 'alice'",
                    "proof does not match the key");
            assertDataHandshakeRefused(
                    Optional.of(AuthKey.of("alice", Proofs.dataKey(key("bob")))),
                    UromStatus.AUTHENTICATION,
                    "principal 'alice'",
                    "proof does not match the key");

            RawConnection intruder = raw(aliceWorkerAddress);
            intruder.sendAtOnce(
                    Hello.of(Role.HOST, "bob"),
                    new Command(graphId, 1, GraphClient.loopbackCommand(42)),
                    new AddressRequest(graphId),
                    new DomainSet(0, List.of(new DomainPeer(0, List.of(), List.of()))));
            assertThat(intruder.receive()).isInstanceOf(Challenge.class);
            assertThat(intruder.receive())
                    .isEqualTo(new ErrorReply(
                            UromStatus.UNEXPECTED, "after CHALLENGE the peer must send PROOF, not COMMAND"));
            assertThat(intruder.next()).as("anything after the refusal").isEmpty();

            List<Long> expected = new ArrayList<>();
            for (long value = 1; value <= LOOPBACKS; value++) {
                expected.add(value);
            }
            assertThat(aliceEchoes.get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .isEqualTo(expected);
        } finally {
            aliceSends.shutdownNow();
        }
        assertTheOwnerGetsWhatTheIntruderAskedFor();
    }

    /** What bob sent alice's worker, asked by alice herself on a second data connection: served, so his refusal was about whose worker it is. */
    private void assertTheOwnerGetsWhatTheIntruderAskedFor() throws Exception {
        RawConnection owner = raw(aliceWorkerAddress);
        HelloOk ok = Handshake.client(
                owner.channel(), Role.HOST, Proofs.Channel.DATA, Optional.of(key("alice")), Await.PATIENCE);
        owner.channel().setFrameLimit(Protocol.dataFrameLimit(ok.maxMessageSize()));
        assertThat(ok.principal()).isEqualTo("key:alice");

        owner.send(7, new AddressRequest(graphId));
        AddressReply address = (AddressReply) owner.receive();
        assertThat(address.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(address.address()).hasSize(8);
        assertThat(address.seal()).hasSize(Proofs.MAC_BYTES);

        owner.send(
                8,
                new DomainSet(
                        0,
                        List.of(new DomainPeer(
                                0,
                                List.of(new DomainPeer.PluginAddress(graphId, address.address(), address.seal())),
                                List.of()))));
        assertThat(owner.receive()).isEqualTo(new DomainSetReply(UromStatus.SUCCESS, ""));
    }

    /** A data handshake with {@code key} at alice's worker is refused with {@code status} and one line holding each of {@code message}. */
    private void assertDataHandshakeRefused(Optional<AuthKey> key, UromStatus status, String... message)
            throws Exception {
        RawConnection connection = raw(aliceWorkerAddress);
        assertThatThrownBy(() ->
                        Handshake.client(connection.channel(), Role.HOST, Proofs.Channel.DATA, key, Await.PATIENCE))
                .as("a data connection to alice's worker with %s", key)
                .isInstanceOfSatisfying(UromException.class, e -> {
                    assertThat(e.status()).isEqualTo(status);
                    assertOneLine(e.getMessage());
                    assertThat(e.getMessage()).contains(message);
                });
        assertThat(connection.next()).isEmpty();
    }

    @Test
    void aPrincipalHasAtMostItsQuotaOfWorkersEvenWhenItAsksForMoreAtOnceAndOthersStillStartTheirs() throws Exception {
        List<ControlClient> carol = List.of(control("carol"), control("carol"), control("carol"));
        ExecutorService pool = Executors.newFixedThreadPool(carol.size());
        List<WorkerStartReply> replies = new ArrayList<>();
        try {
            List<Callable<WorkerStartReply>> starts = new ArrayList<>();
            for (ControlClient client : carol) {
                starts.add(() -> client.start(Protocol.ANY_WORKER, graphId, 3, List.of(), List.of()));
            }
            for (Future<WorkerStartReply> reply : pool.invokeAll(starts)) {
                replies.add(reply.get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }

        List<WorkerStartReply> started =
                replies.stream().filter(r -> r.status().isSuccess()).toList();
        List<WorkerStartReply> refused =
                replies.stream().filter(r -> !r.status().isSuccess()).toList();
        assertThat(started).hasSize(QUOTA);
        assertThat(refused).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(UromStatus.FULL);
            assertThat(r.message())
                    .isEqualTo("key:carol already has its maximum of 2 workers (--max-workers-per-principal)");
            assertThat(r.workerAddress()).isEmpty();
        });
        assertThat(
                        log.awaitLinesWith(
                                "as key:carol refused: FULL key:carol already has its maximum of 2 workers (--max-workers-per-principal)"))
                .hasSize(1);
        assertThat(daemon.workers().stream().filter(w -> w.owner().equals(Principal.key("carol"))))
                .hasSize(QUOTA);

        WorkerStartReply join = carol.get(0).start(started.get(0).workerId(), graphId, 3, List.of(), List.of());
        assertThat(join.status()).as("a join is not one more worker").isEqualTo(UromStatus.SUCCESS);
        assertThat(join.workerAddress()).isEqualTo(started.get(0).workerAddress());
        WorkerStartReply dave = control("dave").start(Protocol.ANY_WORKER, graphId, 3, List.of(), List.of());
        assertThat(dave.status()).as(dave.message()).isEqualTo(UromStatus.SUCCESS);

        for (WorkerStartReply reply : List.of(started.get(0), started.get(1), dave)) {
            ProcessHandle.of(worker(reply.workerId()).pid()).ifPresent(ProcessHandle::destroy);
        }
        Await.until(
                "carol's and dave's workers are gone",
                () -> daemon.workers().stream()
                        .noneMatch(w -> w.owner().equals(Principal.key("carol"))
                                || w.owner().equals(Principal.key("dave"))));
    }
}
