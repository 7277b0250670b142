// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.DomainSet;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The transport names that ADDRESS_REPLY and DOMAIN_SET carry: kept exactly, and only valid ones read. */
class TransportFieldProperties {
    /** Bytes that may not appear in a transport name (a few printable ones, a control character, a UTF-8 lead byte). */
    private static final byte[] FORBIDDEN = {' ', '+', '@', '\\', '*', 0x01, 0x7f};

    @Provide
    Arbitrary<String> names() {
        return WireArbitraries.transportNames();
    }

    @Provide
    Arbitrary<Byte> forbidden() {
        return Arbitraries.of(
                FORBIDDEN[0], FORBIDDEN[1], FORBIDDEN[2], FORBIDDEN[3], FORBIDDEN[4], FORBIDDEN[5], FORBIDDEN[6]);
    }

    private static Message decode(ByteBuffer frame) throws WireException {
        frame.order(ByteOrder.LITTLE_ENDIAN).getInt();
        return FrameCodec.decode(frame).message();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("the encoded frame does not hold the transport name");
    }

    private static ByteBuffer withByteAt(ByteBuffer frame, String name, int at, byte value) {
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        // the address is all 0x00 and the seal all 0x01, so the name's bytes are found only where the name is
        bytes[indexOf(bytes, name.getBytes(StandardCharsets.US_ASCII)) + at] = value;
        return ByteBuffer.wrap(bytes);
    }

    @Property
    void anAddressReplyKeepsItsTransportName(@ForAll("names") String name) throws WireException {
        AddressReply reply = new AddressReply(UromStatus.SUCCESS, new byte[] {0, 0}, name, new byte[] {1, 1, 1});
        assertThat(decode(FrameCodec.encode(9, reply)))
                .isEqualTo(reply)
                .extracting(m -> ((AddressReply) m).transport())
                .isEqualTo(name);
    }

    @Property
    void anAddressReplyWithAForbiddenByteInItsTransportIsMalformed(
            @ForAll("names") String name, @ForAll("forbidden") byte bad, @ForAll int position) {
        int at = Math.floorMod(position, name.length());
        ByteBuffer frame = withByteAt(
                FrameCodec.encode(9, new AddressReply(UromStatus.SUCCESS, new byte[] {0}, name, new byte[] {1})),
                name,
                at,
                bad);
        assertThatThrownBy(() -> decode(frame))
                .isInstanceOf(WireException.class)
                .hasMessageContaining("transport: the transport name has character")
                .extracting(e -> ((WireException) e).reason())
                .isEqualTo(WireException.Reason.MALFORMED);
    }

    @Property
    void aDomainSetWithAForbiddenByteInATransportIsMalformed(
            @ForAll("names") String name, @ForAll("forbidden") byte bad, @ForAll int position) {
        int at = Math.floorMod(position, name.length());
        DomainSet set = new DomainSet(
                1,
                List.of(new DomainPeer(
                        1, List.of(new DomainPeer.PluginAddress(4, new byte[] {0}, name, new byte[] {1})), List.of())));
        ByteBuffer frame = withByteAt(FrameCodec.encode(3, set), name, at, bad);
        assertThatThrownBy(() -> decode(frame))
                .isInstanceOf(WireException.class)
                .hasMessageContaining("peers[0].addresses[0].transport: the transport name has character")
                .extracting(e -> ((WireException) e).reason())
                .isEqualTo(WireException.Reason.MALFORMED);
    }

    @Test
    void aTransportNameOver64BytesIsMalformed() {
        String longest = "t".repeat(64);
        ByteBuffer frame =
                FrameCodec.encode(9, new AddressReply(UromStatus.SUCCESS, new byte[0], longest, new byte[0]));
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        // grow the string by one byte: its length field, the frame's length field, then one more 't'
        int at = indexOf(bytes, longest.getBytes(StandardCharsets.US_ASCII));
        ByteBuffer longer = ByteBuffer.allocate(bytes.length + 1).order(ByteOrder.LITTLE_ENDIAN);
        longer.put(bytes, 0, at)
                .put((byte) 't')
                .put(bytes, at, bytes.length - at)
                .flip();
        longer.putInt(0, bytes.length + 1 - 4);
        longer.putShort(at - 2, (short) 65);
        assertThatThrownBy(() -> decode(longer))
                .isInstanceOf(WireException.class)
                .hasMessageContaining("transport: the transport name has 65 characters, more than 64");
    }

    @Test
    void noTransportIsAnEmptyString() throws WireException {
        AddressReply none = AddressReply.failed(UromStatus.NOT_FOUND);
        assertThat(none.transport()).isEmpty();
        assertThat(decode(FrameCodec.encode(1, none))).isEqualTo(none);
        assertThat(new DomainPeer.PluginAddress(1, new byte[0], new byte[0]).transportName())
                .isEmpty();
        assertThat(new DomainPeer.PluginAddress(1, new byte[0], "ucp-tag", new byte[0]).transportName())
                .contains("ucp-tag");
    }

    @Test
    void aRecordWithAnInvalidTransportCannotBeBuilt() {
        assertThatThrownBy(() -> new AddressReply(UromStatus.SUCCESS, new byte[0], "a b", new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the transport name has character U+0020 at index 1, not one of [A-Za-z0-9._:/-]");
        assertThatThrownBy(() -> new DomainPeer.PluginAddress(1, new byte[0], "x".repeat(65), new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the transport name has 65 characters, more than 64");
        assertThatThrownBy(() -> new DomainPeer.PluginAddress(1, new byte[0], (String) null, new byte[0]))
                .isInstanceOf(NullPointerException.class);
    }
}
