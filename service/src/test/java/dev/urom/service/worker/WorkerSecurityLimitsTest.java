// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static dev.urom.service.worker.DataSocketProbes.PATIENCE;
import static dev.urom.service.worker.DataSocketProbes.assertEchoed;
import static dev.urom.service.worker.DataSocketProbes.assertEndOfStream;
import static dev.urom.service.worker.DataSocketProbes.awaitOneNewLogLine;
import static dev.urom.service.worker.DataSocketProbes.logLines;
import static dev.urom.service.worker.DataSocketProbes.raw;
import static dev.urom.service.worker.DataSocketProbes.refusal;
import static dev.urom.service.worker.DataSocketProbes.residentBytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.access.WorkerAccess;
import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message;
import dev.urom.wire.Message.Challenge;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.Stop;
import dev.urom.wire.Message.StopOk;
import dev.urom.wire.MessageType;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bounds of a worker's data socket against hosts that hold its resources, on real worker
 * processes. Each test starts its own worker with the bound it checks:
 *
 * <ul>
 *   <li>the handshake timeout;
 *   <li>the frame limit before the handshake, and buffers that grow as bytes arrive;
 *   <li>the cap on connections, with its FULL refusal.
 * </ul>
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WorkerSecurityLimitsTest {
    private static final long ECHO_ID = 0x4;
    private static final int MAX_MSG = 4096;

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

    private WorkerProcess start(
            ServiceAddress listen, WorkerAccess access, List<String> jvmOptions, int maxMessageSize, String... options)
            throws IOException {
        List<String> extra = new ArrayList<>(List.of(options));
        extra.add(echo + ":" + ECHO_ID);
        WorkerProcess worker = WorkerProcess.start(
                dir.resolve("log"), jvmOptions, WorkerProcess.args(listen, maxMessageSize, extra), access);
        workers.add(worker);
        worker.readyAddress();
        return worker;
    }

    private ServiceAddress socket() {
        return ServiceAddress.unix(dir.resolve("run").resolve("worker-7.sock"));
    }

    @Test
    void aHandshakeThatDoesNotEndInTimeIsDroppedAndTheOwnerStillGetsIn() throws Exception {
        WorkerProcess worker = start(
                ServiceAddress.tcp("127.0.0.1", 0),
                WorkerProcess.KEY_ACCESS,
                List.of(),
                MAX_MSG,
                "--handshake-timeout-ms",
                "1500");
        Connected owner = worker.connect();
        String late = "the handshake did not end within 1500 ms";
        long start = System.nanoTime();

        FrameChannel silent = raw(worker);
        FrameChannel halfAHello = raw(worker);
        ByteBuffer hello = FrameCodec.encode(0, Hello.of(Role.HOST, WorkerProcess.TEST_KEY.name()));
        halfAHello.socket().write(hello.limit(hello.limit() / 2));
        FrameChannel noProof = raw(worker);
        noProof.send(0, Hello.of(Role.HOST, WorkerProcess.TEST_KEY.name()));
        assertThat(noProof.receiveWithin(PATIENCE).message()).isInstanceOf(Challenge.class);

        for (FrameChannel channel : List.of(silent, halfAHello, noProof)) {
            assertThat(refusal(channel)).isEqualTo(new ErrorReply(UromStatus.TIME_OUT, late));
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                .as("dropped at the timeout, not before")
                .isGreaterThanOrEqualTo(1500);
        assertThat(logLines(worker, late)).isEqualTo(3);
        assertEchoed(owner, ECHO_ID, "after three late handshakes");
        assertEchoed(worker.connect(), ECHO_ID, "a new connection of the owner");
    }

    /**
     * A COMMAND frame announced at 16 MiB (the first 40 bytes of one) by 450 connections: before
     * the handshake it is over the handshake's frame limit and refused at once; after it, within the
     * limit, the worker waits for its bytes without setting 16 MiB aside for each. The worker's
     * heap is capped at 2 GiB, which 450 × 16 MiB (7 GiB) would run out of; the bound on its
     * resident memory's growth, 512 MiB, is a fourteenth of that and several times what 900
     * connections cost.
     */
    @Test
    void framesAnnouncedAt16MiBCostTheWorkerNothingUntilTheirBytesArrive() throws Exception {
        int maxMessageSize = 16 << 20;
        int connections = 450;
        WorkerProcess worker = start(
                socket(), WorkerProcess.ACCESS, List.of("-Xmx2g"), maxMessageSize, "--max-host-connections", "1000");
        Connected owner = worker.connect();
        assertEchoed(owner, ECHO_ID, "before");
        long baseline = residentBytes(worker.process.pid());
        int frameLength = Protocol.FRAME_HEADER_BYTES + maxMessageSize;
        ByteBuffer announcement = ByteBuffer.allocate(
                        Protocol.LENGTH_FIELD_BYTES + Protocol.FRAME_HEADER_BYTES + Command.HEADER_BYTES)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(frameLength)
                .putShort((short) MessageType.COMMAND.code())
                .putShort((short) 0)
                .putLong(0)
                .putLong(ECHO_ID)
                .putLong(1)
                .putLong(maxMessageSize - Command.HEADER_BYTES)
                .flip();
        String overTheLimit =
                "frame of " + frameLength + " bytes is over the limit of " + Protocol.HANDSHAKE_FRAME_LIMIT;
        long start = System.nanoTime();

        List<FrameChannel> strangers = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            FrameChannel stranger = raw(worker);
            stranger.socket().write(announcement.duplicate());
            strangers.add(stranger);
        }
        for (FrameChannel stranger : strangers) {
            assertThat(refusal(stranger)).isEqualTo(new ErrorReply(UromStatus.TOO_BIG, overTheLimit));
            stranger.close();
        }
        long windows = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) / 10 + 1;
        assertThat(logLines(worker, overTheLimit))
                .as("refusals logged: at most 20 per 10 s")
                .isBetween(1, (int) (20 * windows));

        List<Connected> hosts = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Connected host = worker.connect();
            host.channel().socket().write(announcement.duplicate());
            hosts.add(host);
        }
        // every announcement was in its socket before this command: the worker's loop has read them all when it answers
        assertEchoed(owner, ECHO_ID, "after the announcements");
        long growth = residentBytes(worker.process.pid()) - baseline;

        assertThat(growth)
                .as("growth of the worker's resident memory, in bytes")
                .isLessThan(512L << 20);
        for (Connected host : hosts) {
            host.channel().close();
        }
        assertEchoed(owner, ECHO_ID, "after");
        assertThat(worker.process.isAlive()).isTrue();
    }

    @Test
    void overTheConnectionCapAHostIsRefusedFullUntilAConnectionEnds() throws Exception {
        WorkerProcess worker = start(
                socket(),
                WorkerProcess.ACCESS,
                List.of(),
                MAX_MSG,
                "--max-host-connections",
                "3",
                "--handshake-timeout-ms",
                "2000");
        Connected owner = worker.connect();
        Connected stopping = worker.connect();
        Connected closing = worker.connect();
        String full = "worker 7 has its maximum of 3 host connections";
        int before = logLines(worker, full);

        assertThat(refusal(raw(worker))).isEqualTo(new ErrorReply(UromStatus.FULL, full));
        assertThat(awaitOneNewLogLine(worker, before, full))
                .contains(" WARN ")
                .contains("worker 7: host connection refused: " + full);

        // after STOP_OK the worker has let the connection go: the next host gets in
        stopping.channel().send(0, new Stop());
        assertThat(stopping.channel().receiveWithin(PATIENCE).message()).isEqualTo(new StopOk());
        assertEndOfStream(stopping.channel());
        Connected next = worker.connect();
        assertEchoed(next, ECHO_ID, "in the place of a stopped connection");

        // a host that just closes: a new host gets in once the worker has seen it go
        closing.channel().close();
        Connected another = connectOnceThereIsRoom(worker);
        assertEchoed(another, ECHO_ID, "in the place of a closed connection");

        // connections still in their handshake count too, until the handshake timeout ends them
        for (Connected done : List.of(next, another)) {
            done.channel().send(0, new Stop());
            assertThat(done.channel().receiveWithin(PATIENCE).message()).isEqualTo(new StopOk());
            assertEndOfStream(done.channel());
        }
        List<FrameChannel> silent = List.of(raw(worker), raw(worker));
        assertThat(refusal(raw(worker))).isEqualTo(new ErrorReply(UromStatus.FULL, full));
        for (FrameChannel channel : silent) {
            assertThat(refusal(channel))
                    .isEqualTo(new ErrorReply(UromStatus.TIME_OUT, "the handshake did not end within 2000 ms"));
        }
        assertEchoed(worker.connect(), ECHO_ID, "in the place of a late handshake");
        assertEchoed(owner, ECHO_ID, "the owner's first connection");
    }

    /** A connection of the owner, tried again while the worker answers FULL; it has seen a closed connection go within {@link DataSocketProbes#PATIENCE}. */
    private static Connected connectOnceThereIsRoom(WorkerProcess worker) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            FrameChannel channel = raw(worker);
            try {
                channel.send(0, Hello.of(Role.HOST));
            } catch (IOException refusedAlready) {
                // the worker closed it at once: its ERROR is still there to read
            }
            Message answer = channel.receiveWithin(PATIENCE).message();
            if (answer instanceof HelloOk ok) {
                channel.setFrameLimit(Protocol.dataFrameLimit(ok.maxMessageSize()));
                return new Connected(channel, ok);
            }
            assertThat(answer)
                    .isInstanceOfSatisfying(
                            ErrorReply.class, e -> assertThat(e.status()).isEqualTo(UromStatus.FULL));
            channel.close();
            assertThat(System.nanoTime())
                    .as("room for a connection within %s", PATIENCE)
                    .isLessThan(deadline);
        }
    }
}
