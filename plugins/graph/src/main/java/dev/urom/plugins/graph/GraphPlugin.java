// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The graph sample plugin (LOOPBACK) in Java, the twin of {@code worker_graph.so}: the same
 * statuses, notification payloads, packed notifications and address length.
 *
 * <p>A {@link GraphMessage} LOOPBACK command is answered by a notification with the same type and
 * data, status SUCCESS, and the command's destId, type and uromContext. A payload that is not
 * exactly {@value GraphMessage#BYTES} bytes is refused with {@link UromStatus#INVALID_VALUE}, any
 * other command type with {@link UromStatus#NOT_SUPPORTED}; a refused command gets no notification
 * from the plugin. The address is {@value #ADDRESS_BYTES} bytes: the instance number within this
 * class's loader, little-endian.
 *
 * <p>Not thread-safe: the worker drives a plugin from one thread (see {@link PluginIface}).
 */
public final class GraphPlugin implements PluginIface {
    /** Length of {@link #address()}, as the C plugin's. */
    public static final int ADDRESS_BYTES = 8;

    private static final AtomicLong INSTANCES_OPENED = new AtomicLong();

    private final Queue<WorkerNotification> answers = new ArrayDeque<>();
    private byte[] address;

    @Override
    public void open(WorkerContext context) {
        requireNonNull(context, "context is null");
        address = ByteBuffer.allocate(ADDRESS_BYTES)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(INSTANCES_OPENED.incrementAndGet())
                .array();
    }

    @Override
    public void close() {
        answers.clear();
    }

    @Override
    public byte[] address() throws UromException {
        if (address == null) {
            throw new UromException(UromStatus.BAD_STATE, "the graph plugin has no address before it is opened");
        }
        return address.clone();
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        GraphMessage message = GraphMessage.decode(command.payload());
        if (!message.isLoopback()) {
            throw new UromException(
                    UromStatus.NOT_SUPPORTED,
                    "graph command type " + Long.toUnsignedString(message.type())
                            + " is not supported: the graph plugin knows only LOOPBACK (" + GraphMessage.LOOPBACK
                            + ")");
        }
        answers.add(WorkerNotification.replyTo(
                command,
                UromStatus.SUCCESS,
                GraphMessage.loopback(message.data()).encode()));
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {
        while (!answers.isEmpty()) {
            notifications.add(answers.remove());
        }
    }
}
