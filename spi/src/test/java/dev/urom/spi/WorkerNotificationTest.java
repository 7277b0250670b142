// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class WorkerNotificationTest {
    @Property
    void packLaysOutTheNotifyHeaderThenThePayload(
            @ForAll long type,
            @ForAll long context,
            @ForAll UromStatus status,
            @ForAll @Size(max = 64) byte[] payload) {
        byte[] packed = new WorkerNotification(7, type, context, status, payload).pack();

        ByteBuffer buffer = ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(packed).hasSize(WorkerNotification.HEADER_BYTES + payload.length);
        assertThat(buffer.getLong(0)).isEqualTo(type);
        assertThat(buffer.getLong(8)).isEqualTo(context);
        assertThat(buffer.getLong(16)).isEqualTo(payload.length);
        assertThat(buffer.getInt(24)).isEqualTo(status.code());
        assertThat(buffer.getInt(28)).isZero();
        byte[] tail = new byte[payload.length];
        buffer.get(32, tail);
        assertThat(tail).isEqualTo(payload);
    }

    @Property
    void theLayoutOffsetsNameWhereLenAndStatusLie(
            @ForAll long type,
            @ForAll long context,
            @ForAll UromStatus status,
            @ForAll @Size(max = 64) byte[] payload) {
        byte[] bytes = new WorkerNotification(7, type, context, status, payload).pack();
        ByteBuffer packed = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);

        assertThat(packed.getLong(WorkerNotification.LEN_OFFSET)).isEqualTo(payload.length);
        assertThat(packed.getInt(WorkerNotification.STATUS_OFFSET)).isEqualTo(status.code());
        assertThat(WorkerNotification.STATUS_OFFSET + Integer.BYTES + Integer.BYTES)
                .isEqualTo(WorkerNotification.HEADER_BYTES);
    }

    @Property
    void aReplyCopiesTheCommandsIdsAndContext(@ForAll long dest, @ForAll long type, @ForAll long context) {
        WorkerCommand command = new WorkerCommand(dest, type, context, new byte[] {1, 2});
        WorkerNotification reply = WorkerNotification.failure(command, UromStatus.TOO_BIG);

        assertThat(reply.destId()).isEqualTo(dest);
        assertThat(reply.type()).isEqualTo(type);
        assertThat(reply.uromContext()).isEqualTo(context);
        assertThat(reply.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(reply.payload()).isEmpty();
        assertThat(command.sizeWithHeader()).isEqualTo(26);
    }
}
