// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.wire.Message.ServiceInfoReply;
import dev.urom.wire.Message.ServiceInfoRequest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** SERVICE_INFO and SERVICE_INFO_REPLY: their round trip, their layout, and the bodies a decoder refuses. */
class ServiceInfoCodecProperties {
    @Provide
    Arbitrary<List<Integer>> cpus() {
        return WireArbitraries.cpuLists();
    }

    @Property
    void everyReplySurvivesEncodeThenDecode(
            @ForAll("cpus") List<Integer> cpus, @ForAll @IntRange(min = 0) int maxWorkers, @ForAll long requestId)
            throws WireException {
        ByteBuffer frame = FrameCodec.encode(requestId, new ServiceInfoReply(cpus, maxWorkers))
                .order(ByteOrder.LITTLE_ENDIAN);
        frame.getInt();

        Frame decoded = FrameCodec.decode(frame);

        assertThat(decoded.message()).isEqualTo(new ServiceInfoReply(cpus, maxWorkers));
        assertThat(decoded.requestId()).isEqualTo(requestId);
    }

    @Property
    void everyTruncatedReplyIsMalformed(@ForAll("cpus") List<Integer> cpus, @ForAll @IntRange(min = 0) int maxWorkers) {
        byte[] body = body(new ServiceInfoReply(cpus, maxWorkers));

        for (int length = 0; length < body.length; length++) {
            ByteBuffer truncated = content(MessageType.SERVICE_INFO_REPLY, ByteBuffer.wrap(body, 0, length));
            assertThatThrownBy(() -> FrameCodec.decode(truncated))
                    .as("%d of %d bytes", length, body.length)
                    .isInstanceOfSatisfying(
                            WireException.class, e -> assertThat(e.reason()).isEqualTo(WireException.Reason.MALFORMED))
                    .hasMessageStartingWith("SERVICE_INFO_REPLY: ");
        }
    }

    @Example
    void theRequestHasAnEmptyBody() throws WireException {
        ByteBuffer frame = FrameCodec.encode(9, new ServiceInfoRequest()).order(ByteOrder.LITTLE_ENDIAN);

        assertThat(frame.getInt()).as("length").isEqualTo(Protocol.FRAME_HEADER_BYTES);
        assertThat(frame.getShort(frame.position())).as("type").isEqualTo((short) 18);
        assertThat(FrameCodec.decode(frame)).isEqualTo(new Frame(9, new ServiceInfoRequest()));
        assertRefused(
                content(MessageType.SERVICE_INFO, ByteBuffer.wrap(new byte[1])),
                "SERVICE_INFO: body has 1 bytes left over");
    }

    @Example
    void aReplyIsLaidOutFieldByField() {
        ByteBuffer frame = FrameCodec.encode(0, new ServiceInfoReply(List.of(0, 3, 65535), 8))
                .order(ByteOrder.LITTLE_ENDIAN);
        assertThat(frame.getShort(4)).as("type").isEqualTo((short) 19);
        frame.position(4 + Protocol.FRAME_HEADER_BYTES);

        assertThat(frame.getInt()).as("cpus count").isEqualTo(3);
        assertThat(frame.getInt()).as("cpus[0]").isEqualTo(0);
        assertThat(frame.getInt()).as("cpus[1]").isEqualTo(3);
        assertThat(frame.getInt()).as("cpus[2]").isEqualTo(65535);
        assertThat(frame.getInt()).as("max_workers").isEqualTo(8);
        assertThat(frame.getInt()).as("reserved").isZero();
        assertThat(frame.hasRemaining()).isFalse();
    }

    @Example
    void aCountLargerThanTheBodyIsMalformedBeforeAnythingIsAllocated() {
        assertRefused(
                reply(1_000_000, 1, 2),
                "SERVICE_INFO_REPLY: cpus count 1000000 needs at least 4000000 bytes but 8 are left");
        assertRefused(
                reply(-1), "SERVICE_INFO_REPLY: cpus count 4294967295 needs at least 17179869180 bytes but 0 are left");
    }

    @Example
    void aCountOverTheLimitIsMalformedEvenWhenItsBytesFollow() {
        int[] fields = new int[1 + ServiceInfoReply.MAX_CPUS + 1 + 2];
        fields[0] = ServiceInfoReply.MAX_CPUS + 1;
        for (int i = 0; i <= ServiceInfoReply.MAX_CPUS; i++) {
            fields[1 + i] = i;
        }

        assertRefused(reply(fields), "SERVICE_INFO_REPLY: cpus count 65537 is over the limit of 65536");
    }

    @Example
    void theLimitItselfIsAllowed() throws WireException {
        List<Integer> all =
                IntStream.range(0, ServiceInfoReply.MAX_CPUS).boxed().toList();
        ByteBuffer frame = FrameCodec.encode(1, new ServiceInfoReply(all, 0));
        frame.getInt();

        assertThat(((ServiceInfoReply) FrameCodec.decode(frame).message()).cpus())
                .isEqualTo(all);
    }

    @Example
    void aCpuOf65536OrMoreIsMalformed() {
        assertRefused(reply(2, 1, 65536, 4, 0), "SERVICE_INFO_REPLY: cpus[1] 65536 is not below 65536");
        assertRefused(reply(1, -1, 4, 0), "SERVICE_INFO_REPLY: cpus[0] 4294967295 is not below 65536");
    }

    @Example
    void cpusThatAreNotStrictlyAscendingAreMalformed() {
        assertRefused(
                reply(2, 3, 1, 4, 0), "SERVICE_INFO_REPLY: cpu 1 follows cpu 3: the list is not strictly ascending");
        assertRefused(
                reply(2, 2, 2, 4, 0), "SERVICE_INFO_REPLY: cpu 2 follows cpu 2: the list is not strictly ascending");
    }

    @Example
    void maxWorkersOver2To31IsMalformed() {
        assertRefused(reply(0, 0x8000_0000, 0), "SERVICE_INFO_REPLY: max_workers 2147483648 is out of range");
    }

    @Example
    void bytesAfterTheReservedFieldAreMalformed() {
        assertRefused(reply(1, 0, 4, 0, 7), "SERVICE_INFO_REPLY: body has 4 bytes left over");
    }

    @Example
    void aReplyThatCannotBeEncodedIsRefusedWhenBuilt() {
        assertThatThrownBy(() -> new ServiceInfoReply(List.of(1, 0), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cpu 0 follows cpu 1: the list is not strictly ascending");
        assertThatThrownBy(() -> new ServiceInfoReply(List.of(65536), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cpu 65536 is not below 65536");
        assertThatThrownBy(() -> new ServiceInfoReply(List.of(), -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SERVICE_INFO_REPLY max workers -1 is negative");
    }

    private static void assertRefused(ByteBuffer content, String message) {
        assertThatThrownBy(() -> FrameCodec.decode(content)).isInstanceOfSatisfying(WireException.class, e -> {
            assertThat(e.reason()).isEqualTo(WireException.Reason.MALFORMED);
            assertThat(e.getMessage()).isEqualTo(message);
        });
    }

    /** The content of a SERVICE_INFO_REPLY frame (after its length field) whose body is {@code fields}, each a u32. */
    private static ByteBuffer reply(int... fields) {
        ByteBuffer body = ByteBuffer.allocate(fields.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int field : fields) {
            body.putInt(field);
        }
        return content(MessageType.SERVICE_INFO_REPLY, body.flip());
    }

    /** Frame content after the length field: type, flags, request id, then {@code body}. */
    private static ByteBuffer content(MessageType type, ByteBuffer body) {
        return ByteBuffer.allocate(Protocol.FRAME_HEADER_BYTES + body.remaining())
                .order(ByteOrder.LITTLE_ENDIAN)
                .putShort((short) type.code())
                .putShort((short) 0)
                .putLong(0)
                .put(body)
                .flip();
    }

    private static byte[] body(Message m) {
        ByteBuffer frame = FrameCodec.encode(0, m);
        frame.position(4 + Protocol.FRAME_HEADER_BYTES);
        byte[] body = new byte[frame.remaining()];
        frame.get(body);
        return body;
    }
}
