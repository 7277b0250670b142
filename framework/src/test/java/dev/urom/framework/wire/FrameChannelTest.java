package dev.urom.framework.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.framework.wire.Message.Command;
import dev.urom.framework.wire.Message.Hello;
import dev.urom.framework.wire.Message.HelloOk;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FrameChannelTest {
    @TempDir
    Path dir;

    @Test
    void concurrentSendersNeverInterleaveFrames() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel sender = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel receiver = new FrameChannel(pair.server(), Protocol.dataFrameLimit(8192))) {
            int threads = 4;
            int perThread = 500;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<CompletableFuture<Void>> sends = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    long thread = t;
                    sends.add(CompletableFuture.runAsync(() -> {
                        for (int i = 0; i < perThread; i++) {
                            byte[] payload = new byte[1 + (i * 37) % 5000];
                            payload[0] = (byte) thread;
                            try {
                                sender.send(0, new Command(thread, i, payload));
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        }
                    }, pool));
                }
                Set<String> seen = new HashSet<>();
                for (int n = 0; n < threads * perThread; n++) {
                    Command c = (Command) receiver.receive().message();
                    assertThat(c.payload()).hasSize(1 + (int) (c.uromContext() * 37 % 5000));
                    assertThat(c.payload()[0]).isEqualTo((byte) c.type());
                    seen.add(c.type() + "/" + c.uromContext());
                }
                CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                assertThat(seen).hasSize(threads * perThread);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void endOfStreamIsAnEofException() throws Exception {
        try (WireSockets pair = WireSockets.open(dir); FrameChannel receiver = new FrameChannel(pair.server(), 100)) {
            pair.client().write(ByteBuffer.allocate(6).order(ByteOrder.LITTLE_ENDIAN).putInt(20).putShort((short) 22).flip());
            pair.client().close();
            assertThatThrownBy(receiver::receive).isInstanceOf(EOFException.class)
                    .hasMessage("connection closed by the peer in the middle of a frame");
        }
        try (WireSockets pair = WireSockets.open(dir); FrameChannel receiver = new FrameChannel(pair.server(), 100)) {
            pair.client().close();
            assertThatThrownBy(receiver::receive).isInstanceOf(EOFException.class).hasMessage("connection closed by the peer");
        }
    }

    @Test
    void overLimitLengthIsRefusedWithoutWaitingForTheBody() throws Exception {
        try (WireSockets pair = WireSockets.open(dir); FrameChannel receiver = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            pair.client().write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(Integer.MAX_VALUE).flip());
            assertThatThrownBy(receiver::receive)
                    .isInstanceOfSatisfying(WireException.class, e -> assertThat(e.reason()).isEqualTo(WireException.Reason.FRAME_TOO_LARGE))
                    .hasMessage("frame of 2147483647 bytes is over the limit of 65536");
        }
    }

    @Test
    void handshakeAgreesOnVersionAndLimits() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            CompletableFuture<Hello> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return Handshake.server(server, 4096, 42);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            HelloOk ok = Handshake.client(client, Role.HOST);
            assertThat(ok).isEqualTo(new HelloOk(1, 4096, 42));
            assertThat(accepted.get(30, TimeUnit.SECONDS)).isEqualTo(Hello.of(Role.HOST));
        }
    }

    @Test
    void serverRefusesAnotherVersionAndTheClientGetsTheReason() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            client.send(0, new Hello(2, Role.HOST));
            assertThatThrownBy(() -> Handshake.server(server, 4096, 1))
                    .isInstanceOfSatisfying(UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.UNSUPPORTED_VERSION))
                    .hasMessage("protocol version 2 is not supported; this service speaks 1");
            Message reply = client.receive().message();
            assertThat(reply).isEqualTo(new Message.ErrorReply(UromStatus.UNSUPPORTED_VERSION,
                    "protocol version 2 is not supported; this service speaks 1"));
        }
    }

    @Test
    void clientTurnsAnErrorAnswerIntoItsStatus() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel client = new FrameChannel(pair.client(), Protocol.CONTROL_FRAME_LIMIT);
                FrameChannel server = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            server.send(0, new Message.ErrorReply(UromStatus.UNSUPPORTED_VERSION, "protocol version 1 is not supported; this service speaks 2"));
            assertThatThrownBy(() -> Handshake.client(client, Role.HOST))
                    .isInstanceOfSatisfying(UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.UNSUPPORTED_VERSION))
                    .hasMessage("protocol version 1 is not supported; this service speaks 2");
        }
    }

    @Test
    void checkRefusesBadMagic() {
        assertThat(Handshake.check(new Hello(0x12345678, 1, Role.WORKER))).get()
                .satisfies(e -> assertThat(e.status()).isEqualTo(UromStatus.UNSUPPORTED_VERSION))
                .satisfies(e -> assertThat(e.message()).isEqualTo("HELLO magic 0x12345678 is not UROM (0x4d4f5255); the peer does not speak this protocol"));
        assertThat(Handshake.check(Hello.of(Role.WORKER))).isEmpty();
    }
}
