// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.wire.Message.WorkersInfoReply;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** WORKERS_INFO_REPLY: its round trip, its layout, and the values a decoder refuses. */
class WorkersInfoCodecProperties {
    @Provide
    Arbitrary<List<ServiceWorker>> workers() {
        return WireArbitraries.serviceWorkers().list().ofMaxSize(8);
    }

    @Property
    void everyListOfWorkersSurvivesEncodeThenDecode(
            @ForAll("workers") List<ServiceWorker> workers, @ForAll long requestId) throws WireException {
        ByteBuffer frame =
                FrameCodec.encode(requestId, new WorkersInfoReply(workers)).order(ByteOrder.LITTLE_ENDIAN);
        frame.getInt();

        Frame decoded = FrameCodec.decode(frame);

        assertThat(decoded.message()).isEqualTo(new WorkersInfoReply(workers));
        assertThat(decoded.requestId()).isEqualTo(requestId);
    }

    @Example
    void oneWorkerIsLaidOutFieldByField() {
        ServiceWorker worker = new ServiceWorker(5, 1, 0x3, ServiceWorker.State.RUNNING, 4321, 1500, 7, List.of("ab"));

        ByteBuffer body = body(new WorkersInfoReply(List.of(worker)));

        assertThat(body.getInt()).as("count").isEqualTo(1);
        assertThat(body.getLong()).as("worker_id").isEqualTo(5);
        assertThat(body.getLong()).as("gid").isEqualTo(1);
        assertThat(body.getLong()).as("plugin_mask").isEqualTo(3);
        assertThat(body.getInt()).as("state").isEqualTo(2);
        assertThat(body.getInt()).as("reserved").isZero();
        assertThat(body.getLong()).as("pid").isEqualTo(4321);
        assertThat(body.getLong()).as("uptime_ms").isEqualTo(1500);
        assertThat(body.getLong()).as("commands").isEqualTo(7);
        assertThat(body.getInt()).as("plugins count").isEqualTo(1);
        assertThat(body.getShort()).as("name length").isEqualTo((short) 2);
        assertThat(body.get()).isEqualTo((byte) 'a');
        assertThat(body.get()).isEqualTo((byte) 'b');
        assertThat(body.hasRemaining()).isFalse();
    }

    @Example
    void anUnknownStateIsMalformed() {
        ByteBuffer frame = frameWithState(3);

        assertThatThrownBy(() -> FrameCodec.decode(frame))
                .isInstanceOf(WireException.class)
                .hasMessageContaining("workers[0].state 3 is not a worker state");
    }

    @Example
    void aCountLargerThanTheBodyIsMalformedBeforeAnythingIsAllocated() {
        ByteBuffer frame = FrameCodec.encode(1, new WorkersInfoReply(List.of())).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(4 + Protocol.FRAME_HEADER_BYTES, 1_000_000);
        frame.getInt();

        assertThatThrownBy(() -> FrameCodec.decode(frame))
                .isInstanceOf(WireException.class)
                .hasMessageContaining("workers count 1000000");
    }

    private static ByteBuffer frameWithState(int state) {
        ServiceWorker worker = new ServiceWorker(5, 1, 1, ServiceWorker.State.STARTING, -1, 0, 0, List.of());
        ByteBuffer frame =
                FrameCodec.encode(1, new WorkersInfoReply(List.of(worker))).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(4 + Protocol.FRAME_HEADER_BYTES + 4 + 24, state);
        frame.getInt();
        return frame;
    }

    private static ByteBuffer body(Message m) {
        ByteBuffer frame = FrameCodec.encode(0, m).order(ByteOrder.LITTLE_ENDIAN);
        frame.position(4 + Protocol.FRAME_HEADER_BYTES);
        return frame.slice().order(ByteOrder.LITTLE_ENDIAN);
    }
}
