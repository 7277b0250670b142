// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import dev.urom.wire.Message.Notify;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class FrameCodecProperties {

    @Provide
    Arbitrary<Message> messages() {
        return WireArbitraries.messages();
    }

    @Provide
    Arbitrary<byte[]> payloads() {
        return WireArbitraries.payloads();
    }

    @Provide
    Arbitrary<UromStatus> statuses() {
        return WireArbitraries.statuses();
    }

    @Property
    void everyMessageSurvivesEncodeThenDecode(@ForAll("messages") Message m, @ForAll long requestId)
            throws WireException {
        ByteBuffer frame = FrameCodec.encode(requestId, m).order(ByteOrder.LITTLE_ENDIAN);
        int length = frame.getInt();
        assertThat(length).isEqualTo(frame.remaining());

        Frame decoded = FrameCodec.decode(frame);

        assertThat(decoded.requestId()).isEqualTo(requestId);
        assertThat(decoded.message()).isEqualTo(m);
        assertThat(frame.hasRemaining()).isFalse();
    }

    @Property
    void gatheredPartsAreTheSameBytesAsTheWholeFrame(@ForAll("messages") Message m, @ForAll long requestId) {
        ByteArrayOutputStream parts = new ByteArrayOutputStream();
        for (ByteBuffer p : FrameCodec.encodeParts(requestId, m)) {
            parts.writeBytes(bytes(p));
        }
        assertThat(parts.toByteArray()).isEqualTo(bytes(FrameCodec.encode(requestId, m)));
    }

    @Property
    void framesFedInAnyChunkingComeOutWholeAndInOrder(
            @ForAll @Size(min = 1, max = 8) List<@net.jqwik.api.From("messages") Message> messages,
            @ForAll @Size(max = 30) List<@IntRange(min = 1, max = 64) Integer> chunkSizes)
            throws WireException {
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (int i = 0; i < messages.size(); i++) {
            stream.writeBytes(bytes(FrameCodec.encode(i + 1, messages.get(i))));
        }
        byte[] all = stream.toByteArray();
        FrameDecoder decoder = new FrameDecoder(Protocol.CONTROL_FRAME_LIMIT);
        List<Frame> out = new ArrayList<>();
        int offset = 0;
        int chunk = 0;
        while (offset < all.length) {
            int size = chunkSizes.isEmpty() ? all.length : chunkSizes.get(chunk++ % chunkSizes.size());
            int n = Math.min(size, all.length - offset);
            ByteBuffer piece = ByteBuffer.wrap(all, offset, n);
            out.addAll(decoder.feed(piece));
            assertThat(piece.hasRemaining()).isFalse();
            offset += n;
        }

        assertThat(decoder.hasPartialFrame()).isFalse();
        assertThat(out).extracting(Frame::message).containsExactlyElementsOf(messages);
        assertThat(out)
                .extracting(Frame::requestId)
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, messages.size())
                        .boxed()
                        .toList());
    }

    @Property
    void notifyBodyIsExactlyWhatPackNotificationProduces(
            @ForAll long type,
            @ForAll long context,
            @ForAll("statuses") UromStatus status,
            @ForAll("payloads") byte[] payload)
            throws WireException {
        byte[] packed = new WorkerNotification(7, type, context, status, payload).pack();

        Notify notify = Notify.fromPacked(packed);

        assertThat(notify).isEqualTo(new Notify(type, context, status, payload));
        assertThat(notify.packed()).isEqualTo(packed);
        ByteBuffer frame = FrameCodec.encode(0, notify);
        byte[] body = new byte[frame.remaining() - 16];
        frame.position(16).get(body);
        assertThat(body).isEqualTo(packed);
    }

    @Provide
    Arbitrary<String> reasons() {
        return WireArbitraries.utf8Strings(100);
    }

    @Property
    void aNotifyWrittenIntoTheCallersBufferIsTheFrameEncodeMakes(
            @ForAll long type,
            @ForAll long context,
            @ForAll("statuses") UromStatus status,
            @ForAll("payloads") byte[] payload,
            @ForAll("reasons") String reason,
            @ForAll long requestId,
            @ForAll boolean direct) {
        byte[] packed = new WorkerNotification(7, type, context, status, payload).pack();
        ByteBuffer out =
                (direct ? ByteBuffer.allocateDirect(4096) : ByteBuffer.allocate(4096)).order(ByteOrder.BIG_ENDIAN);
        out.put(new byte[] {1, 2, 3});

        ByteBuffer written = FrameCodec.encodeNotify(out, requestId, packed, reason);

        assertThat(written).isSameAs(out);
        assertThat(bytes(written))
                .isEqualTo(bytes(FrameCodec.encode(requestId, new Notify(type, context, status, payload, reason))));
    }

    @Property
    void aNotifyThatDoesNotFitTheCallersBufferIsRefused(
            @ForAll("payloads") byte[] payload, @ForAll("reasons") String reason) {
        byte[] packed = new WorkerNotification(7, 1, 2, UromStatus.SUCCESS, payload).pack();
        int frameBytes = FrameCodec.encode(0, Notify.fromPacked(packed)).remaining()
                + (reason.isEmpty()
                        ? 0
                        : Short.BYTES + reason.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);

        assertThatThrownBy(() -> FrameCodec.encodeNotify(ByteBuffer.allocate(frameBytes - 1), 0, packed, reason))
                .isInstanceOf(java.nio.BufferOverflowException.class);
        assertThat(FrameCodec.encodeNotify(ByteBuffer.allocate(frameBytes), 0, packed, reason)
                        .remaining())
                .isEqualTo(frameBytes);
    }

    @Property
    void aNotifyReasonOverTheLimitIsNotWritten(
            @ForAll @IntRange(min = Notify.MAX_REASON_BYTES + 1, max = 2000) int reasonBytes) {
        byte[] packed = new WorkerNotification(7, 1, 2, UromStatus.INVALID_VALUE, new byte[0]).pack();

        assertThatThrownBy(() -> FrameCodec.encodeNotify(ByteBuffer.allocate(4096), 0, packed, "r".repeat(reasonBytes)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(reasonBytes + " bytes");
    }

    private static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }
}
