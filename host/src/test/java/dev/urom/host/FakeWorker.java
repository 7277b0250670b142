// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.Message.Stop;
import dev.urom.wire.Message.StopOk;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServerHandshake;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test double of a worker process, in-process, over a real Unix socket and the real wire classes:
 * answers each COMMAND with a NOTIFY echoing its payload (from a small pool, so answers can come
 * out of order), or NOT_FOUND for a plugin outside its mask; in hold mode it keeps commands
 * unanswered until {@link #answerHeld()}.
 */
final class FakeWorker implements AutoCloseable {
    final long id;
    final long gid;
    final long pluginMask;
    final ServiceAddress address;
    final AtomicInteger commandsReceived = new AtomicInteger();
    final LinkedBlockingQueue<Command> held = new LinkedBlockingQueue<>();
    final LinkedBlockingQueue<Message> controlSeen = new LinkedBlockingQueue<>();
    volatile boolean hold;

    private final int maxMessageSize;
    private final int maxInflight;
    private final ServerSocketChannel server;
    private final List<FrameChannel> connections = new CopyOnWriteArrayList<>();
    private final ExecutorService responders = Executors.newFixedThreadPool(3, daemon("fake-worker-responder"));
    private final AtomicLong destIds = new AtomicLong(1000);

    FakeWorker(Path dir, long id, long gid, long pluginMask, int maxMessageSize, int maxInflight) throws IOException {
        this.id = id;
        this.gid = gid;
        this.pluginMask = pluginMask;
        this.maxMessageSize = maxMessageSize;
        this.maxInflight = maxInflight;
        this.address = ServiceAddress.unix(dir.resolve("worker-" + id + ".sock"));
        this.server = address.bind();
        Thread acceptor = new Thread(this::acceptLoop, "fake-worker-" + id + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private void acceptLoop() {
        try {
            while (true) {
                SocketChannel ch = server.accept();
                FrameChannel conn = new FrameChannel(ch, Protocol.dataFrameLimit(maxMessageSize));
                connections.add(conn);
                Thread t = new Thread(() -> serve(conn), "fake-worker-" + id + "-conn");
                t.setDaemon(true);
                t.start();
            }
        } catch (IOException closed) {
            // the test is over
        }
    }

    private void serve(FrameChannel conn) {
        try (conn) {
            Handshake.server(
                    conn,
                    new ServerHandshake(
                            Proofs.Channel.DATA,
                            hello -> new ServerHandshake.Decision.Admit(Principal.ANONYMOUS),
                            maxMessageSize,
                            destIds.incrementAndGet(),
                            maxInflight),
                    Duration.ofSeconds(10));
            while (true) {
                Message m = conn.receive().message();
                if (m instanceof Command c) {
                    commandsReceived.incrementAndGet();
                    if (hold) {
                        held.add(c);
                    } else {
                        responders.execute(() -> answer(conn, c));
                    }
                } else if (m instanceof Stop) {
                    controlSeen.add(m);
                    conn.send(0, new StopOk());
                    return;
                } else {
                    controlSeen.add(m);
                }
            }
        } catch (Exception ended) {
            // connection closed by the host or by dropConnections
        }
    }

    private void answer(FrameChannel conn, Command c) {
        Notify n = (c.type() & pluginMask) == 0 || Long.bitCount(c.type()) != 1
                ? new Notify(c.type(), c.uromContext(), UromStatus.NOT_FOUND, new byte[0])
                : new Notify(c.type(), c.uromContext(), UromStatus.SUCCESS, c.payload());
        try {
            conn.send(0, Notify.fromPacked(n.packed()));
        } catch (IOException gone) {
            // the host went away
        }
    }

    /** Answers a held command on the newest connection. */
    void reply(Command c) {
        answer(connections.get(connections.size() - 1), c);
    }

    /** The next command held back, waiting for it (generously). */
    Command nextHeld() throws InterruptedException {
        Command c = held.poll(30, java.util.concurrent.TimeUnit.SECONDS);
        if (c == null) {
            throw new AssertionError("the fake worker received no command within 30 s");
        }
        return c;
    }

    /** Closes every host connection abruptly, as a crashing worker would. */
    void dropConnections() {
        connections.forEach(FrameChannel::close);
    }

    @Override
    public void close() throws IOException {
        server.close();
        dropConnections();
        responders.shutdownNow();
    }
}
