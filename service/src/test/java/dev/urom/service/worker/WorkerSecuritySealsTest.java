// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static dev.urom.service.worker.DataSocketProbes.PATIENCE;
import static dev.urom.service.worker.DataSocketProbes.awaitOneNewLogLine;
import static dev.urom.service.worker.DataSocketProbes.logLines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.service.access.WorkerAccess;
import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromStatus;
import dev.urom.wire.DomainPeer;
import dev.urom.wire.DomainPeer.PluginAddress;
import dev.urom.wire.Frame;
import dev.urom.wire.Message;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.AddressRequest;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.DomainSet;
import dev.urom.wire.Message.DomainSetReply;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.ServiceAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A worker installs a domain table only when every address in it carries the seal that a worker of
 * its owner gave it, so that no host can point a worker's plugins at an intruder's address. A
 * refused table leaves the installed one as it was; the plugin's look-ups ({@link
 * DomainPeerJavaPlugin}, asked through commands) show which table is in force. One worker, owned by
 * this test's user, serves every test.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerSecuritySealsTest {
    private static final long PEER_ID = 0x10;
    private static final byte[] VICTIM = bytes("the victim's peer");
    private static final byte[] INTRUDER = bytes("the intruder's peer");
    private static final AtomicLong REQUESTS = new AtomicLong(100);

    @TempDir
    static Path dir;

    private static WorkerProcess worker;
    private static Connected host;
    /** This worker's own address and seal, as its ADDRESS_REPLY gave them. */
    private static PluginAddress own;

    @BeforeAll
    static void startTheWorkerAndInstallATable() throws Exception {
        Path jar = WorkerFixtures.javaPluginJar(
                dir.resolve("domain_peer.jar"), "domain_peer", "1", DomainPeerJavaPlugin.class);
        worker = WorkerProcess.start(
                dir.resolve("log"),
                WorkerProcess.args(
                        ServiceAddress.unix(dir.resolve("run").resolve("worker-7.sock")),
                        4096,
                        List.of(jar + ":" + PEER_ID)));
        host = worker.connect();
        host.channel().send(1, new AddressRequest(PEER_ID));
        AddressReply reply =
                (AddressReply) host.channel().receiveWithin(PATIENCE).message();
        assertThat(reply.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(reply.seal())
                .as("sealed with the key of the owner's workers")
                .isEqualTo(WorkerProcess.seal(PEER_ID, reply.address()));
        own = new PluginAddress(PEER_ID, reply.address(), reply.seal());

        assertThat(install(table(sealed(VICTIM)))).isEqualTo(new DomainSetReply(UromStatus.SUCCESS, ""));
        assertThat(lookUp(2)).isEqualTo(VICTIM);
    }

    @AfterAll
    static void destroyTheWorker() throws InterruptedException {
        if (worker != null) {
            worker.destroy();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Domain 1 is this worker, with its own sealed address; domain 2 the peer {@code second}. */
    private static DomainSet table(PluginAddress second) {
        return new DomainSet(
                1, List.of(new DomainPeer(1, List.of(own), List.of()), new DomainPeer(2, List.of(second), List.of())));
    }

    private static PluginAddress sealed(byte[] address) {
        return new PluginAddress(PEER_ID, address, WorkerProcess.seal(PEER_ID, address));
    }

    private static DomainSetReply install(DomainSet table) throws Exception {
        long request = REQUESTS.incrementAndGet();
        host.channel().send(request, table);
        Frame reply = host.channel().receiveWithin(PATIENCE);
        assertThat(reply.requestId()).isEqualTo(request);
        return (DomainSetReply) reply.message();
    }

    /** What the plugin's {@code domain().address(domainId)} answers now. */
    private static byte[] lookUp(long domainId) throws Exception {
        long context = REQUESTS.incrementAndGet();
        host.channel()
                .send(
                        0,
                        new Command(
                                PEER_ID,
                                context,
                                ByteBuffer.allocate(8)
                                        .order(ByteOrder.LITTLE_ENDIAN)
                                        .putLong(domainId)
                                        .array()));
        Message message = host.channel().receiveWithin(PATIENCE).message();
        assertThat(message).isInstanceOf(Notify.class);
        Notify answer = (Notify) message;
        assertThat(answer.uromContext()).isEqualTo(context);
        assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
        return answer.payload();
    }

    static Stream<Arguments> badSeals() {
        byte[] victimsSeal = WorkerProcess.seal(PEER_ID, VICTIM);
        WorkerAccess otherDaemon =
                WorkerAccess.of(Principal.unix(UnixAccounts.effectiveUid()), Optional.empty(), Proofs.randomSecret(32));
        return Stream.of(
                Arguments.of(
                        "a made-up seal", new PluginAddress(PEER_ID, INTRUDER, Proofs.randomSecret(Proofs.MAC_BYTES))),
                Arguments.of("no seal", new PluginAddress(PEER_ID, INTRUDER, new byte[0])),
                Arguments.of(
                        "the victim's seal on the intruder's address",
                        new PluginAddress(PEER_ID, INTRUDER, victimsSeal)),
                Arguments.of(
                        "a seal of another plugin id",
                        new PluginAddress(PEER_ID, INTRUDER, WorkerProcess.seal(PEER_ID + 1, INTRUDER))),
                Arguments.of(
                        "the seal of another principal's workers",
                        new PluginAddress(
                                PEER_ID, INTRUDER, Proofs.seal(WorkerProcess.KEY_ACCESS.sealKey(), PEER_ID, INTRUDER))),
                Arguments.of(
                        "the seal of the same user's workers at another daemon",
                        new PluginAddress(PEER_ID, INTRUDER, Proofs.seal(otherDaemon.sealKey(), PEER_ID, INTRUDER))),
                Arguments.of(
                        "a sealed address relabelled with a transport",
                        new PluginAddress(PEER_ID, INTRUDER, "ucp-tag", WorkerProcess.seal(PEER_ID, INTRUDER))),
                Arguments.of(
                        "a sealed address relabelled with another transport",
                        new PluginAddress(
                                PEER_ID,
                                INTRUDER,
                                "tcp",
                                Proofs.seal(WorkerProcess.ACCESS.sealKey(), PEER_ID, "ucp-tag", INTRUDER))),
                Arguments.of(
                        "an address sealed with a transport, its transport dropped",
                        new PluginAddress(
                                PEER_ID,
                                INTRUDER,
                                Proofs.seal(WorkerProcess.ACCESS.sealKey(), PEER_ID, "ucp-tag", INTRUDER))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSeals")
    void aTableWithAnAddressItsOwnersWorkersDidNotSealIsRefusedAndTheTableInForceStays(
            String what, PluginAddress forged) throws Exception {
        byte[] inForce = lookUp(2);
        String reason =
                "the address of plugin id 0x10 at domain id 2 is not one a worker of this owner published (its seal does not match)";
        int before = logLines(worker, reason);

        assertThat(install(table(forged))).isEqualTo(new DomainSetReply(UromStatus.NOT_PERMITTED, reason));

        assertThat(lookUp(2)).as("domain 2 after the refusal").isEqualTo(inForce);
        assertThat(awaitOneNewLogLine(worker, before, reason))
                .contains(" WARN ")
                .contains("domain table refused");
    }

    @Test
    void oneUnsealedAddressAmongSealedOnesRefusesTheWholeTable() throws Exception {
        byte[] inForce = lookUp(2);
        DomainSet table = new DomainSet(
                1,
                List.of(
                        new DomainPeer(1, List.of(own), List.of()),
                        new DomainPeer(2, List.of(sealed(bytes("a sealed newcomer"))), List.of()),
                        new DomainPeer(
                                3,
                                List.of(new PluginAddress(PEER_ID, INTRUDER, Proofs.randomSecret(Proofs.MAC_BYTES))),
                                List.of())));

        assertThat(install(table))
                .isEqualTo(
                        new DomainSetReply(
                                UromStatus.NOT_PERMITTED,
                                "the address of plugin id 0x10 at domain id 3 is not one a worker of this owner published (its seal does not match)"));

        assertThat(lookUp(2)).as("nothing of the refused table was installed").isEqualTo(inForce);
    }

    @Test
    void aTableSealedByTheOwnersWorkersReplacesTheOneInForce() throws Exception {
        byte[] newcomer = bytes("a newcomer sealed by a worker of the owner");

        assertThat(install(table(sealed(newcomer)))).isEqualTo(new DomainSetReply(UromStatus.SUCCESS, ""));
        assertThat(lookUp(2)).isEqualTo(newcomer);
        assertThat(lookUp(1)).as("the worker's own address, with its own seal").isEqualTo(own.address());

        assertThat(install(table(sealed(VICTIM)))).isEqualTo(new DomainSetReply(UromStatus.SUCCESS, ""));
        assertThat(lookUp(2)).isEqualTo(VICTIM);
    }
}
