// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Round trips of every codec, and hostile bytes: truncated, extended, wrong version, reserved bits set. */
class CollCodecProperties {
    private static final long U32 = 0xffff_ffffL;

    @Provide
    Arbitrary<CollCommand> commands() {
        Arbitrary<Long> any = Arbitraries.longs();
        Arbitrary<Long> u32 = Arbitraries.longs().between(0, U32).edgeCases(e -> e.add(0L, U32));
        Arbitrary<CollCommand> range = Combinators.combine(any, u32, u32, u32, any, any, u32, u32)
                .as((cookie, team, size, rank, start, stride, chunk, small) -> CollCommand.TeamCreate.range(
                        cookie, team, size, rank, start, stride, chunk, small, small ^ chunk));
        Arbitrary<CollCommand> list = Combinators.combine(
                        any, u32, u32, Arbitraries.longs().array(long[].class).ofMaxSize(300), u32)
                .as((cookie, team, rank, ids, knob) ->
                        CollCommand.TeamCreate.list(cookie, team, rank, ids, knob, knob / 2, knob / 3));
        Arbitrary<CollCommand> destroy = Combinators.combine(any, u32).as(CollCommand.TeamDestroy::new);
        Arbitrary<CollCommand> map = Combinators.combine(any, any, any, u32).as(CollCommand.MemMap::new);
        Arbitrary<CollCommand> unmap = Combinators.combine(any, any).as(CollCommand.MemUnmap::new);
        Arbitrary<CollCommand> post = Combinators.combine(
                        Arbitraries.of(0L, -1L, 7L),
                        u32,
                        Arbitraries.integers().between(0, 0xffff),
                        Arbitraries.integers().between(0, 0xff),
                        Arbitraries.integers().between(0, 0xff),
                        u32,
                        u32,
                        any)
                .as((cookie, team, coll, dtype, op, root, flags, count) -> CollCommand.Post.builder(cookie, team)
                        .coll(coll)
                        .dtype(dtype)
                        .op(op)
                        .root(root)
                        .flags(flags)
                        .count(count)
                        .src(count ^ 1)
                        .dst(~count)
                        .memh(count * 3, -count)
                        .build());
        return Arbitraries.oneOf(range, list, destroy, map, unmap, post);
    }

    @Provide
    Arbitrary<CollNotification> notifications() {
        Arbitrary<Long> any = Arbitraries.longs();
        Arbitrary<Long> u32 = Arbitraries.longs().between(0, U32);
        Arbitrary<CollNotification.Header> header = Combinators.combine(
                        Arbitraries.integers(), any, Arbitraries.integers(), u32)
                .as((status, cookie, reason, detail) -> new CollNotification.Header(0, status, cookie, reason, detail));
        return Combinators.combine(header, Arbitraries.of(CommandType.values()), u32, u32, any)
                .as((h, type, a, b, c) -> {
                    CollNotification.Header typed =
                            new CollNotification.Header(type.code(), h.status(), h.cookie(), h.reason(), h.detail());
                    return switch (type) {
                        case TEAM_CREATE -> new CollNotification.TeamCreateDone(typed, a, b, a ^ b);
                        case TEAM_DESTROY -> new CollNotification.TeamDestroyDone(typed, a);
                        case MEM_MAP -> new CollNotification.MemMapDone(typed, c);
                        case MEM_UNMAP -> new CollNotification.MemUnmapDone(typed);
                        case POST -> new CollNotification.PostDone(typed, b, c);
                    };
                });
    }

    @Property
    void everyCommandRoundTrips(@ForAll("commands") CollCommand command) throws CollProtocolException {
        byte[] bytes = command.encode();
        assertThat(bytes.length)
                .isEqualTo(command.type().commandSize()
                        + (command instanceof CollCommand.TeamCreate t ? 8 * t.memberIds().length : 0));
        assertThat(CollCommand.decode(bytes)).isEqualTo(command);
    }

    @Property
    void everyNotificationRoundTrips(@ForAll("notifications") CollNotification notification)
            throws CollProtocolException {
        byte[] bytes = notification.encode();
        assertThat(bytes.length)
                .isEqualTo(CommandType.ofCode(notification.header().type()).answerSize());
        assertThat(CollNotification.decode(bytes)).isEqualTo(notification);
    }

    @Property
    void aCommandCutOrExtendedIsABadCommand(
            @ForAll("commands") CollCommand command, @ForAll @IntRange(min = -80, max = 80) int delta) {
        byte[] bytes = command.encode();
        if (delta == 0 || bytes.length + delta < 0) {
            return;
        }
        byte[] changed = Arrays.copyOf(bytes, bytes.length + delta);
        if (command instanceof CollCommand.TeamCreate t
                && t.members() == CollLayout.MEMBERS_LIST
                && delta > 0
                && delta % 8 == 0
                && changed.length >= CollLayout.TEAM_CREATE_SIZE) {
            ByteBuffer.wrap(changed)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .putInt(CollLayout.TEAM_CREATE_SIZE_FIELD, (int) t.size() + delta / 8 + 1);
            assertDecodeFailsNaming(changed, "TEAM_CREATE has");
            return;
        }
        assertThatThrownBy(() -> CollCommand.decode(changed))
                .isInstanceOfSatisfying(
                        CollProtocolException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BAD_COMMAND));
    }

    @Property
    void aCommandOfAnotherVersionIsABadCommand(
            @ForAll("commands") CollCommand command, @ForAll @IntRange(min = 0, max = 0xffff) int version) {
        if (version == 1) {
            return;
        }
        byte[] bytes = command.encode();
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putShort(CollLayout.CMD_HDR_VERSION, (short) version);
        assertDecodeFailsNaming(bytes, "version is " + version);
    }

    @Property
    void anyReservedBitSetIsABadCommand(
            @ForAll("commands") CollCommand command, @ForAll @IntRange(min = 0, max = 31) int bit) {
        byte[] bytes = command.encode();
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(CollLayout.CMD_HDR_RESERVED, 1 << bit);
        assertDecodeFailsNaming(bytes, "reserved");
        b.putInt(CollLayout.CMD_HDR_RESERVED, 0);
        int reserved = switch (command.type()) {
            case TEAM_CREATE -> CollLayout.TEAM_CREATE_RESERVED;
            case TEAM_DESTROY -> CollLayout.TEAM_DESTROY_RESERVED;
            case MEM_MAP -> CollLayout.MEM_MAP_RESERVED;
            default -> -1;
        };
        if (reserved >= 0) {
            b.putInt(reserved, 1 << bit);
            assertDecodeFailsNaming(bytes, "reserved");
        }
    }

    @Property
    void anUnknownCommandTypeIsABadCommand(
            @ForAll("commands") CollCommand command, @ForAll @IntRange(min = 0, max = 0xffff) int type) {
        if (CommandType.ofCode(type) != null) {
            return;
        }
        byte[] bytes = command.encode();
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putShort(CollLayout.CMD_HDR_TYPE, (short) type);
        assertDecodeFailsNaming(bytes, "command type " + type);
    }

    @Property
    void aNotificationCutExtendedOrOfAnotherVersionIsRefused(
            @ForAll("notifications") CollNotification notification,
            @ForAll @IntRange(min = -30, max = 30) int delta,
            @ForAll @IntRange(min = 2, max = 0xffff) int version) {
        byte[] bytes = notification.encode();
        if (delta != 0 && bytes.length + delta >= 0) {
            byte[] changed = Arrays.copyOf(bytes, bytes.length + delta);
            assertThatThrownBy(() -> CollNotification.decode(changed)).isInstanceOf(CollProtocolException.class);
        }
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putShort(CollLayout.NOTIF_HDR_VERSION, (short) version);
        assertThatThrownBy(() -> CollNotification.decode(bytes))
                .isInstanceOf(CollProtocolException.class)
                .hasMessageContaining("version");
    }

    @Property
    void helloRoundTripsAndRefusesHostileBytes(
            @ForAll @LongRange(min = 0, max = U32) long team,
            @ForAll @LongRange(min = 0, max = U32) long knob,
            @ForAll long hash,
            @ForAll @IntRange(min = 1, max = 0xffff) int reserved)
            throws CollProtocolException {
        Hello hello = new Hello(team, knob, team ^ 5 & U32, hash, knob, U32 - knob, knob / 7, team % 30);
        byte[] bytes = hello.encode();
        assertThat(Hello.decode(bytes)).isEqualTo(hello);
        assertThatThrownBy(() -> Hello.decode(Arrays.copyOf(bytes, 39))).isInstanceOf(CollProtocolException.class);
        assertThatThrownBy(() -> Hello.decode(Arrays.copyOf(bytes, 41))).isInstanceOf(CollProtocolException.class);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putShort(CollLayout.HELLO_RESERVED, (short) reserved);
        assertThatThrownBy(() -> Hello.decode(bytes))
                .isInstanceOf(CollProtocolException.class)
                .hasMessageContaining("reserved");
        ByteBuffer.wrap(bytes)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putShort(CollLayout.HELLO_RESERVED, (short) 0)
                .putShort(0, (short) reserved);
        if (reserved != 1) {
            assertThatThrownBy(() -> Hello.decode(bytes))
                    .isInstanceOf(CollProtocolException.class)
                    .hasMessageContaining("version");
        }
    }

    @Provide
    Arbitrary<Agree> agreements() {
        Arbitrary<Long> field = Arbitraries.longs().edgeCases(e -> e.add(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE));
        Arbitrary<Long> refused = Arbitraries.oneOf(Arbitraries.longs().between(0, 70), Arbitraries.just(U32));
        return Combinators.combine(
                        field.array(long[].class).ofSize(5),
                        refused,
                        Arbitraries.integers().between(0, 29))
                .as((values, r, reason) -> new Agree(values, values, r, r == 0 ? 0 : reason));
    }

    @Property
    void agreeRoundTripsAndMergesAsAnOrderFreeLattice(
            @ForAll("agreements") Agree a, @ForAll("agreements") Agree b, @ForAll("agreements") Agree c)
            throws CollProtocolException {
        assertThat(Agree.decode(a.encode())).isEqualTo(a);
        assertThat(a.merge(b)).isEqualTo(b.merge(a));
        assertThat(a.merge(b).merge(c)).isEqualTo(a.merge(b.merge(c)));
        assertThat(a.merge(a)).isEqualTo(a);
        Agree m = a.merge(b);
        for (int i = 0; i < 5; i++) {
            assertThat(Long.compareUnsigned(m.min()[i], a.min()[i])).isLessThanOrEqualTo(0);
            assertThat(Long.compareUnsigned(m.max()[i], b.max()[i])).isGreaterThanOrEqualTo(0);
        }
        if (a.refused() != 0 || b.refused() != 0) {
            long lowest = a.refused() == 0
                    ? b.refused()
                    : b.refused() == 0 ? a.refused() : Math.min(a.refused(), b.refused());
            assertThat(m.refused()).isEqualTo(lowest);
        } else {
            assertThat(m.refused()).isZero();
            assertThat(m.refusedReason()).isZero();
        }
    }

    @Property
    void tagFieldsComeBackCutToTheirWidths(
            @ForAll @IntRange(min = 0, max = 15) int kind,
            @ForAll long team,
            @ForAll long seq,
            @ForAll long step,
            @ForAll long sender) {
        long tag = CollTag.of(kind, team, seq, step, sender);
        assertThat(CollTag.kind(tag)).isEqualTo(kind);
        assertThat(CollTag.teamId(tag)).isEqualTo(team & 0xfff);
        assertThat(CollTag.sequence(tag)).isEqualTo(seq & 0xffff);
        assertThat(CollTag.step(tag)).isEqualTo(step & 0xffff);
        assertThat(CollTag.sender(tag)).isEqualTo(sender & 0xffff);
    }

    private static void assertDecodeFailsNaming(byte[] bytes, String words) {
        assertThatThrownBy(() -> CollCommand.decode(bytes)).isInstanceOfSatisfying(CollProtocolException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.BAD_COMMAND);
            assertThat(e.getMessage()).contains(words).doesNotContain("\n");
        });
    }
}
