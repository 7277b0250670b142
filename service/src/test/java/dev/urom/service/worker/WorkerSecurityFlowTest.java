// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static dev.urom.service.worker.DataSocketProbes.PATIENCE;
import static dev.urom.service.worker.DataSocketProbes.assertEchoed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker bounds what one connection can make it hold: commands in
 * flight, counted per connection and enforced by the worker itself whatever the host does with
 * HELLO_OK's {@code max_inflight}, and answers waiting to be written, beyond which it stops reading
 * that connection. One worker serves both tests (the native echo plugin and {@link
 * HoldingJavaPlugin}); its owner's first connection stays open throughout, and each test leaves
 * nothing held.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerSecurityFlowTest {
    private static final long ECHO_ID = 0x4;
    private static final long HOLD_ID = 0x20;
    private static final int MAX_INFLIGHT = 4;
    private static final int MAX_MSG = 65536;
    private static final byte[] HOLD = "hold".getBytes(StandardCharsets.US_ASCII);
    /** Commands of {@value #PAYLOAD_BYTES} bytes the host that reads nothing tries to send: 30 MB. */
    private static final int COMMANDS = 500;

    private static final int PAYLOAD_BYTES = 60_000;
    private static final int QUIET_MILLIS = 2000;

    @TempDir
    static Path dir;

    private static WorkerProcess worker;
    private static Connected keeper;

    @BeforeAll
    static void startTheWorker() throws Exception {
        Path echo = WorkerFixtures.echo(dir.resolve("plugins"), "echo.so");
        Path holding = WorkerFixtures.javaPluginJar(
                dir.resolve("plugins").resolve("holding.jar"), "holding", "1", HoldingJavaPlugin.class);
        worker = WorkerProcess.start(
                dir.resolve("log"),
                WorkerProcess.args(
                        ServiceAddress.unix(dir.resolve("run").resolve("worker-7.sock")),
                        MAX_MSG,
                        List.of(
                                "--max-inflight",
                                Integer.toString(MAX_INFLIGHT),
                                echo + ":" + ECHO_ID,
                                holding + ":" + HOLD_ID)));
        keeper = worker.connect();
    }

    @AfterAll
    static void destroyTheWorker() throws InterruptedException {
        if (worker != null) {
            worker.destroy();
        }
    }

    private static Notify receive(Connected host) throws Exception {
        Message message = host.channel().receiveWithin(PATIENCE).message();
        assertThat(message).isInstanceOf(Notify.class);
        return (Notify) message;
    }

    private static void send(Connected host, long context, byte[] payload) throws Exception {
        host.channel().send(0, new Command(HOLD_ID, context, payload));
    }

    @Test
    void commandsOverAConnectionsInFlightLimitAreAnsweredAgainByTheWorkerWhileOtherConnectionsKeepTheirOwnLimit()
            throws Exception {
        Connected greedy = worker.connect();
        assertThat(greedy.hello().maxInflight()).isEqualTo(MAX_INFLIGHT);

        // the host ignores max_inflight and sends seven; the plugin holds what reaches it
        for (long context = 1; context <= 7; context++) {
            send(greedy, context, HOLD);
        }
        for (long context = 5; context <= 7; context++) {
            assertThat(receive(greedy)).isEqualTo(new Notify(HOLD_ID, context, UromStatus.AGAIN, new byte[0]));
        }

        Connected other = worker.connect();
        for (long context = 101; context <= 103; context++) {
            send(other, context, HOLD);
        }
        send(other, 104, HoldingJavaPlugin.RELEASE);
        for (long context = 101; context <= 103; context++) {
            assertThat(receive(other))
                    .as("the other connection's own limit")
                    .isEqualTo(new Notify(HOLD_ID, context, UromStatus.SUCCESS, HOLD));
        }
        assertThat(receive(other)).isEqualTo(new Notify(HOLD_ID, 104, UromStatus.SUCCESS, HoldingJavaPlugin.RELEASE));
        for (long context = 1; context <= 4; context++) {
            assertThat(receive(greedy)).isEqualTo(new Notify(HOLD_ID, context, UromStatus.SUCCESS, HOLD));
        }
        send(greedy, 8, HoldingJavaPlugin.RELEASE);
        assertThat(receive(greedy))
                .as("nothing answered AGAIN reached the plugin")
                .isEqualTo(new Notify(HOLD_ID, 8, UromStatus.SUCCESS, HoldingJavaPlugin.RELEASE));

        // the answers gave the budget back: four more are held, the fifth is answered AGAIN
        for (long context = 9; context <= 13; context++) {
            send(greedy, context, HOLD);
        }
        assertThat(receive(greedy)).isEqualTo(new Notify(HOLD_ID, 13, UromStatus.AGAIN, new byte[0]));
        send(other, 105, HoldingJavaPlugin.RELEASE);
        assertThat(receive(other)).isEqualTo(new Notify(HOLD_ID, 105, UromStatus.SUCCESS, HoldingJavaPlugin.RELEASE));
        for (long context = 9; context <= 12; context++) {
            assertThat(receive(greedy)).isEqualTo(new Notify(HOLD_ID, context, UromStatus.SUCCESS, HOLD));
        }
        greedy.channel().close();
        other.channel().close();
    }

    /**
     * A host that sends commands and reads none of the answers: the worker stops reading it once
     * about a MiB of answers waits (far less than the host tries to send), serves its other hosts
     * meanwhile, and reads it again once the host reads. That the worker takes no more is seen as
     * {@value #QUIET_MILLIS} ms in which the socket takes nothing; a worker that never stopped
     * reading would take all {@value #COMMANDS} commands at once.
     */
    @Test
    void aConnectionThatReadsNothingIsNotReadWhileItsAnswersWaitAndTheOthersAreServed() throws Exception {
        Connected deaf = worker.connect();
        SocketChannel socket = deaf.channel().socket();
        socket.configureBlocking(false);
        int taken = 0;
        ByteBuffer frame = FrameCodec.encode(0, command(0));
        try (Selector selector = Selector.open()) {
            socket.register(selector, SelectionKey.OP_WRITE);
            while (taken < COMMANDS) {
                socket.write(frame);
                if (!frame.hasRemaining()) {
                    taken++;
                    frame = FrameCodec.encode(0, command(taken));
                } else if (selector.select(QUIET_MILLIS) == 0) {
                    break;
                } else {
                    selector.selectedKeys().clear();
                }
            }
        }
        assertThat(taken)
                .as("commands the socket took from a host that reads nothing")
                .isLessThan(COMMANDS);

        assertEchoed(keeper, ECHO_ID, "while another host's answers wait");

        socket.configureBlocking(true);
        int first = taken;
        ByteBuffer partial = frame;
        CompletableFuture<Void> rest = CompletableFuture.runAsync(() -> {
            try {
                ByteBuffer next = partial;
                for (int i = first; i < COMMANDS; i++) {
                    next = i == first ? next : FrameCodec.encode(0, command(i));
                    while (next.hasRemaining()) {
                        socket.write(next);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        for (int i = 0; i < COMMANDS; i++) {
            assertThat(receive(deaf))
                    .as("answer %d", i)
                    .isEqualTo(new Notify(
                            ECHO_ID, i, UromStatus.SUCCESS, command(i).payload()));
        }
        rest.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        deaf.channel().close();
    }

    private static Command command(int index) {
        byte[] payload = new byte[PAYLOAD_BYTES];
        Arrays.fill(payload, (byte) index);
        return new Command(ECHO_ID, index, payload);
    }
}
