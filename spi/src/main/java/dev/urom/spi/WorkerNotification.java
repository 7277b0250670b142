// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A notification from a plugin: {@code struct urom_worker_notif_desc} in Java form.
 *
 * <p>The payload array is owned by the notification and must not be changed once it is built.
 *
 * @param destId copied from the command it answers
 * @param type copied from the command it answers (the plugin id)
 * @param uromContext copied from the command it answers
 * @param status the outcome
 * @param payload the plugin notification bytes ({@code plugin_notif})
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public record WorkerNotification(long destId, long type, long uromContext, UromStatus status, byte[] payload) {
    /** Bytes of {@code struct urom_worker_notify} before {@code plugin_notif}. */
    public static final int HEADER_BYTES = 32;
    /** Where {@code len} (u64, little-endian) lies in {@code struct urom_worker_notify}: after type and urom_context. */
    public static final int LEN_OFFSET = 16;
    /** Where {@code status} (i32, little-endian) lies in {@code struct urom_worker_notify}: after len. */
    public static final int STATUS_OFFSET = 24;

    private static final byte[] NO_PAYLOAD = new byte[0];

    public WorkerNotification {
        requireNonNull(status, "status is null");
        requireNonNull(payload, "payload is null");
    }

    /** A notification answering {@code command}, with its ids and context copied. */
    public static WorkerNotification replyTo(WorkerCommand command, UromStatus status, byte[] payload) {
        return new WorkerNotification(command.destId(), command.type(), command.uromContext(), status, payload);
    }

    /**
     * This notification as {@code struct urom_worker_notify} lays it out, little-endian: type,
     * urom_context, len, status, reserved (zero), then the payload.
     */
    public byte[] pack() {
        return ByteBuffer.allocate(HEADER_BYTES + payload.length)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(type)
                .putLong(uromContext)
                .putLong(payload.length)
                .putInt(status.code())
                .putInt(0)
                .put(payload)
                .array();
    }

    /** An answer to {@code command} that carries only a failure status. */
    public static WorkerNotification failure(WorkerCommand command, UromStatus status) {
        return replyTo(command, status, NO_PAYLOAD);
    }
}
