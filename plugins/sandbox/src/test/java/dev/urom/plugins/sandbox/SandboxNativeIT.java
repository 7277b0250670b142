// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static dev.urom.plugins.sandbox.SandboxNativeCodec.memMap;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.memhId;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.received;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.sendStatus;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagRecv;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagSendInline;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagSendRegion;
import static dev.urom.plugins.sandbox.SandboxWorkers.await;
import static dev.urom.testkit.PluginAssertions.assertThat;

import dev.urom.plugins.sandbox.SandboxNativeCodec.Received;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import dev.urom.testkit.TestDomain;
import dev.urom.testkit.TestWorker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** worker_sandbox.so against docs/sandbox-protocol.md: two real instances in one process talking through real UCX. */
class SandboxNativeIT {
    private static final long MASK = 0xffff;
    private static final Path SHM = Path.of("/dev/shm");
    private static final long DOMAIN_A = 0;
    private static final long DOMAIN_B = 1;

    @TempDir
    Path dir;

    private TestDomain domain;
    private TestWorker a;
    private TestWorker b;
    private long nextContext = 100;
    private Path shmFile;

    @BeforeEach
    void openPeers() {
        domain = SandboxWorkers.nativePlugin().openDomain(2);
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

    private Received recv(long uromContext) {
        return received(await(b, uromContext));
    }

    private UromStatus send(long uromContext) {
        return sendStatus(await(a, uromContext), uromContext);
    }

    @Test
    void addressIsTheOpaqueUcpWorkerAddressOfEachInstance() {
        byte[] addressA = a.address();
        byte[] addressB = b.address();
        assertThat(addressA).as("A's address").isNotEmpty().isEqualTo(a.address());
        assertThat(addressB).as("B's address").isNotEmpty().isNotEqualTo(addressA);
        assertThat(new String(addressA, StandardCharsets.ISO_8859_1))
                .as("no longer a socket path")
                .doesNotStartWith("unix:");
    }

    @Test
    void pingPongInline() {
        byte[] ping = "ping".getBytes(StandardCharsets.US_ASCII);
        byte[] pong = "pong!".getBytes(StandardCharsets.US_ASCII);
        b.send(1, tagRecv(1, 0, 64, 0x1234, MASK, 0));
        a.send(2, tagRecv(2, 0, 64, 0x5678, MASK, 0));
        a.send(3, tagSendInline(3, DOMAIN_B, 0x1234, ping));
        assertThat(send(3)).isEqualTo(UromStatus.SUCCESS);
        Received atB = recv(1);
        assertThat(atB.context()).isEqualTo(1);
        assertThat(atB.buffer()).as("inline receive buffer").isEqualTo(1);
        assertThat(atB.count()).isEqualTo(ping.length);
        assertThat(atB.senderTag()).isEqualTo(0x1234);
        assertThat(atB.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(atB.data()).isEqualTo(ping);

        b.send(4, tagSendInline(4, DOMAIN_A, 0x5678, pong));
        assertThat(sendStatus(await(b, 4), 4)).isEqualTo(UromStatus.SUCCESS);
        Received atA = received(await(a, 2));
        assertThat(atA.senderTag()).isEqualTo(0x5678);
        assertThat(atA.data()).isEqualTo(pong);
    }

    @Test
    void messageBeforeReceiveIsQueued() {
        a.send(1, tagSendInline(1, DOMAIN_B, 0x42, new byte[] {9, 8, 7}));
        assertThat(send(1)).isEqualTo(UromStatus.SUCCESS);
        domain.progress();
        b.send(2, tagRecv(2, 0, 3, 0x42, MASK, 0));
        Received r = recv(2);
        assertThat(r.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(r.data()).containsExactly(9, 8, 7);
    }

    @Test
    void receiveBeforeMessageWaits() {
        b.send(1, tagRecv(1, 0, 8, 0x42, MASK, 0));
        b.assertNoNotificationAfter(200);
        a.send(2, tagSendInline(2, DOMAIN_B, 0x42, new byte[] {1}));
        assertThat(recv(1).data()).containsExactly(1);
    }

    @Test
    void maskSelectsTheBitsThatMustMatch() {
        b.send(1, tagRecv(1, 0, 8, 0xAB00, 0xFF00, 0));
        a.send(2, tagSendInline(2, DOMAIN_B, 0xAC01, new byte[] {1}));
        a.send(3, tagSendInline(3, DOMAIN_B, 0x12AC55, new byte[] {2}));
        a.send(4, tagSendInline(4, DOMAIN_B, 0xABCD, new byte[] {3}));
        Received r = recv(1);
        assertThat(r.senderTag()).isEqualTo(0xABCD);
        assertThat(r.data()).containsExactly(3);
        // the two that did not match wait in the unexpected queue
        b.send(5, tagRecv(5, 0, 8, 0, 0, 0));
        assertThat(recv(5).senderTag()).isEqualTo(0xAC01);
        b.send(6, tagRecv(6, 0, 8, 0x12AC55, -1L, 0));
        assertThat(recv(6).data()).containsExactly(2);
    }

    @Test
    void oldestReceiveTakesTheMessageAndOldestMessageGoesToTheReceive() {
        b.send(1, tagRecv(1, 0, 8, 0x7, MASK, 0));
        b.send(2, tagRecv(2, 0, 8, 0x7, MASK, 0));
        a.send(3, tagSendInline(3, DOMAIN_B, 0x7, new byte[] {1}));
        a.send(4, tagSendInline(4, DOMAIN_B, 0x7, new byte[] {2}));
        assertThat(recv(1).data()).containsExactly(1);
        assertThat(recv(2).data()).containsExactly(2);

        a.send(5, tagSendInline(5, DOMAIN_B, 0x8, new byte[] {5}));
        a.send(6, tagSendInline(6, DOMAIN_B, 0x8, new byte[] {6}));
        assertThat(send(5)).isEqualTo(UromStatus.SUCCESS);
        assertThat(send(6)).isEqualTo(UromStatus.SUCCESS);
        domain.progress();
        b.send(7, tagRecv(7, 0, 8, 0x8, MASK, 0));
        b.send(8, tagRecv(8, 0, 8, 0x8, MASK, 0));
        assertThat(recv(7).data()).containsExactly(5);
        assertThat(recv(8).data()).containsExactly(6);
    }

    @Test
    void messageLongerThanTheReceiveIsTooBig() {
        b.send(1, tagRecv(1, 0, 3, 0x9, MASK, 0));
        a.send(2, tagSendInline(2, DOMAIN_B, 0x9, new byte[] {1, 2, 3, 4}));
        Received r = recv(1);
        assertThat(r.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(r.count()).isZero();
        assertThat(r.senderTag()).isEqualTo(0x9);
        assertThat(r.data()).isEmpty();
    }

    /** The message waits in UCX's unexpected queue; the receive that matches it completes inside worker_cmd. */
    @Test
    void queuedMessageLongerThanTheReceiveIsTooBigAndConsumed() {
        a.send(1, tagSendInline(1, DOMAIN_B, 0x9, new byte[] {1, 2, 3, 4}));
        assertThat(send(1)).isEqualTo(UromStatus.SUCCESS);
        domain.progress();
        b.send(2, tagRecv(2, 0, 3, 0x9, MASK, 0));
        Received r = recv(2);
        assertThat(r.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(r.count()).isZero();
        assertThat(r.senderTag()).isEqualTo(0x9);
        assertThat(r.data()).isEmpty();
        b.send(3, tagRecv(3, 0, 8, 0x9, MASK, 0));
        b.assertNoNotificationAfter(200);
    }

    /** Above UCX's rendezvous threshold the receiver fetches the data: a short receive is TOO_BIG, the send still succeeds. */
    @Test
    void rendezvousMessageLongerThanTheReceiveIsTooBig() throws IOException {
        int size = 1 << 20;
        shmFile = Files.createTempFile(SHM, "urom-sandbox-native-it-", ".bin");
        Files.write(shmFile, new byte[size]);
        a.send(1, memMap(1, size, shmFile.toString()));
        long memhA = memhId(await(a, 1), 1);
        b.send(2, tagRecv(2, 0, 1000, 0x19, MASK, 0));
        a.send(3, tagSendRegion(3, DOMAIN_B, 0, size, 0x19, memhA));
        Received r = recv(2);
        assertThat(r.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(r.senderTag()).isEqualTo(0x19);
        assertThat(send(3)).isEqualTo(UromStatus.SUCCESS);
    }

    @Test
    void largestInlineSendFitsTheMessageSizeAndOneMoreByteIsTooBig() {
        int largest = 4096 - 24 - SandboxNativeCodec.TAG_SEND_FIXED_BYTES;
        byte[] data = new byte[largest];
        Arrays.fill(data, (byte) 0x5a);
        data[largest - 1] = 1;
        b.send(1, tagRecv(1, 0, largest, 0x1, MASK, 0));
        a.send(2, tagSendInline(2, DOMAIN_B, 0x1, data));
        assertThat(send(2)).isEqualTo(UromStatus.SUCCESS);
        assertThat(recv(1).data()).isEqualTo(data);

        a.send(3, tagSendInline(3, DOMAIN_B, 0x1, new byte[largest + 1]));
        assertThat(await(a, 3)).hasStatus(UromStatus.TOO_BIG).hasEmptyPayload();
    }

    @Test
    void sendAndReceiveThroughMappedRegions() throws IOException {
        shmFile = Files.createTempFile(SHM, "urom-sandbox-native-it-", ".bin");
        byte[] contents = new byte[4096];
        for (int i = 0; i < contents.length; i++) {
            contents[i] = (byte) i;
        }
        Files.write(shmFile, contents);
        a.send(1, memMap(11, 4096, shmFile.toString()));
        long memhA = memhId(await(a, 1), 11);
        b.send(2, memMap(12, 4096, shmFile.toString()));
        long memhB = memhId(await(b, 2), 12);
        assertThat(memhA).isEqualTo(1);
        assertThat(memhB).isEqualTo(1);
        b.send(3, memMap(13, 100, shmFile.toString()));
        assertThat(memhId(await(b, 3), 13)).as("second memh id").isEqualTo(2);

        b.send(4, tagRecv(14, 2048, 512, 0x77, MASK, memhB));
        a.send(5, tagSendRegion(15, DOMAIN_B, 16, 100, 0x77, memhA));
        assertThat(sendStatus(await(a, 5), 15)).isEqualTo(UromStatus.SUCCESS);
        WorkerNotification n = await(b, 4);
        Received r = received(n);
        assertThat(r.context()).isEqualTo(14);
        assertThat(r.buffer()).as("region offset").isEqualTo(2048);
        assertThat(r.count()).isEqualTo(100);
        assertThat(r.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(r.data()).as("no inline data for a region receive").isEmpty();

        byte[] after = Files.readAllBytes(shmFile);
        assertThat(Arrays.copyOfRange(after, 2048, 2148)).isEqualTo(Arrays.copyOfRange(contents, 16, 116));
        assertThat(Arrays.copyOfRange(after, 0, 2048)).isEqualTo(Arrays.copyOfRange(contents, 0, 2048));
        assertThat(Arrays.copyOfRange(after, 2148, 4096)).isEqualTo(Arrays.copyOfRange(contents, 2148, 4096));
    }

    @Test
    void messageAboveTheRendezvousThresholdArrivesWhole() throws IOException {
        int size = 3 << 20;
        shmFile = Files.createTempFile(SHM, "urom-sandbox-native-it-", ".bin");
        byte[] contents = new byte[2 * size];
        new java.util.Random(7).nextBytes(contents);
        Files.write(shmFile, contents);
        a.send(1, memMap(1, 2L * size, shmFile.toString()));
        long memhA = memhId(await(a, 1), 1);
        b.send(2, memMap(2, 2L * size, shmFile.toString()));
        long memhB = memhId(await(b, 2), 2);
        a.send(3, tagSendRegion(3, DOMAIN_B, 0, size, 0x5, memhA));
        b.send(4, tagRecv(4, size, size, 0x5, MASK, memhB));
        assertThat(send(3)).isEqualTo(UromStatus.SUCCESS);
        assertThat(recv(4).count()).isEqualTo(size);
        byte[] after = Files.readAllBytes(shmFile);
        assertThat(Arrays.equals(after, size, 2 * size, contents, 0, size))
                .as("received bytes in the region")
                .isTrue();
    }

    @Test
    void regionRangesAndIdsAreChecked() throws IOException {
        shmFile = Files.createTempFile(SHM, "urom-sandbox-native-it-", ".bin");
        Files.write(shmFile, new byte[1024]);
        a.send(1, memMap(1, 1024, shmFile.toString()));
        long memh = memhId(await(a, 1), 1);
        a.send(2, tagSendRegion(2, DOMAIN_B, 1000, 25, 0x1, memh));
        assertThat(await(a, 2)).hasStatus(UromStatus.INVALID_VALUE);
        a.send(3, tagSendRegion(3, DOMAIN_B, 0, 8, 0x1, memh + 1));
        assertThat(await(a, 3)).hasStatus(UromStatus.NOT_FOUND);
        a.send(4, tagRecv(4, 1020, 5, 0x1, MASK, memh));
        assertThat(await(a, 4)).hasStatus(UromStatus.INVALID_VALUE);
        a.send(5, tagRecv(5, 0, 8, 0x1, MASK, 99));
        assertThat(await(a, 5)).hasStatus(UromStatus.NOT_FOUND);
    }

    @Test
    void memMapRefusals() throws IOException {
        shmFile = Files.createTempFile(SHM, "urom-sandbox-native-it-", ".bin");
        Files.write(shmFile, new byte[64]);
        Path outside = Files.write(dir.resolve("outside.bin"), new byte[64]);
        String missing = shmFile + "-missing";

        assertThat(refusal(memMap(1, 64, outside.toString())))
                .as("outside /dev/shm")
                .isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(refusal(memMap(1, 64, "/dev/shm/../tmp/x"))).as("with ..").isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(refusal(memMap(1, 64, missing))).as("missing").isEqualTo(UromStatus.NOT_FOUND);
        assertThat(refusal(memMap(1, 65, shmFile.toString())))
                .as("file too short")
                .isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(refusal(memMap(1, 0, shmFile.toString()))).as("length 0").isEqualTo(UromStatus.INVALID_VALUE);
        byte[] bad = memMap(1, 64, shmFile.toString());
        assertThat(refusal(Arrays.copyOf(bad, bad.length - 1)))
                .as("path_len mismatch")
                .isEqualTo(UromStatus.INVALID_VALUE);
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
                assertThat(refusal(memMap(1, 4096, link.getValue().toString())))
                        .as(link.getKey())
                        .isEqualTo(UromStatus.NOT_PERMITTED);
            }
            for (long memh = 1; memh <= throughLinks.size(); memh++) {
                assertThat(refusal(tagRecv(1, 0, 4096, 0x99, MASK, memh)))
                        .as("TAG_RECV into memh_id %d", memh)
                        .isEqualTo(UromStatus.NOT_FOUND);
            }
            a.send(10, tagRecv(10, 0, 4096, 0x99, MASK, 0));
            b.send(11, tagSendInline(11, DOMAIN_A, 0x99, new byte[] {1, 2, 3}));
            assertThat(received(await(a, 10)).data())
                    .as("the message went to the inline receive")
                    .containsExactly(1, 2, 3);
        }
        assertThat(Files.readAllBytes(target)).as("the link target").isEqualTo(secret);
    }

    @Test
    void malformedCommandsAreRefused() {
        assertThat(refusal(new byte[] {4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}))
                .as("unknown type")
                .isEqualTo(UromStatus.NOT_SUPPORTED);
        assertThat(refusal(new byte[] {1, 0, 0})).as("no type").isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(refusal(Arrays.copyOf(tagRecv(1, 0, 8, 1, 1, 0), 40)))
                .as("short TAG_RECV")
                .isEqualTo(UromStatus.INVALID_VALUE);
        byte[] send = tagSendInline(1, DOMAIN_B, 1, new byte[] {1, 2});
        assertThat(refusal(Arrays.copyOf(send, send.length - 1)))
                .as("inline length differs from count")
                .isEqualTo(UromStatus.INVALID_VALUE);
    }

    @Test
    void unknownDestinationIsNotFound() {
        assertThat(refusal(tagSendInline(1, 42, 1, new byte[] {1}))).isEqualTo(UromStatus.NOT_FOUND);
    }

    /** Receives are not tied to a peer: one that closes fails none of them (a death shows in sends: SandboxUcpChildIT). */
    @Test
    void aPeerThatClosesLeavesReceivesWaiting() {
        a.send(1, tagSendInline(1, DOMAIN_B, 0x3, new byte[] {1}));
        assertThat(send(1)).isEqualTo(UromStatus.SUCCESS);
        b.send(2, tagRecv(2, 0, 8, 0x3, MASK, 0));
        assertThat(recv(2).data()).containsExactly(1);
        b.send(3, tagRecv(3, 0, 8, 0x4, MASK, 0));
        a.close();
        b.assertNoNotificationAfter(200);
    }

    private UromStatus refusal(byte[] payload) {
        long context = nextContext++;
        a.send(context, payload);
        WorkerNotification n = await(a, context);
        assertThat(n).as("a refused command has no payload").hasEmptyPayload();
        return n.status();
    }
}
