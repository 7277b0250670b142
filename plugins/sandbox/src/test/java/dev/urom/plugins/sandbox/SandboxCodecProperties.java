package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.plugins.sandbox.SandboxCommand.Bounce;
import dev.urom.plugins.sandbox.SandboxCommand.MemMap;
import dev.urom.plugins.sandbox.SandboxCommand.TagRecv;
import dev.urom.plugins.sandbox.SandboxCommand.TagSend;
import dev.urom.plugins.sandbox.SandboxNotification.BounceDone;
import dev.urom.plugins.sandbox.SandboxNotification.MemMapDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagRecvDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagSendDone;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** Round trips of every command, notification and frame layout, and the exact bytes of each. */
class SandboxCodecProperties {
    @Property
    void memMapRoundTrips(@ForAll long context, @ForAll long length, @ForAll @Size(max = 64) byte[] path) throws UromException {
        MemMap command = new MemMap(context, length, path);
        byte[] bytes = command.encode();
        assertThat(bytes).hasSize(32 + path.length);
        MemMap decoded = (MemMap) SandboxCommand.decode(bytes);
        assertThat(decoded.context()).isEqualTo(context);
        assertThat(decoded.length()).isEqualTo(length);
        assertThat(decoded.path()).isEqualTo(path);
    }

    @Property
    void tagSendRoundTrips(@ForAll long context, @ForAll long dest, @ForAll long buffer, @ForAll long tag,
            @ForAll @Size(max = 64) byte[] data, @ForAll long memhId, @ForAll long regionCount) throws UromException {
        TagSend command = memhId == 0 ? new TagSend(context, dest, buffer, data.length, tag, 0, data)
                : new TagSend(context, dest, buffer, regionCount, tag, memhId, new byte[0]);
        TagSend decoded = (TagSend) SandboxCommand.decode(command.encode());
        assertThat(decoded.encode()).isEqualTo(command.encode());
        assertThat(List.of(decoded.context(), decoded.dest(), decoded.buffer(), decoded.count(), decoded.tag(), decoded.memhId()))
                .containsExactly(context, dest, buffer, command.count(), tag, memhId);
    }

    @Property
    void tagRecvRoundTrips(@ForAll long context, @ForAll long buffer, @ForAll long count, @ForAll long tag, @ForAll long mask,
            @ForAll long memhId) throws UromException {
        TagRecv command = new TagRecv(context, buffer, count, tag, mask, memhId);
        assertThat(command.encode()).hasSize(56);
        assertThat(SandboxCommand.decode(command.encode())).isEqualTo(command);
    }

    @Property
    void bounceRoundTrips(@ForAll long context, @ForAll long dest, @ForAll long count, @ForAll long tag, @ForAll long iterations,
            @ForAll long role) throws UromException {
        Bounce command = new Bounce(context, dest, count, tag, iterations, role);
        assertThat(command.encode()).hasSize(56);
        assertThat(SandboxCommand.decode(command.encode())).isEqualTo(command);
    }

    @Property
    void anyTruncationOrExtensionOfACommandIsInvalid(@ForAll("commands") SandboxCommand command, @ForAll @IntRange(min = 1, max = 9) int delta,
            @ForAll boolean extend) {
        byte[] bytes = command.encode();
        int length = extend ? bytes.length + delta : Math.max(0, bytes.length - delta);
        byte[] changed = java.util.Arrays.copyOf(bytes, length);
        assertThatThrownBy(() -> SandboxCommand.decode(changed)).isInstanceOfSatisfying(UromException.class,
                e -> assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE));
    }

    @Property
    void unknownTypesAreNotSupported(@ForAll long type, @ForAll @Size(max = 80) byte[] rest) {
        if (type >= 0 && type <= 3) {
            return;
        }
        byte[] bytes = ByteBuffer.allocate(8 + rest.length).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(type).put(rest).array();
        assertThatThrownBy(() -> SandboxCommand.decode(bytes)).isInstanceOfSatisfying(UromException.class,
                e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_SUPPORTED));
    }

    @Property
    void notificationsRoundTrip(@ForAll long context, @ForAll long memhId, @ForAll("statuses") UromStatus status, @ForAll long buffer,
            @ForAll long senderTag, @ForAll @Size(max = 64) byte[] data) {
        for (SandboxNotification n : List.of(new MemMapDone(context, memhId), new TagSendDone(context, status),
                new TagRecvDone(context, buffer, data.length, senderTag, status, data))) {
            byte[] bytes = n.encode();
            assertThat(SandboxNotification.decode(bytes).encode()).isEqualTo(bytes);
        }
        TagRecvDone recv = (TagRecvDone) SandboxNotification.decode(new TagRecvDone(context, buffer, data.length, senderTag, status, data).encode());
        assertThat(recv.data()).isEqualTo(data);
        assertThat(recv.status()).isEqualTo(status);
        assertThat(((TagSendDone) SandboxNotification.decode(new TagSendDone(context, status).encode())).status()).isEqualTo(status);
    }

    @Property
    void bounceNotificationsRoundTrip(@ForAll long context, @ForAll long elapsedNs, @ForAll long done, @ForAll("statuses") UromStatus status) {
        BounceDone bounce = new BounceDone(context, elapsedNs, done, status);
        assertThat(bounce.encode()).hasSize(40);
        assertThat(SandboxNotification.decode(bounce.encode())).isEqualTo(bounce);
    }

    @Test
    void exactBytesOfEachLayout() {
        HexFormat hex = HexFormat.of();
        assertThat(hex.formatHex(new TagRecv(5, 1, 2, 0x1234, 0xffff, 0).encode())).isEqualTo(
                "0200000000000000" + "0500000000000000" + "0100000000000000" + "0200000000000000" + "3412000000000000"
                        + "ffff000000000000" + "0000000000000000");
        assertThat(hex.formatHex(new TagSendDone(9, UromStatus.CONNECTION_RESET).encode()))
                .isEqualTo("0100000000000000" + "0900000000000000" + "0b000000" + "00000000");
        assertThat(hex.formatHex(new TagRecvDone(3, 1, 2, 0x5678, UromStatus.SUCCESS, new byte[] {(byte) 0xaa, (byte) 0xbb}).encode()))
                .isEqualTo("0200000000000000" + "0300000000000000" + "0100000000000000" + "0200000000000000" + "7856000000000000"
                        + "00000000" + "00000000" + "aabb");
        assertThat(hex.formatHex(new MemMapDone(4, 1).encode())).isEqualTo("0000000000000000" + "0400000000000000" + "0100000000000000");
        assertThat(hex.formatHex(new Bounce(6, 1, 8, 0x70, 200, 1).encode())).isEqualTo("0300000000000000" + "0600000000000000"
                + "0100000000000000" + "0800000000000000" + "7000000000000000" + "c800000000000000" + "0100000000000000");
        assertThat(hex.formatHex(new BounceDone(6, 0x1234, 200, UromStatus.TIME_OUT).encode())).isEqualTo("0300000000000000"
                + "0600000000000000" + "3412000000000000" + "c800000000000000" + "09000000" + "00000000");
    }

    @Provide
    Arbitrary<SandboxCommand> commands() {
        Arbitrary<Long> any = Arbitraries.longs();
        Arbitrary<SandboxCommand> memMaps = Arbitraries.bytes().array(byte[].class).ofMaxSize(20).map(p -> new MemMap(1, 2, p));
        Arbitrary<SandboxCommand> sends = Arbitraries.bytes().array(byte[].class).ofMaxSize(20).map(d -> new TagSend(1, 2, 3, d.length, 4, 0, d));
        Arbitrary<SandboxCommand> regionSends = any.map(m -> new TagSend(1, 2, 3, 4, 5, m == 0 ? 1 : m, new byte[0]));
        Arbitrary<SandboxCommand> receives = any.map(m -> new TagRecv(1, 2, 3, 4, 5, m));
        Arbitrary<SandboxCommand> bounces = any.map(c -> new Bounce(1, 2, c, 4, 5, 0));
        return Arbitraries.oneOf(memMaps, sends, regionSends, receives, bounces);
    }

    @Provide
    Arbitrary<UromStatus> statuses() {
        return Arbitraries.of(UromStatus.class);
    }
}
