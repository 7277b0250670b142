// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Message;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.WireException;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Synchronous request/response over one host ↔ daemon connection, matched by request id: callers
 * block in {@link #request}; one daemon reader thread completes their answers.
 *
 * <p>Thread-safe. Owns the channel. Once the connection is lost every waiting and later request
 * fails with NOT_CONNECTED.
 */
final class ControlConnection implements AutoCloseable {
    private static final Logger LOG = System.getLogger(ControlConnection.class.getName());

    private final ServiceAddress address;
    private final FrameChannel channel;
    private final Duration timeout;
    private final AtomicLong requestIds = new AtomicLong();
    private final Map<Long, CompletableFuture<Message>> waiting = new ConcurrentHashMap<>();
    private volatile String lostBecause;

    ControlConnection(ServiceAddress address, FrameChannel channel, Duration timeout) {
        this.address = address;
        this.channel = channel;
        this.timeout = timeout;
        Thread reader = new Thread(this::readLoop, "urom-control-" + address);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Sends {@code request} and waits for its answer.
     *
     * @throws UromException the daemon's status and message when it answers ERROR; TIME_OUT with
     *     no answer within the time limit; NOT_CONNECTED when the connection is lost
     */
    Message request(Message request) throws UromException {
        long id = requestIds.incrementAndGet();
        CompletableFuture<Message> answer = new CompletableFuture<>();
        waiting.put(id, answer);
        try {
            if (lostBecause != null) {
                throw notConnected();
            }
            try {
                channel.send(id, request);
            } catch (IOException e) {
                throw new UromException(
                        UromStatus.NOT_CONNECTED,
                        "cannot send " + request.messageType() + " to " + address + ": " + e.getMessage());
            }
            Message reply = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (reply instanceof ErrorReply e) {
                throw new UromException(e.status().isSuccess() ? UromStatus.UNEXPECTED : e.status(), e.message());
            }
            return reply;
        } catch (TimeoutException e) {
            throw new UromException(
                    UromStatus.TIME_OUT,
                    "no answer from " + address + " to " + request.messageType() + " within " + timeout.toMillis()
                            + " ms");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof UromException u
                    ? u
                    : new UromException(UromStatus.UNEXPECTED, String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UromException(
                    UromStatus.SHUTDOWN,
                    "interrupted while waiting for " + address + " to answer " + request.messageType());
        } finally {
            waiting.remove(id);
        }
    }

    private UromException notConnected() {
        return new UromException(UromStatus.NOT_CONNECTED, "connection to " + address + " lost: " + lostBecause);
    }

    private void readLoop() {
        try {
            while (true) {
                Frame frame = channel.receive();
                CompletableFuture<Message> answer = waiting.get(frame.requestId());
                if (answer == null) {
                    LOG.log(
                            Level.WARNING,
                            "{0} answered request {1} that nobody is waiting for ({2})",
                            address,
                            Long.toUnsignedString(frame.requestId()),
                            frame.message().messageType());
                } else {
                    answer.complete(frame.message());
                }
            }
        } catch (IOException | WireException e) {
            lost(channel.isOpen() ? e.getMessage() : "closed by this host");
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "control connection to " + address + " failed", e);
            lost(e.toString());
        }
    }

    private void lost(String reason) {
        lostBecause = reason == null ? "closed" : reason;
        LOG.log(Level.DEBUG, "control connection to {0} ended: {1}", address, lostBecause);
        channel.close();
        UromException failure = notConnected();
        waiting.values().forEach(f -> f.completeExceptionally(failure));
    }

    @Override
    public void close() {
        channel.close();
    }
}
