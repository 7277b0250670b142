package dev.urom.plugins.sandbox;

import static dev.urom.plugins.sandbox.SandboxJavaPeers.DOMAIN_A;
import static dev.urom.plugins.sandbox.SandboxJavaPeers.DOMAIN_B;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.worker.PluginFailure;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.plugins.sandbox.SandboxCommand.MemMap;
import dev.urom.plugins.sandbox.SandboxCommand.TagRecv;
import dev.urom.plugins.sandbox.SandboxCommand.TagSend;
import dev.urom.plugins.sandbox.SandboxNotification.MemMapDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagRecvDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagSendDone;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Two {@link SandboxPlugin}s in two worker hosts of one JVM, talking over UCP. */
class SandboxPluginJavaTest {
    private static final long PING = 0x1234;
    private static final long PONG = 0x5678;
    private static final long MASK = 0xffff;

    @TempDir
    Path dir;

    private SandboxJavaPeers peers;
    private Path shmFile;

    @BeforeEach
    void openPeers() {
        peers = SandboxJavaPeers.javaOnly(dir);
    }

    @AfterEach
    void closePeers() throws IOException {
        peers.close();
        if (shmFile != null) {
            Files.deleteIfExists(shmFile);
        }
    }

    @Test
    void pingPongInline() {
        byte[] ping = "ping".getBytes(StandardCharsets.UTF_8);
        byte[] pong = "pong!".getBytes(StandardCharsets.UTF_8);
        long recvB = peers.context();
        peers.submit(peers.b, new TagRecv(recvB, 0, 64, PING, MASK, 0));

        assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_B, PING, ping)));
        assertReceived(peers.await(peers.b, recvB), recvB, PING, ping);

        long recvA = peers.context();
        peers.submit(peers.a, new TagRecv(recvA, 0, 64, PONG, MASK, 0));
        assertSendSucceeded(peers.call(peers.b, inlineSend(DOMAIN_A, PONG, pong)));
        assertReceived(peers.await(peers.a, recvA), recvA, PONG, pong);
    }

    @Test
    void aMessageThatArrivesFirstWaitsForItsReceive() throws UromException {
        byte[] data = {1, 2, 3};
        assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_B, PING, data)));
        SandboxPlugin b = (SandboxPlugin) SandboxJavaPeers.plugin(peers.b);
        long deadline = System.nanoTime() + SandboxJavaPeers.TIMEOUT.toNanos();
        while (!b.messageWaiting(PING, MASK)) {
            peers.progressBoth();
            assertThat(System.nanoTime() - deadline).as("the message reached B's unexpected queue in time").isNegative();
        }

        TagRecv receive = new TagRecv(peers.context(), 0, 3, PING, MASK, 0);
        b.workerCommand(new WorkerCommand(7, SandboxJavaPeers.PLUGIN_ID, receive.context(), receive.encode()));
        assertThat(b.answersReady()).as("a receive of a message already there is answered at once").isEqualTo(1);
        assertReceived(peers.await(peers.b, receive.context()), receive.context(), PING, data);
        assertThat(b.messageWaiting(PING, MASK)).isFalse();
    }

    @Test
    void theOldestMatchingReceiveTakesEachMessageUnderItsMask() {
        long anyLow = peers.context();
        long exact = peers.context();
        peers.submit(peers.b, new TagRecv(exact, 0, 8, 0xAB_1234L, -1L, 0));
        peers.submit(peers.b, new TagRecv(anyLow, 0, 8, 0xFF_1234L, MASK, 0));
        peers.progressBoth();

        assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_B, 0x77_1234L, new byte[] {7})));
        assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_B, 0xAB_1234L, new byte[] {8})));

        assertReceived(peers.await(peers.b, anyLow), anyLow, 0x77_1234L, new byte[] {7});
        assertReceived(peers.await(peers.b, exact), exact, 0xAB_1234L, new byte[] {8});
    }

    @Test
    void aMessageLongerThanTheReceiveIsTooBig() {
        long receive = peers.context();
        peers.submit(peers.b, new TagRecv(receive, 0, 4, PING, MASK, 0));
        assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_B, PING, new byte[5])));

        WorkerNotification answer = peers.await(peers.b, receive);

        assertThat(answer.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(answer.payload()).isEqualTo(new TagRecvDone(receive, 1, 0, PING, UromStatus.TOO_BIG, new byte[0]).encode());
    }

    @Test
    void sendAndReceiveThroughMappedRegions() throws IOException {
        shmFile = Path.of("/dev/shm", "urom-sandbox-java-test-" + UUID.randomUUID());
        byte[] initial = new byte[4096];
        for (int i = 0; i < initial.length; i++) {
            initial[i] = (byte) (i * 7);
        }
        Files.write(shmFile, initial);
        byte[] path = shmFile.toString().getBytes(StandardCharsets.UTF_8);
        long memhA = mapped(peers.call(peers.a, new MemMap(peers.context(), 4096, path)));
        long memhB = mapped(peers.call(peers.b, new MemMap(peers.context(), 4096, path)));
        long memhB2 = mapped(peers.call(peers.b, new MemMap(peers.context(), 1024, path)));
        assertThat(memhA).isEqualTo(1);
        assertThat(new long[] {memhB, memhB2}).containsExactly(1, 2);

        long receive = peers.context();
        peers.submit(peers.b, new TagRecv(receive, 3000, 200, PING, MASK, memhB));
        assertSendSucceeded(peers.call(peers.a, new TagSend(peers.context(), DOMAIN_B, 100, 150, PING, memhA, new byte[0])));
        WorkerNotification answer = peers.await(peers.b, receive);

        assertThat(answer.payload()).isEqualTo(new TagRecvDone(receive, 3000, 150, PING, UromStatus.SUCCESS, new byte[0]).encode());
        byte[] after = Files.readAllBytes(shmFile);
        assertThat(Arrays.copyOfRange(after, 3000, 3150)).isEqualTo(Arrays.copyOfRange(initial, 100, 250));
        assertThat(Arrays.copyOfRange(after, 0, 3000)).isEqualTo(Arrays.copyOfRange(initial, 0, 3000));
        assertThat(Arrays.copyOfRange(after, 3150, 4096)).isEqualTo(Arrays.copyOfRange(initial, 3150, 4096));
    }

    @Test
    void aRegionMessageOfSeveralMebibytesArrivesWhole() throws IOException {
        int size = 3 << 20;
        byte[] initial = new byte[2 * size];
        new Random(11).nextBytes(initial);
        shmFile = Files.write(Path.of("/dev/shm", "urom-sandbox-java-test-" + UUID.randomUUID()), initial);
        byte[] path = shmFile.toString().getBytes(StandardCharsets.UTF_8);
        long memhA = mapped(peers.call(peers.a, new MemMap(peers.context(), 2L * size, path)));
        long memhB = mapped(peers.call(peers.b, new MemMap(peers.context(), 2L * size, path)));

        long receive = peers.context();
        peers.submit(peers.b, new TagRecv(receive, size, size, PING, MASK, memhB));
        assertSendSucceeded(peers.call(peers.a, new TagSend(peers.context(), DOMAIN_B, 0, size, PING, memhA, new byte[0])));

        assertThat(peers.await(peers.b, receive).payload())
                .isEqualTo(new TagRecvDone(receive, size, size, PING, UromStatus.SUCCESS, new byte[0]).encode());
        byte[] after = Files.readAllBytes(shmFile);
        assertThat(Arrays.equals(after, size, 2 * size, initial, 0, size)).as("the region's second half holds its first").isTrue();
    }

    @Test
    void memMapRefusesPathsOutsideSharedMemoryMissingFilesAndBadLengths() throws IOException {
        Path outside = Files.write(dir.resolve("region"), new byte[64]);
        assertRefused(peers.a, new MemMap(peers.context(), 64, bytes(outside.toString())), UromStatus.NOT_PERMITTED);
        assertRefused(peers.a, new MemMap(peers.context(), 64, bytes("/dev/shm/../etc/passwd")), UromStatus.NOT_PERMITTED);
        assertRefused(peers.a, new MemMap(peers.context(), 64, bytes("/dev/shm/urom-missing-" + UUID.randomUUID())), UromStatus.NOT_FOUND);

        shmFile = Files.write(Path.of("/dev/shm", "urom-sandbox-java-test-" + UUID.randomUUID()), new byte[64]);
        assertRefused(peers.a, new MemMap(peers.context(), 65, bytes(shmFile.toString())), UromStatus.INVALID_VALUE);
        assertRefused(peers.a, new MemMap(peers.context(), 0, bytes(shmFile.toString())), UromStatus.INVALID_VALUE);
        assertThat(mapped(peers.call(peers.a, new MemMap(peers.context(), 64, bytes(shmFile.toString()))))).isEqualTo(1);
        assertRefused(peers.a, new TagSend(peers.context(), DOMAIN_B, 0, 8, PING, 9, new byte[0]), UromStatus.NOT_FOUND);
        assertRefused(peers.a, new TagSend(peers.context(), DOMAIN_B, 60, 8, PING, 1, new byte[0]), UromStatus.INVALID_VALUE);
        assertRefused(peers.a, new TagRecv(peers.context(), 0, 65, PING, MASK, 1), UromStatus.INVALID_VALUE);
    }

    @Test
    void memMapRefusesEveryPathThroughASymbolicLinkAndTheTargetStaysAsItWas() throws IOException {
        byte[] secret = new byte[4096];
        Arrays.fill(secret, (byte) 0x5e);
        Path outside = Files.createDirectory(dir.resolve("outside"));
        Path target = Files.write(outside.resolve("secret.bin"), secret);
        try (ShmScratch shm = new ShmScratch()) {
            Map<String, Path> throughLinks = shm.pathsThroughLinksTo(target);
            for (Map.Entry<String, Path> link : throughLinks.entrySet()) {
                WorkerNotification answer = peers.call(peers.a, new MemMap(peers.context(), 4096, bytes(link.getValue().toString())));
                assertThat(answer.status()).as(link.getKey()).isEqualTo(UromStatus.NOT_PERMITTED);
            }
            for (long memh = 1; memh <= throughLinks.size(); memh++) {
                assertRefused(peers.a, new TagRecv(peers.context(), 0, 4096, PING, MASK, memh), UromStatus.NOT_FOUND);
            }
            long receive = peers.context();
            peers.submit(peers.a, new TagRecv(receive, 0, 4096, PING, MASK, 0));
            assertSendSucceeded(peers.call(peers.b, inlineSend(DOMAIN_A, PING, new byte[] {1, 2, 3})));
            assertReceived(peers.await(peers.a, receive), receive, PING, new byte[] {1, 2, 3});
        }
        assertThat(Files.readAllBytes(target)).as("the link target").isEqualTo(secret);
    }

    @ParameterizedTest(name = "UROM_OWNER_UID=''{0}''")
    @ValueSource(strings = {"", "abc", "-1", "+7", " 7", "7 ", "0x10", "4294967295", "99999999999999999999"})
    void aMalformedUromOwnerUidKeepsThePluginFromOpening(String value) {
        Map<String, String> environment = Map.of(FileOwners.VARIABLE, value);
        try (WorkerHost host = WorkerHost.open(3, List.of(new PluginSpec(dir.resolve("worker_sandbox_java.jar"), SandboxJavaPeers.PLUGIN_ID)),
                path -> new SandboxPlugin(environment::get), WorkerHostConfig.defaults())) {
            PluginFailure failure = host.failures().get(SandboxJavaPeers.PLUGIN_ID);
            assertThat(failure).as("the open failure").isNotNull();
            assertThat(failure.status()).isEqualTo(UromStatus.BAD_CONFIG);
            assertThat(failure.reason()).contains("UROM_OWNER_UID='" + value + "' is not a decimal uid");
        }
    }

    @Test
    void unknownTypesShortCommandsAndUnknownPeersAreRefused() {
        long context = peers.context();
        peers.a.submit(new WorkerCommand(7, SandboxJavaPeers.PLUGIN_ID, context, ByteBuffer.allocate(16).putLong(0x0400000000000000L).array()));
        assertThat(peers.await(peers.a, context).status()).isEqualTo(UromStatus.NOT_SUPPORTED);

        long shortOne = peers.context();
        peers.a.submit(new WorkerCommand(7, SandboxJavaPeers.PLUGIN_ID, shortOne, new byte[] {2, 0, 0, 0, 0, 0, 0, 0, 1}));
        assertThat(peers.await(peers.a, shortOne).status()).isEqualTo(UromStatus.INVALID_VALUE);

        assertRefused(peers.a, inlineSend(42, PING, new byte[] {1}), UromStatus.NOT_FOUND);
    }

    @Test
    void aMessageAlreadyThereThatIsLongerThanTheReceiveIsTooBigAtOnce() {
        assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_B, PONG, new byte[9])));
        SandboxPlugin b = (SandboxPlugin) SandboxJavaPeers.plugin(peers.b);
        long deadline = System.nanoTime() + SandboxJavaPeers.TIMEOUT.toNanos();
        while (!b.messageWaiting(PONG, MASK)) {
            peers.progressBoth();
            assertThat(System.nanoTime() - deadline).as("the message reached B in time").isNegative();
        }
        long receive = peers.context();
        peers.submit(peers.b, new TagRecv(receive, 0, 8, PONG, MASK, 0));

        WorkerNotification answer = peers.await(peers.b, receive);
        assertThat(answer.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(answer.payload()).isEqualTo(new TagRecvDone(receive, 1, 0, PONG, UromStatus.TOO_BIG, new byte[0]).encode());
        assertThat(b.messageWaiting(PONG, MASK)).as("the message was consumed").isFalse();
    }

    @Test
    void theTransportIsUcpTagAndTheAddressIsTheUcpWorkerAddress() throws UromException {
        SandboxPlugin a = (SandboxPlugin) SandboxJavaPeers.plugin(peers.a);

        assertThat(a.transport()).contains("ucp-tag");
        assertThat(peers.addressOf(DOMAIN_A)).isNotEmpty().isNotEqualTo(peers.addressOf(DOMAIN_B));
        assertThat(a.wakeupFd()).isPresent();
        assertThat(new SandboxPlugin().wakeupFd()).as("before open").isEmpty();
        assertThat(new SandboxPlugin().transport()).as("before open").contains("ucp-tag");
    }

    @Test
    void oneEndpointPerPeerIsKept() {
        for (int i = 0; i < 3; i++) {
            assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_B, PING, new byte[] {(byte) i})));
        }
        assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_A, PING, new byte[] {9})));

        assertThat(((SandboxPlugin) SandboxJavaPeers.plugin(peers.a)).endpoints()).isEqualTo(2);
    }

    @Test
    void theWakeupFdIsReadableOnceAMessageArrivesForAPostedReceive() throws UromException {
        assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_B, 0x99, new byte[] {1})));
        long warmUp = peers.context();
        assertReceived(peers.call(peers.b, new TagRecv(warmUp, 0, 8, 0x99, MASK, 0)), warmUp, 0x99, new byte[] {1});
        SandboxPlugin b = (SandboxPlugin) SandboxJavaPeers.plugin(peers.b);
        long receive = peers.context();
        peers.submit(peers.b, new TagRecv(receive, 0, 8, PING, MASK, 0));
        long deadline = System.nanoTime() + SandboxJavaPeers.TIMEOUT.toNanos();
        while (!b.armWakeup()) {
            peers.progressBoth();
            assertThat(System.nanoTime() - deadline).as("B armed in time, the receive posted and nothing ready").isNegative();
        }
        assertThat(WakeupFds.readable(b.wakeupFd().getAsInt(), 0)).as("nothing arrived yet").isFalse();

        peers.a.submit(new WorkerCommand(7, SandboxJavaPeers.PLUGIN_ID, peers.context(),
                inlineSend(DOMAIN_B, PING, new byte[] {4, 2}).encode()));
        while (peers.unclaimed(peers.a).isEmpty()) {
            peers.a.progress(peers.unclaimed(peers.a)::add);
            assertThat(System.nanoTime() - deadline).as("A's send was answered in time").isNegative();
        }

        assertThat(WakeupFds.readable(b.wakeupFd().getAsInt(), (int) SandboxJavaPeers.TIMEOUT.toMillis()))
                .as("B's wake-up fd once the message was sent").isTrue();
        List<WorkerNotification> answers = new ArrayList<>();
        while (answers.isEmpty()) {
            b.progress(answers);
            assertThat(System.nanoTime() - deadline).as("B answered in time").isNegative();
        }
        assertThat(answers).extracting(WorkerNotification::uromContext).containsExactly(receive);
    }

    @Test
    void armWakeupIsFalseWhileAnswersWait() throws UromException, IOException {
        SandboxPlugin a = (SandboxPlugin) SandboxJavaPeers.plugin(peers.a);
        shmFile = Path.of("/dev/shm", "urom-sandbox-java-test-" + UUID.randomUUID());
        Files.write(shmFile, new byte[64]);
        peers.submit(peers.a, new MemMap(peers.context(), 64, bytes(shmFile.toString())));

        assertThat(a.armWakeup()).as("the MEM_MAP answer waits for progress").isFalse();
    }

    @Test
    void aPeerThatDiesFailsTheSendsInFlightWithConnectionResetAndDropsTheEndpoint() throws IOException {
        // A full round trip first: UCX 1.13.1 aborts (an assertion in ucp_request.c) when a worker is
        // destroyed while its wire-up answer to a new peer is still queued.
        long warmUp = peers.context();
        peers.submit(peers.b, new TagRecv(warmUp, 0, 8, PONG, MASK, 0));
        assertSendSucceeded(peers.call(peers.b, inlineSend(DOMAIN_A, PING, new byte[] {1})));
        assertSendSucceeded(peers.call(peers.a, inlineSend(DOMAIN_B, PONG, new byte[] {1})));
        assertReceived(peers.await(peers.b, warmUp), warmUp, PONG, new byte[] {1});
        int size = 1 << 20;
        shmFile = Files.write(Path.of("/dev/shm", "urom-sandbox-java-test-" + UUID.randomUUID()), new byte[size]);
        long memh = mapped(peers.call(peers.b, new MemMap(peers.context(), size, bytes(shmFile.toString()))));
        TagSend large = new TagSend(peers.context(), DOMAIN_A, 0, size, PING, memh, new byte[0]);
        peers.submit(peers.b, large);
        List<WorkerNotification> none = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            peers.b.progress(none::add);
        }
        assertThat(none).as("a rendezvous send waits for the receiver, which does not progress").isEmpty();

        SandboxJavaPeers.plugin(peers.a).close();

        WorkerNotification answer = peers.await(peers.b, large.context());
        assertThat(answer.status()).isEqualTo(UromStatus.CONNECTION_RESET);
        assertThat(answer.payload()).isEqualTo(new TagSendDone(large.context(), UromStatus.CONNECTION_RESET).encode());
        SandboxPlugin b = (SandboxPlugin) SandboxJavaPeers.plugin(peers.b);
        assertThat(b.endpoints()).as("the failed endpoint was dropped").isZero();
        assertRefused(peers.b, inlineSend(DOMAIN_A, PING, new byte[] {2}), UromStatus.NOT_CONNECTED);
    }

    private TagSend inlineSend(long dest, long tag, byte[] data) {
        return new TagSend(peers.context(), dest, 0, data.length, tag, 0, data);
    }

    private void assertRefused(WorkerHost host, SandboxCommand command, UromStatus status) {
        WorkerNotification answer = peers.call(host, command);
        assertThat(answer.status()).as("status of %s", command).isEqualTo(status);
        assertThat(answer.payload()).as("a refused command has no payload").isEmpty();
    }

    private static void assertSendSucceeded(WorkerNotification answer) {
        assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(answer.payload()).isEqualTo(new TagSendDone(answer.uromContext(), UromStatus.SUCCESS).encode());
    }

    private static void assertReceived(WorkerNotification answer, long context, long tag, byte[] data) {
        assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(answer.payload()).isEqualTo(new TagRecvDone(context, 1, data.length, tag, UromStatus.SUCCESS, data).encode());
    }

    private static long mapped(WorkerNotification answer) {
        assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
        SandboxNotification decoded = SandboxNotification.decode(answer.payload());
        assertThat(decoded).isInstanceOf(MemMapDone.class);
        assertThat(((MemMapDone) decoded).context()).isEqualTo(answer.uromContext());
        return ((MemMapDone) decoded).memhId();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

}
