// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.PluginInfo;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.WorkersInGroupReply;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class MalformedFrameTest {

    /** Frame content after the length field: type, flags, request id, body. */
    private static ByteBuffer content(int type, byte[] body) {
        return ByteBuffer.allocate(12 + body.length)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putShort((short) type)
                .putShort((short) 0)
                .putLong(0)
                .put(body)
                .flip();
    }

    private static byte[] body(Message m) {
        ByteBuffer f = FrameCodec.encode(0, m);
        byte[] b = new byte[f.remaining() - 16];
        f.position(16).get(b);
        return b;
    }

    private static byte[] le(int... ints) {
        ByteBuffer b = ByteBuffer.allocate(ints.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i : ints) {
            b.putInt(i);
        }
        return b.array();
    }

    private static void assertRefused(ByteBuffer content, WireException.Reason reason, String message) {
        assertThatThrownBy(() -> FrameCodec.decode(content)).isInstanceOfSatisfying(WireException.class, e -> {
            assertThat(e.reason()).isEqualTo(reason);
            assertThat(e.getMessage()).isEqualTo(message).doesNotContain("\n");
        });
    }

    @Test
    void unknownTypeIsRefused() {
        assertRefused(content(99, new byte[0]), WireException.Reason.UNKNOWN_TYPE, "unknown message type 99");
    }

    @Test
    void leftOverBytesAreRefused() {
        byte[] ok = body(new PluginsReply(List.of()));
        byte[] longer = java.util.Arrays.copyOf(ok, ok.length + 3);
        assertRefused(content(11, longer), WireException.Reason.MALFORMED, "PLUGINS_REPLY: body has 3 bytes left over");
    }

    @Test
    void bodyThatEndsEarlyIsRefused() {
        assertRefused(
                content(14, new byte[5]),
                WireException.Reason.MALFORMED,
                "WORKERS_IN_GROUP: body ends inside gid (needs 8 bytes, 5 left)");
        assertRefused(
                content(22, new byte[0]).limit(5),
                WireException.Reason.MALFORMED,
                "frame of 5 bytes is shorter than its 12-byte header");
    }

    @Test
    void badUtf8IsRefused() {
        byte[] b = ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(6)
                .putShort((short) 2)
                .put((byte) 0xc3)
                .put((byte) 0x28)
                .array();
        assertRefused(content(3, b), WireException.Reason.MALFORMED, "ERROR: message is not valid UTF-8");
    }

    @Test
    void unknownStatusCodeIsRefused() {
        byte[] b = body(new ErrorReply(UromStatus.AGAIN, "x"));
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 77);
        assertRefused(
                content(3, b), WireException.Reason.MALFORMED, "ERROR: status code 77 is not a DOCA status (0..31)");
    }

    @Test
    void badEnumsAreRefused() {
        byte[] hello = ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(Protocol.MAGIC)
                .putShort((short) 1)
                .putShort((short) 9)
                .array();
        assertRefused(
                content(1, hello), WireException.Reason.MALFORMED, "HELLO: role 9 is neither 1 (host) nor 2 (worker)");

        byte[] plugins = body(new PluginsReply(
                List.of(new ServicePlugin(new PluginInfo(2, 1, "worker_graph"), ServicePlugin.NATIVE))));
        plugins[4 + 64] = 5;
        assertRefused(
                content(11, plugins),
                WireException.Reason.MALFORMED,
                "PLUGINS_REPLY: plugins[0].kind 5 is neither 1 (native) nor 2 (java)");
    }

    @Test
    void pluginWithoutSingleBitIdIsRefused() {
        byte[] plugins =
                body(new PluginsReply(List.of(new ServicePlugin(new PluginInfo(2, 1, "g"), ServicePlugin.JAVA))));
        plugins[4] = 3;
        assertRefused(
                content(11, plugins),
                WireException.Reason.MALFORMED,
                "PLUGINS_REPLY: plugins[0]: plugin id 0x3 is not a single bit");
    }

    @Test
    void listCountIsCheckedAgainstTheBytesLeftBeforeAllocating() {
        assertRefused(
                content(15, le(0x7fffffff)),
                WireException.Reason.MALFORMED,
                "WORKERS_IN_GROUP_REPLY: worker_ids count 2147483647 needs at least 17179869176 bytes but 0 are left");
        assertRefused(
                content(15, le(-1)),
                WireException.Reason.MALFORMED,
                "WORKERS_IN_GROUP_REPLY: worker_ids count 4294967295 needs at least 34359738360 bytes but 0 are left");
        assertThat(new WorkersInGroupReply(List.of()).workerIds()).isEmpty();
    }

    @Test
    void commandWhoseLenDisagreesWithItsBytesIsRefused() {
        byte[] b = body(new Command(1, 2, new byte[] {1, 2, 3}));
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(16, 4);
        assertRefused(content(20, b), WireException.Reason.MALFORMED, "COMMAND: len says 4 bytes but 3 follow");

        byte[] n = body(new Notify(1, 2, UromStatus.SUCCESS, new byte[] {1}));
        ByteBuffer.wrap(n).order(ByteOrder.LITTLE_ENDIAN).putLong(16, -1);
        assertRefused(
                content(21, n),
                WireException.Reason.MALFORMED,
                "NOTIFY: len says 18446744073709551615 bytes but 1 follow");
    }

    @Test
    void aNotifyReasonWhoseLengthDisagreesWithTheBytesAfterThePayloadIsRefused() {
        byte[] n = body(new Notify(1, 2, UromStatus.INVALID_VALUE, new byte[0], "why"));
        assertThat(n).hasSize(Notify.HEADER_BYTES + 2 + 3);
        ByteBuffer.wrap(n).order(ByteOrder.LITTLE_ENDIAN).putShort(Notify.HEADER_BYTES, (short) 4);
        assertRefused(
                content(21, n),
                WireException.Reason.MALFORMED,
                "NOTIFY: reason_len 4 does not fit: 3 bytes follow and a reason is 1 to 512 bytes");

        byte[] lone = java.util.Arrays.copyOf(
                body(new Notify(1, 2, UromStatus.INVALID_VALUE, new byte[0])), Notify.HEADER_BYTES + 1);
        assertRefused(
                content(21, lone),
                WireException.Reason.MALFORMED,
                "NOTIFY: body ends inside reason_len (needs 2 bytes, 1 left)");
        assertThatThrownBy(() -> new Notify(1, 2, UromStatus.INVALID_VALUE, new byte[0], "é".repeat(257)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a NOTIFY reason of 514 bytes is over the limit of 512");
    }

    @Test
    void decoderRefusesAnOverLimitLengthBeforeAllocating() {
        FrameDecoder decoder = new FrameDecoder(Protocol.CONTROL_FRAME_LIMIT);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        ByteBuffer twoGigabytes = ByteBuffer.wrap(le(0x7ffffff0));

        long before = threads.getThreadAllocatedBytes(thread);
        assertThatThrownBy(() -> decoder.feed(twoGigabytes)).isInstanceOfSatisfying(WireException.class, e -> {
            assertThat(e.reason()).isEqualTo(WireException.Reason.FRAME_TOO_LARGE);
            assertThat(e.getMessage()).isEqualTo("frame of 2147483632 bytes is over the limit of 65536");
        });
        long allocated = threads.getThreadAllocatedBytes(thread) - before;

        assertThat(allocated).isLessThan(1 << 20);
    }

    @Test
    void aLargeAnnouncedFrameCostsOnlyWhatHasArrived() throws WireException {
        int limit = Protocol.dataFrameLimit(16 << 20);
        FrameDecoder decoder = new FrameDecoder(limit);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        byte[] payload = new byte[(16 << 20) - Command.HEADER_BYTES];
        for (int i = 0; i < payload.length; i += 4099) {
            payload[i] = (byte) i;
        }
        ByteBuffer frame = FrameCodec.encode(0, new Command(1, 2, payload));
        ByteBuffer first = frame.slice().limit(24);
        new FrameDecoder(limit)
                .feed(FrameCodec.encode(0, new Command(1, 2, new byte[8]))
                        .slice()
                        .limit(24));

        long before = threads.getThreadAllocatedBytes(thread);
        assertThat(decoder.feed(first)).isEmpty();
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(allocated)
                .as("bytes allocated for 24 bytes of a 16 MiB frame")
                .isLessThan(1 << 20);

        frame.position(24);
        List<Frame> frames = new java.util.ArrayList<>();
        while (frame.hasRemaining()) {
            ByteBuffer piece = frame.slice().limit(Math.min(frame.remaining(), 1 << 20));
            frame.position(frame.position() + piece.remaining());
            frames.addAll(decoder.feed(piece));
        }
        assertThat(frames)
                .singleElement()
                .satisfies(f -> assertThat(f.message()).isEqualTo(new Command(1, 2, payload)));
    }

    @Test
    void decoderRefusesAnOverLimitLengthSplitAcrossReads() throws WireException {
        FrameDecoder decoder = new FrameDecoder(65600);
        byte[] prefix = le(70000);
        assertThat(decoder.feed(ByteBuffer.wrap(prefix, 0, 3))).isEmpty();
        assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(prefix, 3, 1)))
                .hasMessage("frame of 70000 bytes is over the limit of 65600");
    }

    @Test
    void unsignedLengthOverTwoGigabytesIsTooLargeNotNegative() {
        FrameDecoder decoder = new FrameDecoder(Protocol.CONTROL_FRAME_LIMIT);
        assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(le(-1))))
                .hasMessage("frame of 4294967295 bytes is over the limit of 65536");
    }

    @Test
    void lengthShorterThanTheHeaderIsMalformed() {
        FrameDecoder decoder = new FrameDecoder(Protocol.CONTROL_FRAME_LIMIT);
        assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(le(3))))
                .isInstanceOfSatisfying(
                        WireException.class, e -> assertThat(e.reason()).isEqualTo(WireException.Reason.MALFORMED))
                .hasMessage("frame of 3 bytes is shorter than its 12-byte header");
    }

    @Test
    void frameExactlyAtTheLimitIsAccepted() throws WireException {
        int limit = Protocol.dataFrameLimit(4096);
        byte[] payload = new byte[limit - 12 - Command.HEADER_BYTES];
        FrameDecoder decoder = new FrameDecoder(limit);
        assertThat(decoder.feed(FrameCodec.encode(0, new Command(1, 2, payload))))
                .hasSize(1);
        FrameDecoder tight = new FrameDecoder(limit - 1);
        assertThatThrownBy(() -> tight.feed(FrameCodec.encode(0, new Command(1, 2, payload))))
                .hasMessage("frame of " + limit + " bytes is over the limit of " + (limit - 1));
    }

    @Test
    void packedNotificationWithWrongLenIsRefused() {
        byte[] packed = new Notify(1, 2, UromStatus.SUCCESS, new byte[4]).packed();
        ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN).putLong(16, 5);
        assertThatThrownBy(() -> Notify.fromPacked(packed))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("packed notification says len 5 but 4 payload bytes follow its header");
        assertThatThrownBy(() -> Notify.fromPacked(new byte[31]))
                .hasMessage("packed notification has 31 bytes; its header alone is 32");
    }

    @Test
    void tooLongStringCannotBeEncoded() {
        assertThatThrownBy(() -> FrameCodec.encode(0, new ErrorReply(UromStatus.AGAIN, "x".repeat(70000))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ERROR message is 70000 bytes of UTF-8; a string on the wire holds at most 65535");
    }
}
