// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon.testing;

import dev.urom.wire.Frame;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.WireException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A connection whose frames a test writes and reads one by one, for peers that do not follow the
 * protocol (no handshake, requests before the handshake has ended) and to see exactly what the other
 * side sends back before it closes. Every read waits at most {@link Await#PATIENCE}. Not thread-safe.
 */
public final class RawConnection implements AutoCloseable {
    private final FrameChannel channel;
    private final ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "raw-connection-reader");
        thread.setDaemon(true);
        return thread;
    });

    private RawConnection(FrameChannel channel) {
        this.channel = channel;
    }

    /** Connects to {@code address}; nothing is sent. */
    public static RawConnection open(ServiceAddress address) throws IOException {
        return new RawConnection(new FrameChannel(address.connect(), Protocol.CONTROL_FRAME_LIMIT));
    }

    public FrameChannel channel() {
        return channel;
    }

    /** The local TCP port, by which the daemon's log names this connection. */
    public int localPort() throws IOException {
        return ((InetSocketAddress) channel.socket().getLocalAddress()).getPort();
    }

    /** Sends {@code message} with request id {@code requestId}. */
    public RawConnection send(long requestId, Message message) throws IOException {
        channel.send(requestId, message);
        return this;
    }

    /**
     * Sends {@code messages} (request ids 0, 1, 2, ...) in one write, so that they are all on their
     * way before the peer can answer the first one by closing.
     */
    public RawConnection sendAtOnce(Message... messages) throws IOException {
        List<ByteBuffer> frames = new ArrayList<>();
        int bytes = 0;
        for (int i = 0; i < messages.length; i++) {
            ByteBuffer frame = FrameCodec.encode(i, messages[i]);
            frames.add(frame);
            bytes += frame.remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(bytes);
        frames.forEach(all::put);
        all.flip();
        while (all.hasRemaining()) {
            channel.socket().write(all);
        }
        return this;
    }

    /** The next frame's message, or empty when the peer closed the connection (or reset it) first. */
    public Optional<Message> next() throws InterruptedException {
        Future<Frame> frame = reader.submit(channel::receive);
        try {
            return Optional.of(
                    frame.get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS).message());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException || e.getCause() instanceof WireException) {
                return Optional.empty();
            }
            throw new AssertionError("reading a frame failed", e.getCause());
        } catch (TimeoutException e) {
            channel.close();
            throw new AssertionError("the peer neither sent a frame nor closed the connection within "
                    + Await.PATIENCE.toSeconds() + " s");
        }
    }

    /** The next frame's message; fails the test when the connection ends first. */
    public Message receive() throws InterruptedException {
        return next().orElseThrow(() -> new AssertionError("the peer closed the connection instead of answering"));
    }

    @Override
    public void close() {
        channel.close();
        reader.shutdownNow();
    }
}
