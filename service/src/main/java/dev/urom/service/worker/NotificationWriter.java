// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.service.metrics.WorkerStats;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Protocol;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Packs notifications, checks them and writes them to their host connections as NOTIFY frames,
 * through one buffer it reuses; not thread-safe: it calls plugins, on the data-plane thread only,
 * and never throws for what a plugin packs.
 *
 * <ul>
 *   <li>A notification is packed by its plugin's {@code packNotification}; the worker's own answers
 *       ({@link WorkerAnswer#madeByWorker}) and those of a plugin not open, by {@link
 *       WorkerNotification#pack()}.
 *   <li>Packed bytes are checked against the SPI's layout: at least the header, its {@code len}
 *       matching the bytes that follow, a frame within the limit. Bytes that fail, or a packer that
 *       throws, are replaced by the notification's header alone with TOO_BIG (over the limit), the
 *       plugin's status, or UNEXPECTED; the plugin's failure is logged.
 *   <li>Every notification is counted in the {@link WorkerStats} with the status it carries, those
 *       {@link #dropped} for a connection that has gone included.
 *   <li>A connection whose write fails is dropped; one with more than the pause bytes queued is no
 *       longer read until its output drains ({@link HostConnection#pauseReadingWhileOver}).
 * </ul>
 */
final class NotificationWriter {
    private static final Logger LOG = LogManager.getLogger(DataPlane.class);
    private static final byte[] NO_PAYLOAD = new byte[0];
    private static final int STATUS_COUNT = UromStatus.values().length;
    /** Little-endian reads of a packed notification's fields, without a ByteBuffer per notification (workers run C1, which does not elide them). */
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final long workerId;
    private final WorkerHost host;
    private final HostConnections connections;
    private final WorkerStats stats;
    private final int frameLimit;
    private final int outputPauseBytes;
    private final ByteBuffer writeBuffer;

    /**
     * @param frameLimit the largest frame after its length field
     * @param outputPauseBytes queued output above which a connection is no longer read
     */
    NotificationWriter(
            long workerId,
            WorkerHost host,
            HostConnections connections,
            WorkerStats stats,
            int frameLimit,
            int outputPauseBytes) {
        this.workerId = workerId;
        this.host = host;
        this.connections = connections;
        this.stats = stats;
        this.frameLimit = frameLimit;
        this.outputPauseBytes = outputPauseBytes;
        this.writeBuffer = ByteBuffer.allocateDirect(Protocol.LENGTH_FIELD_BYTES + frameLimit)
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Packs {@code answer}'s notification and writes it to {@code connection}, with a refusal's reason after it. */
    void send(HostConnection connection, WorkerAnswer answer) {
        WorkerNotification notification = answer.notification();
        byte[] packed = pack(notification, answer.madeByWorker());
        stats.notified(
                notification.destId(),
                notification.type(),
                notification.uromContext(),
                packedStatus(packed),
                System.nanoTime());
        write(connection, packed, answer.refusalReason().orElse(""));
    }

    /** Counts and logs {@code notification}, whose connection has gone or is closing. */
    void dropped(WorkerNotification notification) {
        stats.notified(
                notification.destId(),
                notification.type(),
                notification.uromContext(),
                notification.status(),
                System.nanoTime());
        LOG.debug(
                "worker {}: notification for host connection {} dropped: the connection has gone (plugin id 0x{}, context {})",
                workerId,
                notification.destId(),
                Long.toHexString(notification.type()),
                notification.uromContext());
    }

    /** Answers a command over the connection's in-flight limit with AGAIN, at once: the plugin never sees it. */
    void answerAgain(HostConnection connection, long type, long uromContext) {
        byte[] packed = new WorkerNotification(connection.id(), type, uromContext, UromStatus.AGAIN, NO_PAYLOAD).pack();
        stats.notified(connection.id(), type, uromContext, UromStatus.AGAIN, System.nanoTime());
        write(connection, packed, "");
    }

    private void write(HostConnection connection, byte[] packed, String reason) {
        try {
            connection.send(FrameCodec.encodeNotify(writeBuffer, 0, packed, reason));
        } catch (IOException e) {
            connections.drop(connection, "writing a notification failed: " + e.getMessage());
            return;
        }
        connection.pauseReadingWhileOver(outputPauseBytes);
    }

    /** The NOTIFY body for {@code n}: its plugin's packing, checked; the header alone with a failure status when that fails. */
    private byte[] pack(WorkerNotification n, boolean madeByWorker) {
        PluginIface plugin = host.plugin(n.type()).orElse(null);
        byte[] packed;
        try {
            // the worker's own answers never go through a plugin's packer (WorkerHost's contract)
            packed = plugin == null || madeByWorker ? n.pack() : plugin.packNotification(n);
        } catch (UromException e) {
            LOG.warn(
                    "worker {}: plugin 0x{} could not pack a notification (context {}): {}: {}",
                    workerId,
                    Long.toHexString(n.type()),
                    n.uromContext(),
                    e.status(),
                    e.getMessage());
            return failure(n, e.status());
        } catch (RuntimeException | StackOverflowError e) {
            LOG.error(
                    "worker {}: plugin 0x{} threw while packing a notification (context {})",
                    workerId,
                    Long.toHexString(n.type()),
                    n.uromContext(),
                    e);
            return failure(n, UromStatus.UNEXPECTED);
        }
        String problem = problem(packed);
        if (problem != null) {
            LOG.warn(
                    "worker {}: plugin 0x{} packed a notification (context {}) that cannot be sent: {}",
                    workerId,
                    Long.toHexString(n.type()),
                    n.uromContext(),
                    problem);
            return failure(
                    n,
                    packed != null && packed.length + Protocol.FRAME_HEADER_BYTES > frameLimit
                            ? UromStatus.TOO_BIG
                            : UromStatus.UNEXPECTED);
        }
        return packed;
    }

    /** Why {@code packed} cannot be sent; null when it can. */
    private String problem(byte[] packed) {
        if (packed == null) {
            return "no bytes";
        }
        if (packed.length < WorkerNotification.HEADER_BYTES) {
            return packed.length + " bytes, shorter than the " + WorkerNotification.HEADER_BYTES + "-byte header";
        }
        long len = (long) LONG_LE.get(packed, WorkerNotification.LEN_OFFSET);
        if (len != packed.length - WorkerNotification.HEADER_BYTES) {
            return "its len field says " + Long.toUnsignedString(len) + " but "
                    + (packed.length - WorkerNotification.HEADER_BYTES) + " payload bytes follow";
        }
        if (packed.length + Protocol.FRAME_HEADER_BYTES > frameLimit) {
            return "a frame of " + (packed.length + Protocol.FRAME_HEADER_BYTES) + " bytes would be over the limit of "
                    + frameLimit;
        }
        return null;
    }

    /** The status field of a packed notification (its length checked by {@link #pack}); UNKNOWN when it is not a DOCA status. */
    private static UromStatus packedStatus(byte[] packed) {
        int code = (int) INT_LE.get(packed, WorkerNotification.STATUS_OFFSET);
        return code >= 0 && code < STATUS_COUNT ? UromStatus.fromCode(code) : UromStatus.UNKNOWN;
    }

    private static byte[] failure(WorkerNotification n, UromStatus status) {
        return new WorkerNotification(n.destId(), n.type(), n.uromContext(), status, NO_PAYLOAD).pack();
    }
}
