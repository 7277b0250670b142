// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static dev.urom.service.worker.DataSocketProbes.assertEchoed;
import static dev.urom.service.worker.DataSocketProbes.awaitOneNewLogLine;
import static dev.urom.service.worker.DataSocketProbes.logLines;
import static dev.urom.service.worker.DataSocketProbes.raw;
import static dev.urom.service.worker.DataSocketProbes.refusal;
import static dev.urom.service.worker.DataSocketProbes.refusedHandshake;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.service.access.WorkerAccess;
import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker's data socket admits its owner only, on real worker processes:
 * on a Unix socket the kernel's word on the peer's uid decides for a Unix owner and a key's proof
 * for a key owner; on TCP only a key's proof does.
 *
 * <p>Being another uid takes root; without it {@link #anotherUsersClientIsRefusedAndTheOwnersAdmitted}
 * swaps the roles, its client being this user and the other worker another uid's. The same property, a uid other than the owner's refused, holds without root in
 * {@link #aUnixWorkerRefusesAUidThatIsNotItsOwnersWithOrWithoutAClaim}: there the worker belongs to
 * another uid and this test's own uid is the stranger.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerSecurityAdmissionTest {
    private static final long ECHO_ID = 0x4;
    private static final int MAX_MSG = 4096;
    private static final int SELF = UnixAccounts.effectiveUid();
    private static final String NOT_THE_OWNER = "worker 7 belongs to another principal";

    @TempDir
    static Path pluginDir;

    private static Path echo;

    @TempDir
    Path dir;

    @RegisterExtension
    final WorkerProcesses workers = new WorkerProcesses();

    @BeforeAll
    static void compilePlugins() {
        echo = WorkerFixtures.echo(pluginDir, "echo.so");
    }

    static boolean runningAsRoot() {
        return SELF == 0;
    }

    private WorkerProcess startOnUnixSocket(WorkerAccess access) throws IOException {
        return start(ServiceAddress.unix(dir.resolve("run").resolve("worker-7.sock")), access);
    }

    private WorkerProcess start(ServiceAddress listen, WorkerAccess access) throws IOException {
        WorkerProcess worker = WorkerProcess.start(
                dir.resolve("log"),
                List.of(),
                WorkerProcess.args(listen, MAX_MSG, List.of(echo + ":" + ECHO_ID)),
                access);
        workers.add(worker);
        worker.readyAddress();
        return worker;
    }

    private static WorkerAccess ownedBy(Principal owner) {
        return WorkerAccess.of(owner, Optional.empty(), Proofs.randomSecret(32));
    }

    @Test
    void aUnixWorkerLetsInItsOwnersUidAsThatUser() throws Exception {
        WorkerProcess worker = startOnUnixSocket(WorkerProcess.ACCESS);

        Connected host = worker.connect(Optional.empty());

        assertThat(host.hello().principal()).isEqualTo("unix:" + SELF);
        assertEchoed(host, ECHO_ID, "the owner");
    }

    @Test
    void aUnixWorkerRefusesAUidThatIsNotItsOwnersWithOrWithoutAClaim() throws Exception {
        Principal stranger = Principal.unix(SELF + 1);
        WorkerProcess worker = startOnUnixSocket(ownedBy(stranger));

        int before = logLines(worker, NOT_THE_OWNER);
        UromException plain = refusedHandshake(worker, Optional.empty(), Proofs.Channel.DATA);
        assertThat(plain.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(plain.getMessage()).isEqualTo(NOT_THE_OWNER);
        assertThat(awaitOneNewLogLine(worker, before, NOT_THE_OWNER))
                .contains("WARN")
                .contains("worker 7: host connection 1 closed: ");

        String unixOwner = "worker 7 belongs to a Unix user; connect as that user, without a key";
        UromException withAKey = refusedHandshake(worker, Optional.of(WorkerProcess.TEST_KEY), Proofs.Channel.DATA);
        assertThat(withAKey.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(withAKey.getMessage()).isEqualTo(unixOwner);

        FrameChannel claimingTheOwner = raw(worker);
        claimingTheOwner.send(0, Hello.of(Role.HOST, stranger.text()));
        assertThat(refusal(claimingTheOwner))
                .as("the owner's name claimed in HELLO")
                .isEqualTo(new ErrorReply(UromStatus.NOT_PERMITTED, unixOwner));
        assertThat(logLines(worker, unixOwner)).isEqualTo(2);
        assertThat(worker.process.isAlive()).isTrue();
    }

    /** TCP carries no peer credentials: a worker of a Unix user listening there has no host it can recognise. */
    @Test
    void aUnixWorkerOnTcpLetsNobodyInNotEvenItsOwnersUid() throws Exception {
        WorkerProcess worker = start(ServiceAddress.tcp("127.0.0.1", 0), WorkerProcess.ACCESS);

        UromException refused = refusedHandshake(worker, Optional.empty(), Proofs.Channel.DATA);

        assertThat(refused.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(refused.getMessage()).isEqualTo(NOT_THE_OWNER);
    }

    @Test
    void aKeyOwnedWorkerOnAUnixSocketLetsInTheKeysProofNotTheUidThatStartedIt() throws Exception {
        WorkerProcess worker = startOnUnixSocket(WorkerProcess.KEY_ACCESS);

        UromException noKey = refusedHandshake(worker, Optional.empty(), Proofs.Channel.DATA);
        assertThat(noKey.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(noKey.getMessage()).isEqualTo(NOT_THE_OWNER);

        AuthKey otherSecret =
                AuthKey.of(WorkerProcess.TEST_KEY.name(), "x".repeat(32).getBytes(StandardCharsets.US_ASCII));
        UromException wrongKey = refusedHandshake(worker, Optional.of(otherSecret), Proofs.Channel.DATA);
        assertThat(wrongKey.status()).isEqualTo(UromStatus.AUTHENTICATION);

        Connected owner = worker.connect(Optional.of(WorkerProcess.TEST_KEY));
        assertThat(owner.hello().principal()).isEqualTo("key:worker-test");
        assertEchoed(owner, ECHO_ID, "the key's holder");
    }

    @Test
    void aMalformedAccessLineFailsTheStartInOneLineThatShowsNoKeyAndNothingListens() throws Exception {
        String sealKey = HexFormat.of().formatHex(WorkerProcess.ACCESS.sealKey());
        String dataKey = "ab".repeat(31);
        Path socket = dir.resolve("run").resolve("worker-7.sock");

        WorkerProcess worker = WorkerProcess.startWithAccessLine(
                dir.resolve("log"),
                WorkerProcess.args(ServiceAddress.unix(socket), MAX_MSG, List.of(echo + ":" + ECHO_ID)),
                "ACCESS key:worker-test " + dataKey + " " + sealKey);
        workers.add(worker);

        assertThat(worker.replyLine).isEqualTo("FAILED BAD_CONFIG the data key has 31 bytes instead of 32");
        assertThat(worker.awaitExit()).isEqualTo(WorkerMain.EXIT_FAILED);
        assertThat(socket).doesNotExist();
        assertThat(worker.log())
                .contains("the data key has 31 bytes instead of 32")
                .doesNotContain(sealKey)
                .doesNotContain(dataKey);
    }

    /**
     * A client in a process of its own ({@link ForeignUidClient}) meets two workers on sockets it may
     * connect to: one of another uid refuses it, the one of its own uid lets it in. As root the
     * client is uid 65534, the other worker is root's (this test's) and that one of the client's
     * refuses root: root is no one's owner but its own. As another user, who cannot be a second uid,
     * the client is this user and the other worker belongs to uid + 1.
     */
    @Test
    void anotherUsersClientIsRefusedAndTheOwnersAdmitted() throws Exception {
        ForeignUidClient.openForSearch(dir);
        ForeignUidClient client = ForeignUidClient.compile(dir.resolve("client"));
        Path sockets = dir.resolve("sockets");
        int other = runningAsRoot() ? SELF : SELF + 1;

        Path othersSocket = sockets.resolve("other.sock");
        WorkerProcess others = start(ServiceAddress.unix(othersSocket), ownedBy(Principal.unix(other)));
        ForeignUidClient.openForSearch(sockets);
        ForeignUidClient.openSocket(othersSocket);
        int before = logLines(others, NOT_THE_OWNER);
        assertThat(client.exchange(othersSocket, Hello.of(Role.HOST)).message())
                .as("uid %d at the worker of uid %d", ForeignUidClient.UID, other)
                .isEqualTo(new ErrorReply(UromStatus.NOT_PERMITTED, NOT_THE_OWNER));
        awaitOneNewLogLine(others, before, NOT_THE_OWNER);
        if (runningAsRoot()) {
            assertThat(others.connect(Optional.empty()).hello().principal()).isEqualTo("unix:0");
        }

        Path clientsSocket = sockets.resolve("client.sock");
        WorkerProcess clients =
                start(ServiceAddress.unix(clientsSocket), ownedBy(Principal.unix(ForeignUidClient.UID)));
        ForeignUidClient.openSocket(clientsSocket);
        if (runningAsRoot()) {
            UromException rootRefused = refusedHandshake(clients, Optional.empty(), Proofs.Channel.DATA);
            assertThat(rootRefused.status()).isEqualTo(UromStatus.NOT_PERMITTED);
            assertThat(rootRefused.getMessage()).isEqualTo(NOT_THE_OWNER);
        }
        // last: the worker ends when its owner's client, its only host, goes
        assertThat(client.exchange(clientsSocket, Hello.of(Role.HOST)).message())
                .as("uid %d at its own worker", ForeignUidClient.UID)
                .isInstanceOfSatisfying(
                        HelloOk.class, ok -> assertThat(ok.principal()).isEqualTo("unix:" + ForeignUidClient.UID));
    }
}
