// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Message.WorkersInGroupReply;
import dev.urom.wire.Message.WorkersInGroupRequest;
import dev.urom.wire.Message.WorkersInfoReply;
import dev.urom.wire.Message.WorkersInfoRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServerHandshake;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.ServicePlugin;
import dev.urom.wire.ServiceWorker;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test double of the urom daemon, in-process, over a real Unix socket and the real wire classes.
 * WORKER_START starts a {@link FakeWorker} (or joins the one with that id) and answers with its
 * address; knobs make it refuse the handshake, refuse starts, or stay silent.
 */
final class FakeDaemon implements AutoCloseable {
    final ServiceAddress address;
    final int maxMessageSize;
    final Map<Long, FakeWorker> workers = new ConcurrentHashMap<>();
    volatile List<ServicePlugin> plugins = List.of();
    /** What WORKERS_INFO answers, whatever the group asked for. */
    volatile List<ServiceWorker> workersInfo = List.of();
    /** When set, the handshake is refused with this ERROR. */
    volatile ErrorReply refuseHello;
    /** When set, WORKER_START is answered with this ERROR. */
    volatile ErrorReply refuseStart;
    /** When set, WORKER_START is answered with a WORKER_START_REPLY of this status. */
    volatile UromStatus startReplyStatus;

    volatile boolean silent;
    /** The max_inflight that the workers started from now on announce in their HELLO_OK (0: none). */
    volatile int workerMaxInflight;

    private final Path dir;
    private final ServerSocketChannel server;
    private final List<FrameChannel> connections = new CopyOnWriteArrayList<>();
    private final AtomicLong nextWorkerId = new AtomicLong(100);

    FakeDaemon(Path dir, int maxMessageSize) throws IOException {
        this.dir = dir;
        this.maxMessageSize = maxMessageSize;
        this.address = ServiceAddress.unix(dir.resolve("daemon.sock"));
        this.server = address.bind();
        Thread acceptor = new Thread(this::acceptLoop, "fake-daemon-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void acceptLoop() {
        try {
            while (true) {
                SocketChannel ch = server.accept();
                FrameChannel conn = new FrameChannel(ch, Protocol.CONTROL_FRAME_LIMIT);
                connections.add(conn);
                Thread t = new Thread(() -> serve(conn), "fake-daemon-conn");
                t.setDaemon(true);
                t.start();
            }
        } catch (IOException closed) {
            // the test is over
        }
    }

    private void serve(FrameChannel conn) {
        try (conn) {
            if (refuseHello != null) {
                conn.receive();
                conn.send(0, refuseHello);
                return;
            }
            Handshake.server(
                    conn,
                    new ServerHandshake(
                            Proofs.Channel.CONTROL,
                            hello -> new ServerHandshake.Decision.Admit(Principal.ANONYMOUS),
                            maxMessageSize,
                            0,
                            0),
                    Duration.ofSeconds(10));
            while (true) {
                Frame f = conn.receive();
                if (silent) {
                    continue;
                }
                conn.send(f.requestId(), answer(f.message()));
            }
        } catch (Exception ended) {
            // connection closed
        }
    }

    private Message answer(Message m) throws IOException {
        if (m instanceof PluginsRequest) {
            return new PluginsReply(plugins);
        }
        if (m instanceof WorkersInfoRequest) {
            return new WorkersInfoReply(workersInfo);
        }
        if (m instanceof WorkersInGroupRequest g) {
            return new WorkersInGroupReply(workers.values().stream()
                    .filter(w -> w.gid == g.gid())
                    .map(w -> w.id)
                    .sorted()
                    .toList());
        }
        if (m instanceof WorkerStartRequest s) {
            if (refuseStart != null) {
                return refuseStart;
            }
            if (startReplyStatus != null) {
                return new WorkerStartReply(
                        startReplyStatus, s.workerId(), s.gid(), s.pluginMask(), "", "plugin 0x4 failed to open");
            }
            long id = s.workerId() == Protocol.ANY_WORKER ? nextWorkerId.getAndIncrement() : s.workerId();
            FakeWorker w = workers.get(id);
            if (w == null) {
                w = new FakeWorker(dir, id, s.gid(), s.pluginMask(), maxMessageSize, workerMaxInflight);
                workers.put(id, w);
            }
            return new WorkerStartReply(UromStatus.SUCCESS, w.id, w.gid, w.pluginMask, w.address.toString(), "");
        }
        return new ErrorReply(UromStatus.NOT_SUPPORTED, "fake daemon does not answer " + m.messageType());
    }

    @Override
    public void close() throws IOException {
        server.close();
        connections.forEach(FrameChannel::close);
        for (FakeWorker w : workers.values()) {
            w.close();
        }
    }
}
