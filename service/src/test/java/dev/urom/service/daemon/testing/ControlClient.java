// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon.testing;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Proofs;
import dev.urom.spi.UromException;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.WireException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** A bare control connection for tests: handshake, then one request and its reply at a time. Not thread-safe. */
public final class ControlClient implements AutoCloseable {
    private final FrameChannel channel;
    private final HelloOk hello;
    private final AtomicLong requestIds = new AtomicLong();

    private ControlClient(FrameChannel channel, HelloOk hello) {
        this.channel = channel;
        this.hello = hello;
    }

    /** A connection to {@code address} without a key (as the test's Unix user on a Unix socket). */
    public static ControlClient connect(ServiceAddress address) throws IOException, UromException {
        return connect(address, Optional.empty());
    }

    /** A connection to {@code address} that proves {@code key} when given. */
    public static ControlClient connect(ServiceAddress address, Optional<AuthKey> key)
            throws IOException, UromException {
        FrameChannel channel = new FrameChannel(address.connect(), Protocol.CONTROL_FRAME_LIMIT);
        try {
            return new ControlClient(channel, handshake(channel, key));
        } catch (IOException | UromException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The control handshake of a host on {@code channel}. */
    public static HelloOk handshake(FrameChannel channel, Optional<AuthKey> key) throws IOException, UromException {
        return Handshake.client(channel, Role.HOST, Proofs.Channel.CONTROL, key, Duration.ofSeconds(30));
    }

    /** The socket, for tests that check how the daemon ends the connection. */
    public java.nio.channels.SocketChannel socket() {
        return channel.socket();
    }

    public HelloOk hello() {
        return hello;
    }

    /** Sends {@code request} without waiting for its reply; returns its request id. */
    public long send(Message request) throws IOException {
        long id = requestIds.incrementAndGet();
        channel.send(id, request);
        return id;
    }

    /** The next frame the daemon sends. */
    public Frame receive() throws IOException, WireException {
        return channel.receive();
    }

    /** Sends {@code request} and returns the reply, checking that it echoes the request id. */
    public Message call(Message request) throws IOException, WireException {
        long id = requestIds.incrementAndGet();
        channel.send(id, request);
        Frame reply = channel.receive();
        if (reply.requestId() != id) {
            throw new AssertionError("reply carries request id " + reply.requestId() + ", expected " + id);
        }
        return reply.message();
    }

    public WorkerStartReply start(long workerId, long mask, long gid, List<String> env, List<Integer> cpus)
            throws IOException, WireException {
        return (WorkerStartReply) call(new WorkerStartRequest(workerId, mask, gid, env, cpus));
    }

    public WorkerStartReply start(long workerId, long mask, List<String> env) throws IOException, WireException {
        return start(workerId, mask, 0, env, List.of());
    }

    @Override
    public void close() {
        channel.close();
    }
}
