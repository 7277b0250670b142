// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Message;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.Message.Stop;
import dev.urom.wire.Message.StopOk;
import dev.urom.wire.WireException;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One host ↔ worker connection: sends commands, matches NOTIFYs to them by {@code urom_context}
 * on one daemon reader thread, and fails every outstanding command with CONNECTION_RESET when the
 * connection ends. Requests (ADDRESS, DOMAIN_SET) carry their own request ids; their replies are
 * matched by request id on the same reader thread, and fail with CONNECTION_RESET when the
 * connection ends first.
 *
 * <p>Thread-safe. Owns the channel. Whoever removes a command from {@code inflight} completes its
 * future, so each future completes exactly once.
 */
final class DataConnection {
    private static final Logger LOG = System.getLogger(DataConnection.class.getName());

    private record Pending(CompletableFuture<Notification> future, byte[] userData) {}

    private final String name;
    private final FrameChannel channel;
    private final int maxInflight;
    private final AtomicInteger outstanding = new AtomicInteger();
    private final AtomicLong contexts = new AtomicLong();
    private final Map<Long, Pending> inflight = new ConcurrentHashMap<>();
    private final AtomicLong requestIds = new AtomicLong();
    private final Map<Long, CompletableFuture<Message>> requests = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private volatile boolean dead;

    DataConnection(String name, FrameChannel channel, int maxInflight, Consumer<String> onEnd) {
        this.name = name;
        this.channel = channel;
        this.maxInflight = maxInflight;
        Thread reader = new Thread(() -> readLoop(onEnd), "urom-" + name + "-reader");
        reader.setDaemon(true);
        reader.start();
    }

    CompletableFuture<Notification> submit(long pluginId, byte[] payload, byte[] userData) {
        if (outstanding.incrementAndGet() > maxInflight) {
            outstanding.decrementAndGet();
            return CompletableFuture.completedFuture(Notification.failed(UromStatus.AGAIN, userData));
        }
        long context = contexts.incrementAndGet();
        CompletableFuture<Notification> future = new CompletableFuture<>();
        inflight.put(context, new Pending(future, userData));
        if (dead) {
            fail(context);
            return future;
        }
        try {
            channel.send(0, new Command(pluginId, context, payload));
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "{0}: command {1} not sent: {2}", name, context, e.getMessage());
            fail(context);
        }
        return future;
    }

    private void fail(long context) {
        Pending p = inflight.remove(context);
        if (p != null) {
            outstanding.decrementAndGet();
            p.future.complete(Notification.failed(UromStatus.CONNECTION_RESET, p.userData));
        }
    }

    /**
     * Sends {@code request} under a new request id; the future completes with the worker's reply
     * of that id (whatever its type), or exceptionally with CONNECTION_RESET.
     */
    CompletableFuture<Message> request(Message request) {
        long id = requestIds.incrementAndGet();
        CompletableFuture<Message> future = new CompletableFuture<>();
        requests.put(id, future);
        if (dead) {
            failRequest(id);
            return future;
        }
        try {
            channel.send(id, request);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "{0}: {1} not sent: {2}", name, request.messageType(), e.getMessage());
            failRequest(id);
        }
        return future;
    }

    private void failRequest(long id) {
        CompletableFuture<Message> f = requests.remove(id);
        if (f != null) {
            f.completeExceptionally(
                    new UromException(UromStatus.CONNECTION_RESET, name + ": the connection ended before the reply"));
        }
    }

    /** Sends STOP; the connection ends when the worker answers STOP_OK or closes. */
    void sendStop() {
        try {
            channel.send(0, new Stop());
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "{0}: STOP not sent: {1}", name, e.getMessage());
            channel.close();
        }
    }

    /** Completes when the connection has ended and every outstanding command has been failed. */
    CompletableFuture<Void> ended() {
        return ended;
    }

    void close() {
        channel.close();
    }

    private void readLoop(Consumer<String> onEnd) {
        String reason;
        try {
            while (true) {
                Frame frame = channel.receive();
                Message m = frame.message();
                if (frame.requestId() != 0) {
                    CompletableFuture<Message> f = requests.remove(frame.requestId());
                    if (f == null) {
                        LOG.log(
                                Level.WARNING,
                                "{0}: {1} for unknown request id {2} ignored",
                                name,
                                m.messageType(),
                                Long.toUnsignedString(frame.requestId()));
                    } else {
                        f.complete(m);
                    }
                } else if (m instanceof Notify n) {
                    Pending p = inflight.remove(n.uromContext());
                    if (p == null) {
                        LOG.log(
                                Level.WARNING,
                                "{0}: NOTIFY for unknown command context {1} ignored",
                                name,
                                Long.toUnsignedString(n.uromContext()));
                        continue;
                    }
                    outstanding.decrementAndGet();
                    p.future.complete(new Notification(n.status(), n.payload(), p.userData, n.reason()));
                } else if (m instanceof StopOk) {
                    reason = "stopped";
                    break;
                } else {
                    LOG.log(Level.WARNING, "{0}: unexpected {1} from the worker ignored", name, m.messageType());
                }
            }
        } catch (IOException | WireException e) {
            reason = channel.isOpen() ? e.getMessage() : "closed by this host";
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, name + ": reader failed", e);
            reason = e.toString();
        }
        dead = true;
        channel.close();
        LOG.log(
                Level.DEBUG,
                "{0}: connection ended ({1}), {2} commands outstanding",
                name,
                reason,
                String.valueOf(inflight.size()));
        try {
            onEnd.accept(reason);
        } finally {
            for (Long context : inflight.keySet()) {
                fail(context);
            }
            for (Long id : requests.keySet()) {
                failRequest(id);
            }
            ended.complete(null);
        }
    }
}
