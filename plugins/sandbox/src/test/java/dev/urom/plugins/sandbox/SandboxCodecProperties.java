// SPDX-License-Identifier: Apache-2.0
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
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** Round trips of every command, notification and frame layout (DOCA-sized ones included), and the exact bytes of each. */
class SandboxCodecProperties {
    @Property
    void memMapRoundTrips(@ForAll long context, @ForAll long length, @ForAll @Size(max = 64) byte[] path)
            throws UromException {
        MemMap command = new MemMap(context, length, path);
        byte[] bytes = command.encode();
        assertThat(bytes).hasSize(32 + path.length);
        MemMap decoded = (MemMap) SandboxCommand.decode(bytes);
        assertThat(decoded.context()).isEqualTo(context);
        assertThat(decoded.length()).isEqualTo(length);
        assertThat(decoded.path()).isEqualTo(path);
    }

    @Property
    void tagSendRoundTrips(
            @ForAll long context,
            @ForAll long dest,
            @ForAll long buffer,
            @ForAll long tag,
            @ForAll @Size(max = 64) byte[] data,
            @ForAll long memhId,
            @ForAll long regionCount)
            throws UromException {
        TagSend command = memhId == 0
                ? new TagSend(context, dest, buffer, data.length, tag, 0, data)
                : new TagSend(context, dest, buffer, regionCount, tag, memhId, new byte[0]);
        TagSend decoded = (TagSend) SandboxCommand.decode(command.encode());
        assertThat(decoded.encode()).isEqualTo(command.encode());
        assertThat(List.of(
                        decoded.context(),
                        decoded.dest(),
                        decoded.buffer(),
                        decoded.count(),
                        decoded.tag(),
                        decoded.memhId()))
                .containsExactly(context, dest, buffer, command.count(), tag, memhId);
    }

    @Property
    void tagRecvRoundTrips(
            @ForAll long context,
            @ForAll long buffer,
            @ForAll long count,
            @ForAll long tag,
            @ForAll long mask,
            @ForAll long memhId)
            throws UromException {
        TagRecv command = new TagRecv(context, buffer, count, tag, mask, memhId);
        assertThat(command.encode()).hasSize(56);
        assertThat(SandboxCommand.decode(command.encode())).isEqualTo(command);
    }

    @Property
    void bounceRoundTrips(
            @ForAll long context,
            @ForAll long dest,
            @ForAll long count,
            @ForAll long tag,
            @ForAll long iterations,
            @ForAll long role)
            throws UromException {
        Bounce command = new Bounce(context, dest, count, tag, iterations, role);
        assertThat(command.encode()).hasSize(56);
        assertThat(SandboxCommand.decode(command.encode())).isEqualTo(command);
    }

    @Property
    void anyTruncationOrExtensionOfACommandIsInvalid(
            @ForAll("commands") SandboxCommand command,
            @ForAll @IntRange(min = 1, max = 9) int delta,
            @ForAll boolean extend) {
        if (extend && delta == 8 && (command instanceof TagSend || command instanceof TagRecv)) {
            return; // a fixed part of 64 bytes: DOCA-sized (docaSizedTagSendsRoundTripAndIgnoreTheBytesAfterOurFields)
        }
        byte[] bytes = command.encode();
        int length = extend ? bytes.length + delta : Math.max(0, bytes.length - delta);
        byte[] changed = java.util.Arrays.copyOf(bytes, length);
        assertThatThrownBy(() -> SandboxCommand.decode(changed))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE));
    }

    @Property
    void unknownTypesAreNotSupported(@ForAll long type, @ForAll @Size(max = 80) byte[] rest) {
        if (type >= 0 && type <= 3) {
            return;
        }
        byte[] bytes = ByteBuffer.allocate(8 + rest.length)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong(type)
                .put(rest)
                .array();
        assertThatThrownBy(() -> SandboxCommand.decode(bytes))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_SUPPORTED));
    }

    @Property
    void notificationsRoundTrip(
            @ForAll long context,
            @ForAll long memhId,
            @ForAll("statuses") UromStatus status,
            @ForAll long buffer,
            @ForAll long senderTag,
            @ForAll @Size(max = 64) byte[] data) {
        for (SandboxNotification n : List.of(
                new MemMapDone(context, memhId),
                new TagSendDone(context, status),
                new TagRecvDone(context, buffer, data.length, senderTag, status, data))) {
            byte[] bytes = n.encode();
            assertThat(SandboxNotification.decode(bytes).encode()).isEqualTo(bytes);
        }
        TagRecvDone recv = (TagRecvDone) SandboxNotification.decode(
                new TagRecvDone(context, buffer, data.length, senderTag, status, data).encode());
        assertThat(recv.data()).isEqualTo(data);
        assertThat(recv.status()).isEqualTo(status);
        assertThat(((TagSendDone) SandboxNotification.decode(new TagSendDone(context, status).encode())).status())
                .isEqualTo(status);
    }

    @Property
    void bounceNotificationsRoundTrip(
            @ForAll long context, @ForAll long elapsedNs, @ForAll long done, @ForAll("statuses") UromStatus status) {
        BounceDone bounce = new BounceDone(context, elapsedNs, done, status);
        assertThat(bounce.encode()).hasSize(40);
        assertThat(SandboxNotification.decode(bounce.encode())).isEqualTo(bounce);
    }

    @Test
    void exactBytesOfEachLayout() {
        HexFormat hex = HexFormat.of();
        assertThat(hex.formatHex(new TagRecv(5, 1, 2, 0x1234, 0xffff, 0).encode()))
                .isEqualTo("0200000000000000" + "0500000000000000" + "0100000000000000" + "0200000000000000"
                        + "3412000000000000" + "ffff000000000000" + "0000000000000000");
        assertThat(hex.formatHex(new TagSendDone(9, UromStatus.CONNECTION_RESET).encode()))
                .isEqualTo("0100000000000000" + "0900000000000000" + "0b000000" + "00000000");
        assertThat(hex.formatHex(
                        new TagRecvDone(3, 1, 2, 0x5678, UromStatus.SUCCESS, new byte[] {(byte) 0xaa, (byte) 0xbb})
                                .encode()))
                .isEqualTo("0200000000000000" + "0300000000000000" + "0100000000000000" + "0200000000000000"
                        + "7856000000000000" + "00000000" + "00000000" + "aabb");
        assertThat(hex.formatHex(new MemMapDone(4, 1).encode()))
                .isEqualTo("0000000000000000" + "0400000000000000" + "0100000000000000");
        assertThat(hex.formatHex(new Bounce(6, 1, 8, 0x70, 200, 1).encode()))
                .isEqualTo("0300000000000000" + "0600000000000000" + "0100000000000000" + "0800000000000000"
                        + "7000000000000000" + "c800000000000000" + "0100000000000000");
        assertThat(hex.formatHex(new BounceDone(6, 0x1234, 200, UromStatus.TIME_OUT).encode()))
                .isEqualTo("0300000000000000" + "0600000000000000" + "3412000000000000" + "c800000000000000"
                        + "09000000" + "00000000");
    }

    @Property
    void docaSizedTagSendsRoundTripAndIgnoreTheBytesAfterOurFields(
            @ForAll("docaFixedSizes") int fixed,
            @ForAll long context,
            @ForAll long dest,
            @ForAll long tag,
            @ForAll @Size(max = 64) byte[] data,
            @ForAll long memhId,
            @ForAll @Size(min = 16, max = 16) byte[] ignored)
            throws UromException {
        TagSend command = memhId == 0
                ? new TagSend(context, dest, 0, data.length, tag, 0, data, fixed)
                : new TagSend(context, dest, 16, 32, tag, memhId, new byte[0], fixed);
        byte[] bytes = command.encode();
        assertThat(bytes).hasSize(fixed + command.data().length);
        assertThat(Arrays.copyOfRange(bytes, 56, fixed))
                .as("zeros after our fields")
                .containsOnly(0);
        System.arraycopy(ignored, 0, bytes, 56, fixed - 56);
        TagSend decoded = (TagSend) SandboxCommand.decode(bytes);
        assertThat(decoded.fixedBytes()).isEqualTo(fixed);
        assertThat(decoded.docaSized()).isTrue();
        assertThat(decoded.encode()).isEqualTo(command.encode());
        assertThat(decoded.data()).isEqualTo(command.data());
    }

    @Property
    void docaSizedTagRecvsRoundTripAndIgnoreTheBytesAfterOurFields(
            @ForAll("docaFixedSizes") int fixed,
            @ForAll long context,
            @ForAll long buffer,
            @ForAll long count,
            @ForAll long tag,
            @ForAll long mask,
            @ForAll long memhId,
            @ForAll @Size(min = 16, max = 16) byte[] ignored)
            throws UromException {
        TagRecv command = new TagRecv(context, buffer, count, tag, mask, memhId, fixed);
        byte[] bytes = command.encode();
        assertThat(bytes).hasSize(fixed);
        System.arraycopy(ignored, 0, bytes, 56, fixed - 56);
        assertThat(SandboxCommand.decode(bytes)).isEqualTo(command);
        assertThat(command.docaSized()).isTrue();
        assertThat(new TagRecv(context, buffer, count, tag, mask, memhId).docaSized())
                .isFalse();
    }

    /** Only 56, 64 and 72 bytes are a fixed part: TAG_SEND's (inline: length - count) and TAG_RECV's. */
    @Property
    void aFixedPartOfAnotherSizeIsInvalid(
            @ForAll @IntRange(min = 56, max = 200) int fixed, @ForAll @Size(max = 16) byte[] data) {
        if (fixed == 56 || fixed == 64 || fixed == 72) {
            return;
        }
        byte[] inline = resized(new TagSend(1, 2, 0, data.length, 4, 0, data).encode(), fixed, data);
        byte[] region = resized(new TagSend(1, 2, 0, 8, 4, 1, new byte[0]).encode(), fixed, new byte[0]);
        byte[] receive = resized(new TagRecv(1, 2, 3, 4, 5, 0).encode(), fixed, new byte[0]);
        for (byte[] bytes : List.of(inline, region, receive)) {
            assertThatThrownBy(() -> SandboxCommand.decode(bytes))
                    .isInstanceOfSatisfying(
                            UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE));
        }
        assertThatThrownBy(() -> new TagRecv(1, 2, 3, 4, 5, 0, fixed)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Fixed parts of 88 and 96 bytes (no host's: DOCA's command struct is 64 or 72 bytes) are INVALID_VALUE. */
    @Test
    void fixedPartsOf88And96BytesAreInvalid() {
        for (int fixed : List.of(88, 96)) {
            byte[] receive = resized(new TagRecv(1, 0, 8, 4, -1, 0).encode(), fixed, new byte[0]);
            byte[] send =
                    resized(new TagSend(1, 0, 0, 3, 4, 0, new byte[] {1, 2, 3}).encode(), fixed, new byte[] {1, 2, 3});
            for (byte[] bytes : List.of(receive, send)) {
                assertThatThrownBy(() -> SandboxCommand.decode(bytes))
                        .as("%d bytes", fixed)
                        .isInstanceOfSatisfying(
                                UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE));
            }
        }
    }

    @Test
    void exactBytesOfTheDocaLayout() {
        HexFormat hex = HexFormat.of();
        String zeros = "00".repeat(8);
        assertThat(hex.formatHex(new TagRecv(5, 1, 2, 0x1234, 0xffff, 0, 64).encode()))
                .isEqualTo("0200000000000000" + "0500000000000000" + "0100000000000000" + "0200000000000000"
                        + "3412000000000000" + "ffff000000000000" + "0000000000000000" + zeros);
        assertThat(hex.formatHex(new TagSend(7, 1, 0, 2, 0x99, 0, new byte[] {(byte) 0xaa, (byte) 0xbb}, 72).encode()))
                .isEqualTo("0100000000000000" + "0700000000000000" + "0100000000000000" + "0000000000000000"
                        + "0200000000000000" + "9900000000000000" + "0000000000000000" + zeros + "00".repeat(8)
                        + "aabb");
        assertThat(hex.formatHex(new TagSendDone(9, UromStatus.SUCCESS, true).encode()))
                .isEqualTo("0100000000000000" + "0900000000000000" + "00000000" + "00".repeat(28));
        assertThat(hex.formatHex(new TagSendDone(9, UromStatus.CONNECTION_RESET, true).encode()))
                .isEqualTo("0100000000000000" + "0900000000000000" + "e7ffffff" + "00".repeat(28));
        assertThat(hex.formatHex(new TagRecvDone(3, 1, 0, 0x5678, UromStatus.TOO_BIG, new byte[0], true).encode()))
                .isEqualTo("0200000000000000" + "0300000000000000" + "0100000000000000" + "0000000000000000"
                        + "7856000000000000" + "f7ffffff" + "00000000");
        assertThat(hex.formatHex(new TagRecvDone(
                                3, 1, 2, 0x5678, UromStatus.SUCCESS, new byte[] {(byte) 0xaa, (byte) 0xbb}, true)
                        .encode()))
                .isEqualTo(hex.formatHex(
                        new TagRecvDone(3, 1, 2, 0x5678, UromStatus.SUCCESS, new byte[] {(byte) 0xaa, (byte) 0xbb})
                                .encode()));
    }

    /** The nearest UCX status to each of ours; the numbers are UCX's ucs_status_t. */
    @Test
    void docaLayoutStatusesAreUcxStatuses() {
        Map<UromStatus, Integer> mapped = Map.of(
                UromStatus.SUCCESS,
                0,
                UromStatus.TOO_BIG,
                -9,
                UromStatus.CONNECTION_RESET,
                -25,
                UromStatus.NOT_FOUND,
                -12,
                UromStatus.INVALID_VALUE,
                -5,
                UromStatus.IO_FAILED,
                -3);
        for (UromStatus status : UromStatus.values()) {
            assertThat(UcsStatus.of(status)).as("%s", status).isEqualTo(mapped.getOrDefault(status, -1));
        }
    }

    /** UcsStatus's constants against the header of the UCX the build compiles the C plugin with. */
    @Test
    void ucsConstantsAreTheHeaders() throws IOException, InterruptedException {
        Path header = ucxIncludeDir().resolve("ucs/type/status.h");
        assertThat(header)
                .as("UCX's header (libucx-dev, which bin/setup installs)")
                .isReadable();
        String text = Files.readString(header);
        Map<String, Integer> constants = Map.of(
                "UCS_OK",
                UcsStatus.UCS_OK,
                "UCS_ERR_NO_MESSAGE",
                UcsStatus.UCS_ERR_NO_MESSAGE,
                "UCS_ERR_IO_ERROR",
                UcsStatus.UCS_ERR_IO_ERROR,
                "UCS_ERR_INVALID_PARAM",
                UcsStatus.UCS_ERR_INVALID_PARAM,
                "UCS_ERR_MESSAGE_TRUNCATED",
                UcsStatus.UCS_ERR_MESSAGE_TRUNCATED,
                "UCS_ERR_NO_ELEM",
                UcsStatus.UCS_ERR_NO_ELEM,
                "UCS_ERR_CONNECTION_RESET",
                UcsStatus.UCS_ERR_CONNECTION_RESET);
        constants.forEach((name, value) -> assertThat(Pattern.compile("\\b" + name + "\\s*=\\s*" + value + "\\s*,")
                        .matcher(text)
                        .find())
                .as("%s = %d in %s", name, value, header)
                .isTrue());
    }

    /** UCX's include folder as pkg-config knows it (a UCX installed elsewhere), else {@code /usr/include}. */
    private static Path ucxIncludeDir() throws IOException, InterruptedException {
        try {
            Process process = new ProcessBuilder("pkg-config", "--variable=includedir", "ucx")
                    .redirectErrorStream(true)
                    .start();
            process.getOutputStream().close();
            String dir = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (process.waitFor() == 0 && !dir.isEmpty()) {
                return Path.of(dir);
            }
        } catch (IOException e) {
            // no pkg-config: the system's folder
        }
        return Path.of("/usr/include");
    }

    /** {@code ours}'s first 56 bytes, zeros up to {@code fixed}, then {@code data}. */
    private static byte[] resized(byte[] ours, int fixed, byte[] data) {
        byte[] bytes = new byte[fixed + data.length];
        System.arraycopy(ours, 0, bytes, 0, 56);
        System.arraycopy(data, 0, bytes, fixed, data.length);
        return bytes;
    }

    @Provide
    Arbitrary<Integer> docaFixedSizes() {
        return Arbitraries.of(SandboxCommand.DOCA_FIXED_BYTES_UCX_1_13, SandboxCommand.DOCA_FIXED_BYTES_UCX_1_14);
    }

    @Provide
    Arbitrary<SandboxCommand> commands() {
        Arbitrary<Long> any = Arbitraries.longs();
        Arbitrary<SandboxCommand> memMaps =
                Arbitraries.bytes().array(byte[].class).ofMaxSize(20).map(p -> new MemMap(1, 2, p));
        Arbitrary<SandboxCommand> sends =
                Arbitraries.bytes().array(byte[].class).ofMaxSize(20).map(d -> new TagSend(1, 2, 3, d.length, 4, 0, d));
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
