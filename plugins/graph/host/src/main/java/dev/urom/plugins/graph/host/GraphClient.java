// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph.host;

import dev.urom.host.Notification;
import dev.urom.host.Worker;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The host side of the graph sample plugin: LOOPBACK sends {@code { u64 type = 0; u64 data; }}
 * and the plugin answers the same layout with the same data. Stateless and thread-safe.
 */
public final class GraphClient {
    /** Bytes of a graph command and of its notification. */
    public static final int MESSAGE_BYTES = 16;
    /** The LOOPBACK command type. */
    public static final long LOOPBACK = 0;

    private GraphClient() {}

    /**
     * Sends {@code value} through the graph plugin {@code graphPluginId} of {@code worker}.
     *
     * @return completes with the echoed value, or exceptionally with a {@link UromException}: the
     *     notification's status when it is not SUCCESS, UNEXPECTED for an answer that is not a
     *     16-byte LOOPBACK
     */
    public static CompletableFuture<Long> loopback(Worker worker, long graphPluginId, long value) {
        return worker.submit(graphPluginId, loopbackCommand(value)).thenApply(GraphClient::echoedValue);
    }

    /** The bytes of a LOOPBACK of {@code value}: the command and, from a working plugin, its answer. */
    public static byte[] loopbackCommand(long value) {
        return ByteBuffer.allocate(MESSAGE_BYTES)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(LOOPBACK)
                .putLong(value)
                .array();
    }

    /**
     * The value a LOOPBACK answer echoes.
     *
     * @throws CompletionException wrapping a {@link UromException}: the notification's status when it
     *     is not SUCCESS, UNEXPECTED for an answer that is not a 16-byte LOOPBACK
     */
    static long echoedValue(Notification n) {
        if (!n.status().isSuccess()) {
            throw new CompletionException(new UromException(n.status(), "graph LOOPBACK failed: " + n.status()));
        }
        if (n.payload().length != MESSAGE_BYTES) {
            throw new CompletionException(new UromException(
                    UromStatus.UNEXPECTED,
                    "graph LOOPBACK answer has " + n.payload().length + " bytes; expected " + MESSAGE_BYTES));
        }
        ByteBuffer in = ByteBuffer.wrap(n.payload()).order(ByteOrder.LITTLE_ENDIAN);
        long type = in.getLong();
        if (type != LOOPBACK) {
            throw new CompletionException(new UromException(
                    UromStatus.UNEXPECTED, "graph answer has type " + type + " instead of LOOPBACK (0)"));
        }
        return in.getLong();
    }
}
