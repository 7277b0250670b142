package dev.urom.framework.host;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The host side of the sandbox sample plugin (docs/sandbox-protocol.md): typed TAG_SEND, TAG_RECV
 * and MEM_MAP over a {@link Worker}. Each call completes with the plugin's answer, or exceptionally
 * with a {@link UromException} carrying the status when it is not SUCCESS. Stateless and
 * thread-safe.
 */
public final class SandboxClient {
    /** Command and notification types. */
    public static final long MEM_MAP = 0;
    public static final long TAG_SEND = 1;
    public static final long TAG_RECV = 2;
    /** Bytes of a TAG_SEND or TAG_RECV command before any inline data. */
    public static final int TAG_COMMAND_BYTES = 56;
    private static final int RECV_NOTIFY_BYTES = 48;

    /** A completed receive: the sender's tag and the bytes (inline), or the count written to a region. */
    public record Received(long senderTag, long count, byte[] data) {}

    private SandboxClient() {}

    /** Sends {@code data} inline to the peer worker with domain id {@code dest}, tagged {@code tag}. */
    public static CompletableFuture<Void> tagSend(Worker worker, long pluginId, long context, long dest, long tag, byte[] data) {
        return send(worker, pluginId, context, dest, 0, data.length, tag, 0, data);
    }

    /** Sends {@code count} bytes at {@code offset} of the mapped region {@code memhId}. */
    public static CompletableFuture<Void> tagSendRegion(Worker worker, long pluginId, long context, long dest, long tag,
            long memhId, long offset, long count) {
        return send(worker, pluginId, context, dest, offset, count, tag, memhId, new byte[0]);
    }

    private static CompletableFuture<Void> send(Worker worker, long pluginId, long context, long dest, long buffer, long count,
            long tag, long memhId, byte[] inline) {
        byte[] command = order(ByteBuffer.allocate(TAG_COMMAND_BYTES + inline.length))
                .putLong(TAG_SEND).putLong(context).putLong(dest).putLong(buffer).putLong(count).putLong(tag).putLong(memhId)
                .put(inline).array();
        return worker.submit(pluginId, command).thenApply(n -> {
            requireSuccess(n, "TAG_SEND");
            return null;
        });
    }

    /** Posts an inline receive of at most {@code maxCount} bytes matching {@code (tag, mask)}. */
    public static CompletableFuture<Received> tagRecv(Worker worker, long pluginId, long context, long tag, long mask, long maxCount) {
        return recv(worker, pluginId, context, 0, maxCount, tag, mask, 0);
    }

    /** Posts a receive into {@code offset} of the mapped region {@code memhId}. */
    public static CompletableFuture<Received> tagRecvRegion(Worker worker, long pluginId, long context, long tag, long mask,
            long memhId, long offset, long maxCount) {
        return recv(worker, pluginId, context, offset, maxCount, tag, mask, memhId);
    }

    private static CompletableFuture<Received> recv(Worker worker, long pluginId, long context, long buffer, long count,
            long tag, long mask, long memhId) {
        byte[] command = order(ByteBuffer.allocate(TAG_COMMAND_BYTES))
                .putLong(TAG_RECV).putLong(context).putLong(buffer).putLong(count).putLong(tag).putLong(mask).putLong(memhId)
                .array();
        return worker.submit(pluginId, command).thenApply(n -> {
            requireSuccess(n, "TAG_RECV");
            ByteBuffer in = order(ByteBuffer.wrap(n.payload()));
            if (n.payload().length < RECV_NOTIFY_BYTES || in.getLong(0) != TAG_RECV) {
                throw new CompletionException(new UromException(UromStatus.UNEXPECTED, "TAG_RECV answer is not a TAG_RECV notification"));
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
                .putLong(MEM_MAP).putLong(context).putLong(length).putLong(name.length).put(name).array();
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
