// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static dev.urom.plugins.sandbox.SandboxNativeCodec.memMap;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.memhId;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.received;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.sendStatus;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagRecv;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagSendInline;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagSendRegion;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.plugins.sandbox.SandboxChildProcess.Answer;
import dev.urom.plugins.sandbox.SandboxNativeCodec.Received;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * worker_sandbox.so over UCP between worker processes: each plugin in a child JVM of its own
 * ({@link SandboxChildProcess}), domain id 0 itself and id 1 the other child, whose UCP worker
 * address the test hands over. A child killed with SIGKILL is a worker that died.
 */
class SandboxUcpChildIT {
    private static final long MASK = -1L;
    private static final long ME = 0;
    private static final long PEER = 1;
    /**
     * How long a sender may go on before UCX notices a dead peer. With UCX's default settings here
     * the first send after the death already fails (in tens of milliseconds).
     */
    private static final Duration DEATH_NOTICED = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final ShmScratch shm = new ShmScratch();

    @AfterEach
    void removeShmFiles() throws IOException {
        shm.close();
    }

    private SandboxChildProcess start(Map<String, String> environment) {
        SandboxChildProcess child =
                SandboxChildProcess.start(NativeFixtures.builtFile("urom.sandbox.so"), environment, dir);
        assertThat(child.openResult()).isEqualTo("opened");
        return child;
    }

    /** Makes each the other's domain id 1. */
    private static void introduce(SandboxChildProcess a, SandboxChildProcess b) {
        a.peer(PEER, b.address());
        b.peer(PEER, a.address());
    }

    /** A TAG_SEND's status, whether the plugin answered it (a notification) or refused it. */
    private static UromStatus sendOutcome(Answer answer) {
        return answer.payload().length == 0 ? answer.status() : sendStatus(answer.notification(), answer.uromContext());
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The default UCX configuration (shared memory and CMA between processes on one host) and TCP
     * alone: a short message and a 3 MiB region message (UCX's rendezvous) each way.
     */
    @ParameterizedTest(name = "UCX_TLS={0}")
    @ValueSource(strings = {"", "tcp"})
    void twoWorkerProcessesExchangeShortAndRendezvousMessages(String tls) {
        int size = 3 << 20;
        byte[] contents = new byte[2 * size];
        new Random(11).nextBytes(contents);
        Path fileA = shm.file(contents);
        Path fileB = shm.file(new byte[2 * size]);
        Map<String, String> environment = tls.isEmpty() ? Map.of() : Map.of("UCX_TLS", tls);
        try (SandboxChildProcess a = start(environment);
                SandboxChildProcess b = start(environment)) {
            introduce(a, b);
            long memhA =
                    memhId(a.call(1, memMap(1, 2L * size, fileA.toString())).notification(), 1);
            long memhB =
                    memhId(b.call(2, memMap(2, 2L * size, fileB.toString())).notification(), 2);

            b.submit(3, tagRecv(3, 0, 64, 0x31, MASK, 0));
            b.submit(4, tagRecv(4, size, size, 0x32, MASK, memhB));
            assertThat(sendOutcome(a.call(5, tagSendInline(5, PEER, 0x31, ascii("short")))))
                    .isEqualTo(UromStatus.SUCCESS);
            assertThat(sendOutcome(a.call(6, tagSendRegion(6, PEER, 0, size, 0x32, memhA))))
                    .isEqualTo(UromStatus.SUCCESS);
            assertThat(received(b.await(3).notification()).data()).isEqualTo(ascii("short"));
            Received big = received(b.await(4).notification());
            assertThat(big.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(big.count()).isEqualTo(size);
            assertThat(Arrays.equals(readAll(fileB), size, 2 * size, contents, 0, size))
                    .as("the region bytes at B")
                    .isTrue();

            a.submit(7, tagRecv(7, 0, 64, 0x33, MASK, 0));
            assertThat(sendOutcome(b.call(8, tagSendInline(8, PEER, 0x33, ascii("back")))))
                    .isEqualTo(UromStatus.SUCCESS);
            assertThat(received(a.await(7).notification()).data()).isEqualTo(ascii("back"));
            assertThat(a.finish()).isZero();
            assertThat(b.finish()).isZero();
        }
    }

    /**
     * A peer that dies shows as a failed send (CONNECTION_RESET, or NOT_CONNECTED when the new
     * endpoint cannot even be created), never as a failed receive: a receive posted before the death
     * keeps waiting and takes the first message of the peer that replaces it at a new address.
     */
    @Test
    void aPeerThatDiedFailsSendsAndANewPeerAtANewAddressIsReached() {
        try (SandboxChildProcess a = start(Map.of())) {
            try (SandboxChildProcess b = start(Map.of())) {
                introduce(a, b);
                b.submit(1, tagRecv(1, 0, 64, 0x41, MASK, 0));
                assertThat(sendOutcome(a.call(2, tagSendInline(2, PEER, 0x41, ascii("first")))))
                        .isEqualTo(UromStatus.SUCCESS);
                assertThat(received(b.await(1).notification()).data()).isEqualTo(ascii("first"));
                a.submit(3, tagRecv(3, 0, 64, 0x42, MASK, 0));
                b.kill();
            }
            UromStatus failed = UromStatus.SUCCESS;
            long context = 100;
            long deadline = System.nanoTime() + DEATH_NOTICED.toNanos();
            while (failed == UromStatus.SUCCESS && System.nanoTime() - deadline < 0) {
                context++;
                failed = sendOutcome(a.call(context, tagSendInline(context, PEER, 0x41, ascii("anyone?"))));
            }
            assertThat(failed)
                    .as("a send to the dead peer, after %d sends", context - 100)
                    .isIn(UromStatus.CONNECTION_RESET, UromStatus.NOT_CONNECTED);

            try (SandboxChildProcess c = start(Map.of())) {
                introduce(a, c);
                c.submit(4, tagRecv(4, 0, 64, 0x43, MASK, 0));
                assertThat(sendOutcome(a.call(5, tagSendInline(5, PEER, 0x43, ascii("new peer")))))
                        .isEqualTo(UromStatus.SUCCESS);
                assertThat(received(c.await(4).notification()).data()).isEqualTo(ascii("new peer"));
                assertThat(sendOutcome(c.call(6, tagSendInline(6, PEER, 0x42, ascii("still waiting?")))))
                        .isEqualTo(UromStatus.SUCCESS);
                Received waited = received(a.await(3).notification());
                assertThat(waited.status())
                        .as("the receive posted before the death")
                        .isEqualTo(UromStatus.SUCCESS);
                assertThat(waited.data()).isEqualTo(ascii("still waiting?"));
                assertThat(c.finish()).isZero();
            }
            assertThat(a.finish()).isZero();
        }
    }

    /** UCX reads its configuration when the plugin opens: a value it cannot parse keeps the plugin closed. */
    @Test
    void aUcxVariableThatDoesNotParseKeepsThePluginFromOpening() {
        try (SandboxChildProcess child = SandboxChildProcess.start(
                NativeFixtures.builtFile("urom.sandbox.so"), Map.of("UCX_RNDV_THRESH", "not-a-size"), dir)) {
            assertThat(child.openResult()).isEqualTo("open-failed BAD_CONFIG");
        }
    }

    /** No transport UCX can use: the UCP context or worker cannot be made. */
    @Test
    void noUsableTransportKeepsThePluginFromOpening() {
        try (SandboxChildProcess child = SandboxChildProcess.start(
                NativeFixtures.builtFile("urom.sandbox.so"), Map.of("UCX_TLS", "no-such-transport"), dir)) {
            assertThat(child.openResult()).isEqualTo("open-failed INITIALIZATION");
        }
    }

    private static byte[] readAll(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + file, e);
        }
    }
}
