// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.wire.Message.Command;
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
                    sends.add(CompletableFuture.runAsync(
                            () -> {
                                for (int i = 0; i < perThread; i++) {
                                    byte[] payload = new byte[1 + (i * 37) % 5000];
                                    payload[0] = (byte) thread;
                                    try {
                                        sender.send(0, new Command(thread, i, payload));
                                    } catch (java.io.IOException e) {
                                        throw new java.io.UncheckedIOException(e);
                                    }
                                }
                            },
                            pool));
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
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel receiver = new FrameChannel(pair.server(), 100)) {
            pair.client()
                    .write(ByteBuffer.allocate(6)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .putInt(20)
                            .putShort((short) 22)
                            .flip());
            pair.client().close();
            assertThatThrownBy(receiver::receive)
                    .isInstanceOf(EOFException.class)
                    .hasMessage("connection closed by the peer in the middle of a frame");
        }
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel receiver = new FrameChannel(pair.server(), 100)) {
            pair.client().close();
            assertThatThrownBy(receiver::receive)
                    .isInstanceOf(EOFException.class)
                    .hasMessage("connection closed by the peer");
        }
    }

    @Test
    void overLimitLengthIsRefusedWithoutWaitingForTheBody() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel receiver = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            pair.client()
                    .write(ByteBuffer.allocate(4)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .putInt(Integer.MAX_VALUE)
                            .flip());
            assertThatThrownBy(receiver::receive)
                    .isInstanceOfSatisfying(
                            WireException.class,
                            e -> assertThat(e.reason()).isEqualTo(WireException.Reason.FRAME_TOO_LARGE))
                    .hasMessage("frame of 2147483647 bytes is over the limit of 65536");
        }
    }

    @Test
    void aLargeFrameArrivingInPiecesIsReadWhole() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel receiver = new FrameChannel(pair.server(), Protocol.dataFrameLimit(1 << 20))) {
            byte[] payload = new byte[300_000];
            for (int i = 0; i < payload.length; i++) {
                payload[i] = (byte) (i * 7);
            }
            ByteBuffer frame = FrameCodec.encode(0, new Command(2, 9, payload));
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    while (frame.hasRemaining()) {
                        ByteBuffer piece = frame.slice().limit(Math.min(frame.remaining(), 10_000));
                        frame.position(frame.position() + piece.remaining());
                        while (piece.hasRemaining()) {
                            pair.client().write(piece);
                        }
                    }
                } catch (java.io.IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(receiver.receive().message()).isEqualTo(new Command(2, 9, payload));
            writer.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void receiveWithinClosesTheChannelWhenNothingArrivesInTime() throws Exception {
        try (WireSockets pair = WireSockets.open(dir);
                FrameChannel receiver = new FrameChannel(pair.server(), Protocol.CONTROL_FRAME_LIMIT)) {
            assertThatThrownBy(() -> receiver.receiveWithin(java.time.Duration.ofMillis(50)))
                    .isInstanceOf(java.io.IOException.class)
                    .hasMessage("no frame arrived within 50 ms");
            assertThat(receiver.isOpen()).isFalse();
        }
    }
}
