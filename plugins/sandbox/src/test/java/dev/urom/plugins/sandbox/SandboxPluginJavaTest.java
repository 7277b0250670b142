// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static dev.urom.plugins.sandbox.SandboxWorkers.await;
import static dev.urom.plugins.sandbox.SandboxWorkers.call;
import static dev.urom.plugins.sandbox.SandboxWorkers.send;
import static dev.urom.plugins.sandbox.TagCommands.tagRecv;
import static dev.urom.plugins.sandbox.TagCommands.tagSend;
import static dev.urom.testkit.PluginAssertions.assertThat;
import static dev.urom.testkit.PluginAssertions.assertThatThrownBy;

import dev.urom.plugins.sandbox.SandboxCommand.MemMap;
import dev.urom.plugins.sandbox.SandboxCommand.TagRecv;
import dev.urom.plugins.sandbox.SandboxCommand.TagSend;
import dev.urom.plugins.sandbox.SandboxNotification.MemMapDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagRecvDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagSendDone;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestDomain;
import dev.urom.testkit.TestWorker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

/** Two {@link SandboxPlugin}s in one test kit domain of this JVM, talking over UCP. */
class SandboxPluginJavaTest {
    private static final long PING = 0x1234;
    private static final long PONG = 0x5678;
    private static final long MASK = 0xffff;
    private static final long DOMAIN_A = 0;
    private static final long DOMAIN_B = 1;

    @TempDir
    Path dir;

    private TestDomain domain;
    private TestWorker a;
    private TestWorker b;
    private long nextContext = 1000;
    private Path shmFile;

    @BeforeEach
    void openPeers() {
        domain = SandboxWorkers.javaPlugin().openDomain(2);
        a = domain.worker(0);
        b = domain.worker(1);
    }

    @AfterEach
    void closePeers() throws IOException {
        domain.close();
        if (shmFile != null) {
            Files.deleteIfExists(shmFile);
        }
    }

    @Test
    void pingPongInline() {
        byte[] ping = "ping".getBytes(StandardCharsets.UTF_8);
        byte[] pong = "pong!".getBytes(StandardCharsets.UTF_8);
        long recvB = context();
        send(b, tagRecv(recvB).tag(PING, MASK).count(64).build());

        assertSendSucceeded(call(a, inlineSend(DOMAIN_B, PING, ping)));
        assertReceived(await(b, recvB), recvB, PING, ping);

        long recvA = context();
        send(a, tagRecv(recvA).tag(PONG, MASK).count(64).build());
        assertSendSucceeded(call(b, inlineSend(DOMAIN_A, PONG, pong)));
        assertReceived(await(a, recvA), recvA, PONG, pong);
    }

    @Test
    void aMessageThatArrivesFirstWaitsForItsReceive() throws UromException {
        byte[] data = {1, 2, 3};
        assertSendSucceeded(call(a, inlineSend(DOMAIN_B, PING, data)));
        SandboxPlugin pluginB = (SandboxPlugin) b.plugin();
        b.awaitCondition(() -> pluginB.messageWaiting(PING, MASK), "the message reached B's unexpected queue");

        TagRecv receive = tagRecv(context()).tag(PING, MASK).count(3).build();
        send(b, receive);
        assertThat(pluginB.answersReady())
                .as("a receive of a message already there is answered at once")
                .isEqualTo(1);
        assertReceived(await(b, receive.context()), receive.context(), PING, data);
        assertThat(pluginB.messageWaiting(PING, MASK)).isFalse();
    }

    @Test
    void theOldestMatchingReceiveTakesEachMessageUnderItsMask() {
        long anyLow = context();
        long exact = context();
        send(b, tagRecv(exact).tag(0xAB_1234L, -1L).count(8).build());
        send(b, tagRecv(anyLow).tag(0xFF_1234L, MASK).count(8).build());
        domain.progress();

        assertSendSucceeded(call(a, inlineSend(DOMAIN_B, 0x77_1234L, new byte[] {7})));
        assertSendSucceeded(call(a, inlineSend(DOMAIN_B, 0xAB_1234L, new byte[] {8})));

        assertReceived(await(b, anyLow), anyLow, 0x77_1234L, new byte[] {7});
        assertReceived(await(b, exact), exact, 0xAB_1234L, new byte[] {8});
    }

    @Test
    void aMessageLongerThanTheReceiveIsTooBig() {
        long receive = context();
        send(b, tagRecv(receive).tag(PING, MASK).count(4).build());
        assertSendSucceeded(call(a, inlineSend(DOMAIN_B, PING, new byte[5])));

        WorkerNotification answer = await(b, receive);

        assertThat(answer)
                .hasStatus(UromStatus.TOO_BIG)
                .hasPayload(new TagRecvDone(receive, 1, 0, PING, UromStatus.TOO_BIG, new byte[0]).encode());
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
        long memhA = mapped(call(a, new MemMap(context(), 4096, path)));
        long memhB = mapped(call(b, new MemMap(context(), 4096, path)));
        long memhB2 = mapped(call(b, new MemMap(context(), 1024, path)));
        assertThat(memhA).isEqualTo(1);
        assertThat(new long[] {memhB, memhB2}).containsExactly(1, 2);

        long receive = context();
        send(
                b,
                tagRecv(receive)
                        .tag(PING, MASK)
                        .count(200)
                        .buffer(3000)
                        .region(memhB)
                        .build());
        assertSendSucceeded(call(
                a,
                tagSend(context())
                        .to(DOMAIN_B)
                        .tag(PING)
                        .buffer(100)
                        .count(150)
                        .region(memhA)
                        .build()));
        WorkerNotification answer = await(b, receive);

        assertThat(answer.payload())
                .isEqualTo(new TagRecvDone(receive, 3000, 150, PING, UromStatus.SUCCESS, new byte[0]).encode());
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
        long memhA = mapped(call(a, new MemMap(context(), 2L * size, path)));
        long memhB = mapped(call(b, new MemMap(context(), 2L * size, path)));

        long receive = context();
        send(
                b,
                tagRecv(receive)
                        .tag(PING, MASK)
                        .count(size)
                        .buffer(size)
                        .region(memhB)
                        .build());
        assertSendSucceeded(call(
                a,
                tagSend(context())
                        .to(DOMAIN_B)
                        .tag(PING)
                        .count(size)
                        .region(memhA)
                        .build()));

        assertThat(await(b, receive).payload())
                .isEqualTo(new TagRecvDone(receive, size, size, PING, UromStatus.SUCCESS, new byte[0]).encode());
        byte[] after = Files.readAllBytes(shmFile);
        assertThat(Arrays.equals(after, size, 2 * size, initial, 0, size))
                .as("the region's second half holds its first")
                .isTrue();
    }

    @Test
    void memMapRefusesPathsOutsideSharedMemoryMissingFilesAndBadLengths() throws IOException {
        Path outside = Files.write(dir.resolve("region"), new byte[64]);
        assertRefused(a, new MemMap(context(), 64, bytes(outside.toString())), UromStatus.NOT_PERMITTED);
        assertRefused(a, new MemMap(context(), 64, bytes("/dev/shm/../etc/passwd")), UromStatus.NOT_PERMITTED);
        assertRefused(
                a,
                new MemMap(context(), 64, bytes("/dev/shm/urom-missing-" + UUID.randomUUID())),
                UromStatus.NOT_FOUND);

        shmFile = Files.write(Path.of("/dev/shm", "urom-sandbox-java-test-" + UUID.randomUUID()), new byte[64]);
        assertRefused(a, new MemMap(context(), 65, bytes(shmFile.toString())), UromStatus.INVALID_VALUE);
        assertRefused(a, new MemMap(context(), 0, bytes(shmFile.toString())), UromStatus.INVALID_VALUE);
        assertThat(mapped(call(a, new MemMap(context(), 64, bytes(shmFile.toString())))))
                .isEqualTo(1);
        assertRefused(
                a, tagSend(context()).to(DOMAIN_B).tag(PING).count(8).region(9).build(), UromStatus.NOT_FOUND);
        assertRefused(
                a,
                tagSend(context())
                        .to(DOMAIN_B)
                        .tag(PING)
                        .buffer(60)
                        .count(8)
                        .region(1)
                        .build(),
                UromStatus.INVALID_VALUE);
        assertRefused(a, tagRecv(context()).tag(PING, MASK).count(65).region(1).build(), UromStatus.INVALID_VALUE);
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
                assertThat(call(
                                a,
                                new MemMap(
                                        context(), 4096, bytes(link.getValue().toString()))))
                        .as(link.getKey())
                        .hasStatus(UromStatus.NOT_PERMITTED);
            }
            for (long memh = 1; memh <= throughLinks.size(); memh++) {
                assertRefused(
                        a,
                        tagRecv(context())
                                .tag(PING, MASK)
                                .count(4096)
                                .region(memh)
                                .build(),
                        UromStatus.NOT_FOUND);
            }
            long receive = context();
            send(a, tagRecv(receive).tag(PING, MASK).count(4096).build());
            assertSendSucceeded(call(b, inlineSend(DOMAIN_A, PING, new byte[] {1, 2, 3})));
            assertReceived(await(a, receive), receive, PING, new byte[] {1, 2, 3});
        }
        assertThat(Files.readAllBytes(target)).as("the link target").isEqualTo(secret);
    }

    @ParameterizedTest(name = "UROM_OWNER_UID=''{0}''")
    @ValueSource(strings = {"", "abc", "-1", "+7", " 7", "7 ", "0x10", "4294967295", "99999999999999999999"})
    void aMalformedUromOwnerUidKeepsThePluginFromOpening(String value) {
        Map<String, String> environment = Map.of(FileOwners.VARIABLE, value);
        assertThatThrownBy(() -> PluginTestKit.plugin(() -> new SandboxPlugin(environment::get))
                        .open())
                .as("the open failure")
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(": " + UromStatus.BAD_CONFIG + ": ")
                .hasMessageContaining("UROM_OWNER_UID='" + value + "' is not a decimal uid");
    }

    @Test
    void unknownTypesShortCommandsAndUnknownPeersAreRefused() {
        long context = context();
        a.send(context, ByteBuffer.allocate(16).putLong(0x0400000000000000L).array());
        assertThat(await(a, context)).hasStatus(UromStatus.NOT_SUPPORTED);

        long shortOne = context();
        a.send(shortOne, new byte[] {2, 0, 0, 0, 0, 0, 0, 0, 1});
        assertThat(await(a, shortOne)).hasStatus(UromStatus.INVALID_VALUE);

        assertRefused(a, inlineSend(42, PING, new byte[] {1}), UromStatus.NOT_FOUND);
    }

    @Test
    void aMessageAlreadyThereThatIsLongerThanTheReceiveIsTooBigAtOnce() throws UromException {
        assertSendSucceeded(call(a, inlineSend(DOMAIN_B, PONG, new byte[9])));
        SandboxPlugin pluginB = (SandboxPlugin) b.plugin();
        b.awaitCondition(() -> pluginB.messageWaiting(PONG, MASK), "the message reached B");
        long receive = context();
        send(b, tagRecv(receive).tag(PONG, MASK).count(8).build());

        WorkerNotification answer = await(b, receive);
        assertThat(answer)
                .hasStatus(UromStatus.TOO_BIG)
                .hasPayload(new TagRecvDone(receive, 1, 0, PONG, UromStatus.TOO_BIG, new byte[0]).encode());
        assertThat(pluginB.messageWaiting(PONG, MASK))
                .as("the message was consumed")
                .isFalse();
    }

    @Test
    void theTransportIsUcpTagAndTheAddressIsTheUcpWorkerAddress() throws UromException {
        SandboxPlugin pluginA = (SandboxPlugin) a.plugin();

        assertThat(pluginA.transport()).contains("ucp-tag");
        assertThat(a.address()).isNotEmpty().isNotEqualTo(b.address());
        assertThat(pluginA.wakeupFd()).isPresent();
        assertThat(new SandboxPlugin().wakeupFd()).as("before open").isEmpty();
        assertThat(new SandboxPlugin().transport()).as("before open").contains("ucp-tag");
    }

    @Test
    void oneEndpointPerPeerIsKept() {
        for (int i = 0; i < 3; i++) {
            assertSendSucceeded(call(a, inlineSend(DOMAIN_B, PING, new byte[] {(byte) i})));
        }
        assertSendSucceeded(call(a, inlineSend(DOMAIN_A, PING, new byte[] {9})));

        assertThat(((SandboxPlugin) a.plugin()).endpoints()).isEqualTo(2);
    }

    @Test
    void theWakeupFdIsReadableOnceAMessageArrivesForAPostedReceive() throws UromException {
        assertSendSucceeded(call(a, inlineSend(DOMAIN_B, 0x99, new byte[] {1})));
        long warmUp = context();
        assertReceived(call(b, tagRecv(warmUp).tag(0x99, MASK).count(8).build()), warmUp, 0x99, new byte[] {1});
        SandboxPlugin pluginB = (SandboxPlugin) b.plugin();
        long receive = context();
        send(b, tagRecv(receive).tag(PING, MASK).count(8).build());
        b.awaitCondition(pluginB::armWakeup, "B armed, the receive posted and nothing ready");
        assertThat(WakeupFds.readable(pluginB.wakeupFd().getAsInt(), 0))
                .as("nothing arrived yet")
                .isFalse();

        send(a, inlineSend(DOMAIN_B, PING, new byte[] {4, 2}));
        assertThat(answersOfAlone(a)).as("A's send answered").hasSize(1);

        assertThat(WakeupFds.readable(pluginB.wakeupFd().getAsInt(), (int) SandboxWorkers.TIMEOUT.toMillis()))
                .as("B's wake-up fd once the message was sent")
                .isTrue();
        assertThat(answersOfAlone(b))
                .extracting(WorkerNotification::uromContext)
                .containsExactly(receive);
    }

    @Test
    void armWakeupIsFalseWhileAnswersWait() throws UromException, IOException {
        shmFile = Path.of("/dev/shm", "urom-sandbox-java-test-" + UUID.randomUUID());
        Files.write(shmFile, new byte[64]);
        send(a, new MemMap(context(), 64, bytes(shmFile.toString())));

        assertThat(((SandboxPlugin) a.plugin()).armWakeup())
                .as("the MEM_MAP answer waits for progress")
                .isFalse();
    }

    @Test
    void aPeerThatDiesFailsTheSendsInFlightWithConnectionResetAndDropsTheEndpoint() throws IOException, UromException {
        // A full round trip first: UCX 1.13.1 aborts (an assertion in ucp_request.c) when a worker is
        // destroyed while its wire-up answer to a new peer is still queued.
        long warmUp = context();
        send(b, tagRecv(warmUp).tag(PONG, MASK).count(8).build());
        assertSendSucceeded(call(b, inlineSend(DOMAIN_A, PING, new byte[] {1})));
        assertSendSucceeded(call(a, inlineSend(DOMAIN_B, PONG, new byte[] {1})));
        assertReceived(await(b, warmUp), warmUp, PONG, new byte[] {1});
        int size = 1 << 20;
        shmFile = Files.write(Path.of("/dev/shm", "urom-sandbox-java-test-" + UUID.randomUUID()), new byte[size]);
        long memh = mapped(call(b, new MemMap(context(), size, bytes(shmFile.toString()))));
        TagSend large = tagSend(context())
                .to(DOMAIN_A)
                .tag(PING)
                .count(size)
                .region(memh)
                .build();
        send(b, large);
        for (int i = 0; i < 100; i++) {
            b.progressAlone();
        }
        assertThat(b.unclaimed())
                .as("a rendezvous send waits for the receiver, which does not progress")
                .isEmpty();

        a.plugin().close();

        assertThat(await(b, large.context()))
                .hasStatus(UromStatus.CONNECTION_RESET)
                .hasPayload(new TagSendDone(large.context(), UromStatus.CONNECTION_RESET).encode());
        assertThat(((SandboxPlugin) b.plugin()).endpoints())
                .as("the failed endpoint was dropped")
                .isZero();
        assertRefused(b, inlineSend(DOMAIN_A, PING, new byte[] {2}), UromStatus.NOT_CONNECTED);
    }

    private TagSend inlineSend(long dest, long tag, byte[] data) {
        return tagSend(context()).to(dest).tag(tag).inline(data).build();
    }

    private long context() {
        return nextContext++;
    }

    /** Progresses {@code worker} alone, its peer idle, until it gives answers, and takes them. */
    private static List<WorkerNotification> answersOfAlone(TestWorker worker) {
        long deadline = System.nanoTime() + SandboxWorkers.TIMEOUT.toNanos();
        while (worker.progressAlone() == 0) {
            assertThat(System.nanoTime() - deadline)
                    .as("worker %d answered in time", worker.domainId())
                    .isNegative();
        }
        return worker.awaitNotifications(worker.unclaimed().size());
    }

    private static void assertRefused(TestWorker worker, SandboxCommand command, UromStatus status) {
        assertThat(call(worker, command))
                .as("a refusal of %s, with no payload", command)
                .hasStatus(status)
                .hasEmptyPayload();
    }

    private static void assertSendSucceeded(WorkerNotification answer) {
        assertThat(answer)
                .isSuccessful()
                .hasPayload(new TagSendDone(answer.uromContext(), UromStatus.SUCCESS).encode());
    }

    private static void assertReceived(WorkerNotification answer, long context, long tag, byte[] data) {
        assertThat(answer)
                .isSuccessful()
                .hasPayload(new TagRecvDone(context, 1, data.length, tag, UromStatus.SUCCESS, data).encode());
    }

    private static long mapped(WorkerNotification answer) {
        assertThat(answer).isSuccessful();
        SandboxNotification decoded = SandboxNotification.decode(answer.payload());
        assertThat(decoded).isInstanceOf(MemMapDone.class);
        assertThat(((MemMapDone) decoded).context()).isEqualTo(answer.uromContext());
        return ((MemMapDone) decoded).memhId();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
