// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox.host;

import dev.urom.host.Notification;
import dev.urom.host.Worker;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The host side of the sandbox sample plugin (docs/sandbox-protocol.md): typed TAG_SEND, TAG_RECV,
 * MEM_MAP and BOUNCE over a {@link Worker}. Each call completes with the plugin's answer, or
 * exceptionally with a {@link UromException} carrying the status when it is not SUCCESS (a BOUNCE
 * that ran completes with its status instead, see {@link #bounce}). Stateless and thread-safe.
 */
public final class SandboxClient {
    /** Command and notification types. */
    public static final long MEM_MAP = 0;

    public static final long TAG_SEND = 1;
    public static final long TAG_RECV = 2;
    public static final long BOUNCE = 3;
    /** Bytes of a TAG_SEND or TAG_RECV command before any inline data. */
    public static final int TAG_COMMAND_BYTES = 56;

    private static final int RECV_NOTIFY_BYTES = 48;
    /** Bytes of a BOUNCE command, and of its notification. */
    public static final int BOUNCE_COMMAND_BYTES = 56;

    static final int BOUNCE_NOTIFY_BYTES = 40;
    /** The most bytes per BOUNCE message and the most rounds of one BOUNCE the plugin accepts. */
    public static final long BOUNCE_MAX_COUNT = 65536;

    public static final long BOUNCE_MAX_ITERATIONS = 1_000_000;

    /** A completed receive: the sender's tag and the bytes (inline), or the count written to a region. */
    public record Received(long senderTag, long count, byte[] data) {}

    /** A BOUNCE side: the initiator sends first and waits for the answer; the responder sends each message back. */
    public enum BounceRole {
        INITIATOR(0),
        RESPONDER(1);

        private final long code;

        BounceRole(long code) {
            this.code = code;
        }

        /** The command's {@code role} field. */
        public long code() {
            return code;
        }
    }

    /**
     * What one side of a BOUNCE that ran reported.
     *
     * @param elapsedNs from the start of its run to its end
     * @param iterationsDone the rounds completed
     * @param status SUCCESS after all rounds; TIME_OUT at the plugin's bound, CONNECTION_RESET or
     *     TOO_BIG when a round failed
     */
    public record Bounced(long elapsedNs, long iterationsDone, UromStatus status) {
        /** The mean round trip in ns, {@code elapsedNs / iterationsDone}; NaN when no round was done. */
        public double meanRoundTripNs() {
            return iterationsDone == 0 ? Double.NaN : (double) elapsedNs / iterationsDone;
        }
    }

    private SandboxClient() {}

    /**
     * Makes the worker do {@code iterations} tag round trips of {@code count} bytes with the peer
     * worker {@code dest}, which must get the matching BOUNCE of the other role (same tag and
     * count); the plugin holds the worker's thread for the run. Completes with what it reported,
     * whatever its status, once it ran; exceptionally with the status when the worker or plugin
     * refused it (INVALID_VALUE for values out of range, NOT_FOUND for an unknown {@code dest},
     * NOT_SUPPORTED from a plugin without BOUNCE).
     */
    public static CompletableFuture<Bounced> bounce(
            Worker worker,
            long pluginId,
            long context,
            long dest,
            long count,
            long tag,
            long iterations,
            BounceRole role) {
        return worker.submit(pluginId, bounceCommand(context, dest, count, tag, iterations, role))
                .thenApply(SandboxClient::bounced);
    }

    /** The BOUNCE command's bytes; the values go as given (the plugin checks them). */
    static byte[] bounceCommand(long context, long dest, long count, long tag, long iterations, BounceRole role) {
        return order(ByteBuffer.allocate(BOUNCE_COMMAND_BYTES))
                .putLong(BOUNCE)
                .putLong(context)
                .putLong(dest)
                .putLong(count)
                .putLong(tag)
                .putLong(iterations)
                .putLong(role.code())
                .array();
    }

    /**
     * A BOUNCE's answer: a 40-byte BOUNCE notification, whatever its status; a refusal (no payload)
     * throws {@link CompletionException} of a {@link UromException} with its status, anything else
     * one with UNEXPECTED.
     */
    static Bounced bounced(Notification n) {
        byte[] payload = n.payload();
        if (payload.length == 0 && !n.status().isSuccess()) {
            throw new CompletionException(new UromException(n.status(), "sandbox BOUNCE refused: " + n.status()));
        }
        ByteBuffer in = order(ByteBuffer.wrap(payload));
        if (payload.length != BOUNCE_NOTIFY_BYTES || in.getLong(0) != BOUNCE) {
            throw new CompletionException(new UromException(
                    UromStatus.UNEXPECTED,
                    "BOUNCE answer of " + payload.length + " bytes is not a BOUNCE notification"));
        }
        UromStatus status;
        try {
            status = UromStatus.fromCode(in.getInt(32));
        } catch (IllegalArgumentException e) {
            throw new CompletionException(new UromException(UromStatus.UNEXPECTED, "BOUNCE answer: " + e.getMessage()));
        }
        return new Bounced(in.getLong(16), in.getLong(24), status);
    }

    /** Sends {@code data} inline to the peer worker with domain id {@code dest}, tagged {@code tag}. */
    public static CompletableFuture<Void> tagSend(
            Worker worker, long pluginId, long context, long dest, long tag, byte[] data) {
        return send(worker, pluginId, context, dest, 0, data.length, tag, 0, data);
    }

    /** Sends {@code count} bytes at {@code offset} of the mapped region {@code memhId}. */
    public static CompletableFuture<Void> tagSendRegion(
            Worker worker, long pluginId, long context, long dest, long tag, long memhId, long offset, long count) {
        return send(worker, pluginId, context, dest, offset, count, tag, memhId, new byte[0]);
    }

    private static CompletableFuture<Void> send(
            Worker worker,
            long pluginId,
            long context,
            long dest,
            long buffer,
            long count,
            long tag,
            long memhId,
            byte[] inline) {
        byte[] command = order(ByteBuffer.allocate(TAG_COMMAND_BYTES + inline.length))
                .putLong(TAG_SEND)
                .putLong(context)
                .putLong(dest)
                .putLong(buffer)
                .putLong(count)
                .putLong(tag)
                .putLong(memhId)
                .put(inline)
                .array();
        return worker.submit(pluginId, command).thenApply(n -> {
            requireSuccess(n, "TAG_SEND");
            return null;
        });
    }

    /** Posts an inline receive of at most {@code maxCount} bytes matching {@code (tag, mask)}. */
    public static CompletableFuture<Received> tagRecv(
            Worker worker, long pluginId, long context, long tag, long mask, long maxCount) {
        return recv(worker, pluginId, context, 0, maxCount, tag, mask, 0);
    }

    /** Posts a receive into {@code offset} of the mapped region {@code memhId}. */
    public static CompletableFuture<Received> tagRecvRegion(
            Worker worker, long pluginId, long context, long tag, long mask, long memhId, long offset, long maxCount) {
        return recv(worker, pluginId, context, offset, maxCount, tag, mask, memhId);
    }

    private static CompletableFuture<Received> recv(
            Worker worker, long pluginId, long context, long buffer, long count, long tag, long mask, long memhId) {
        byte[] command = order(ByteBuffer.allocate(TAG_COMMAND_BYTES))
                .putLong(TAG_RECV)
                .putLong(context)
                .putLong(buffer)
                .putLong(count)
                .putLong(tag)
                .putLong(mask)
                .putLong(memhId)
                .array();
        return worker.submit(pluginId, command).thenApply(n -> {
            requireSuccess(n, "TAG_RECV");
            ByteBuffer in = order(ByteBuffer.wrap(n.payload()));
            if (n.payload().length < RECV_NOTIFY_BYTES || in.getLong(0) != TAG_RECV) {
                throw new CompletionException(
                        new UromException(UromStatus.UNEXPECTED, "TAG_RECV answer is not a TAG_RECV notification"));
            }
            long received = in.getLong(24);
            long senderTag = in.getLong(32);
            byte[] data = new byte[n.payload().length - RECV_NOTIFY_BYTES];
            in.get(RECV_NOTIFY_BYTES, data);
            return new Received(senderTag, received, data);
        });
    }

    /** Maps {@code length} bytes of the shared file {@code path} into the worker; completes with its memh id. */
    public static CompletableFuture<Long> memMap(Worker worker, long pluginId, long context, String path, long length) {
        byte[] name = path.getBytes(StandardCharsets.UTF_8);
        byte[] command = order(ByteBuffer.allocate(32 + name.length))
                .putLong(MEM_MAP)
                .putLong(context)
                .putLong(length)
                .putLong(name.length)
                .put(name)
                .array();
        return worker.submit(pluginId, command).thenApply(n -> {
            requireSuccess(n, "MEM_MAP");
            return order(ByteBuffer.wrap(n.payload())).getLong(16);
        });
    }

    private static void requireSuccess(Notification n, String what) {
        if (!n.status().isSuccess()) {
            throw new CompletionException(new UromException(n.status(), "sandbox " + what + " failed: " + n.status()));
        }
    }

    private static ByteBuffer order(ByteBuffer buffer) {
        return buffer.order(ByteOrder.LITTLE_ENDIAN);
    }
}
