// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static dev.urom.service.worker.DataSocketProbes.assertEchoed;
import static dev.urom.service.worker.DataSocketProbes.awaitOneNewLogLine;
import static dev.urom.service.worker.DataSocketProbes.logLines;
import static dev.urom.service.worker.DataSocketProbes.refusedHandshake;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Proofs;
import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker on TCP, where there are no peer credentials, lets in the holder of its owner's key only:
 * every other host is refused with one line in the worker's log, and the worker goes on serving
 * its owner. One worker, owned by {@link WorkerProcess#TEST_KEY}'s
 * principal, serves every test; its owner's connection stays open throughout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerSecurityTcpTest {
    private static final long ECHO_ID = 0x4;
    private static final int MAX_MSG = 4096;
    private static final String NOT_THE_OWNER = "worker 7 belongs to another principal";
    private static final String WRONG_PROOF = "principal 'worker-test' refused: its proof does not match the key";

    @TempDir
    static Path dir;

    private static WorkerProcess worker;
    private static Connected owner;

    @BeforeAll
    static void startTheWorker() throws Exception {
        Path echo = WorkerFixtures.echo(dir.resolve("plugins"), "echo.so");
        worker = WorkerProcess.start(
                dir.resolve("log"),
                List.of(),
                WorkerProcess.args(ServiceAddress.tcp("127.0.0.1", 0), MAX_MSG, List.of(echo + ":" + ECHO_ID)),
                WorkerProcess.KEY_ACCESS);
        owner = worker.connect(Optional.of(WorkerProcess.TEST_KEY));
    }

    @AfterAll
    static void destroyTheWorker() throws InterruptedException {
        if (worker != null) {
            worker.destroy();
        }
    }

    @Test
    void aHostWithoutAKeyIsRefused() throws Exception {
        int before = logLines(worker, NOT_THE_OWNER);

        UromException refused = refusedHandshake(worker, Optional.empty(), Proofs.Channel.DATA);

        assertThat(refused.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(refused.getMessage()).isEqualTo(NOT_THE_OWNER);
        assertThat(awaitOneNewLogLine(worker, before, NOT_THE_OWNER)).contains(" WARN ");
        assertEchoed(owner, ECHO_ID, "after a host without a key");
    }

    @Test
    void anotherPrincipalsKeyIsChallengedAndRefusedAsAWrongKeyIs() throws Exception {
        AuthKey intruder = AuthKey.of("intruder", "i".repeat(32).getBytes(StandardCharsets.US_ASCII));
        int before = logLines(worker, NOT_THE_OWNER);

        UromException refused = refusedHandshake(worker, Optional.of(intruder), Proofs.Channel.DATA);

        assertThat(refused.status()).isEqualTo(UromStatus.AUTHENTICATION);
        assertThat(refused.getMessage())
                .isEqualTo("authentication failed: the proof does not match the key of principal 'intruder'");
        awaitOneNewLogLine(worker, before, NOT_THE_OWNER);
        assertEchoed(owner, ECHO_ID, "after another principal");
    }

    @Test
    void theOwnersNameWithAnotherSecretIsRefusedWithAuthentication() throws Exception {
        AuthKey guessed =
                AuthKey.of(WorkerProcess.TEST_KEY.name(), "g".repeat(32).getBytes(StandardCharsets.US_ASCII));
        int before = logLines(worker, WRONG_PROOF);

        UromException refused = refusedHandshake(worker, Optional.of(guessed), Proofs.Channel.DATA);

        assertThat(refused.status()).isEqualTo(UromStatus.AUTHENTICATION);
        assertThat(refused.getMessage())
                .isEqualTo("authentication failed: the proof does not match the key of principal 'worker-test'");
        assertThat(awaitOneNewLogLine(worker, before, WRONG_PROOF)).contains(" WARN ");
        assertEchoed(owner, ECHO_ID, "after a wrong key");
    }

    /** The worker holds the data-channel key only: a proof made with the principal's key itself, as on the control channel, fails. */
    @Test
    void theOwnersKeyProvedForTheControlChannelIsRefusedWithAuthentication() throws Exception {
        int before = logLines(worker, WRONG_PROOF);

        UromException refused = refusedHandshake(worker, Optional.of(WorkerProcess.TEST_KEY), Proofs.Channel.CONTROL);

        assertThat(refused.status()).isEqualTo(UromStatus.AUTHENTICATION);
        awaitOneNewLogLine(worker, before, WRONG_PROOF);
        assertEchoed(owner, ECHO_ID, "after a control-channel proof");
    }

    /** Handshake.client checks the worker's own proof: the worker is shown to hold the data key too. */
    @Test
    void theOwnersKeyIsLetInAndTheWorkerProvesItHoldsTheDataKey() throws Exception {
        Connected second = worker.connect(Optional.of(WorkerProcess.TEST_KEY));

        assertThat(second.hello().principal()).isEqualTo("key:worker-test");
        assertThat(second.hello().serverProof()).hasSize(Proofs.MAC_BYTES);
        assertThat(second.hello().connectionId()).isNotEqualTo(owner.hello().connectionId());
        assertEchoed(second, ECHO_ID, "a second connection of the owner");
        second.channel().close();
        assertEchoed(owner, ECHO_ID, "the first connection of the owner");
    }
}
