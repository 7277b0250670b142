// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Fixed examples of the codecs: known bytes, the fields at their bounds, the members hash, the agreement's verdicts. */
class CollCodecTest {
    private static final long TEAM = 5;
    private static final long TEAM_SIZE = 3;
    private static final long MEMBERS_HASH = 99;
    private static final long CHUNK_BYTES = 65536;
    private static final long SMALL_BYTES = 16384;
    private static final long TIMEOUT_MS = 30000;
    private static final long NOT_REFUSED = 0;

    @Test
    void aPostIsLaidOutAsTheHeaderSays() {
        byte[] bytes = CollCommand.Post.builder(0x1122334455667788L, 7)
                .coll(3)
                .dtype(9)
                .flags(1)
                .count(5)
                .src(0x1000)
                .dst(0x2000)
                .build()
                .encode();
        assertThat(HexFormat.of().formatHex(bytes, 0, 40))
                .isEqualTo("0500" + "0100" + "00000000" + "8877665544332211" + "07000000" + "0300" + "09" + "00"
                        + "00000000" + "01000000" + "0500000000000000");
    }

    @Test
    void fieldsAtTheirBoundsSurviveAndBeyondThemAreRefusedByTheRecords() throws CollProtocolException {
        CollCommand.Post max = CollCommand.Post.builder(-1, 0xffff_ffffL)
                .coll(0xffff)
                .dtype(0xff)
                .op(0xff)
                .root(0xffff_ffffL)
                .flags(0xffff_ffffL)
                .count(-1)
                .src(-1)
                .dst(-1)
                .memh(-1, -1)
                .build();
        assertThat(CollCommand.decode(max.encode())).isEqualTo(max);
        assertThatThrownBy(() -> CollCommand.Post.builder(0, 1L << 32).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CollCommand.Post.builder(0, 0).coll(0x10000).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CollCommand.Post.builder(0, 0).dtype(256).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CollCommand.TeamDestroy(0, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTeamCreateListMustCarryExactlyItsMembers() {
        byte[] bytes = CollCommand.TeamCreate.list(1, 2, 0, new long[] {5, 6, 7}, 0, 0, 0)
                .encode();
        assertThat(bytes).hasSize(64 + 24);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(CollLayout.TEAM_CREATE_SIZE_FIELD, 4);
        assertThatThrownBy(() -> CollCommand.decode(bytes))
                .isInstanceOf(CollProtocolException.class)
                .hasMessageContaining("88 bytes, not 96");
        ByteBuffer.wrap(bytes)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(CollLayout.TEAM_CREATE_SIZE_FIELD, 3)
                .putInt(CollLayout.TEAM_CREATE_MEMBERS, 2);
        assertThatThrownBy(() -> CollCommand.decode(bytes))
                .isInstanceOf(CollProtocolException.class)
                .hasMessageContaining("members is 2");
        byte[] range =
                CollCommand.TeamCreate.range(1, 2, 1_000_000, 0, 0, 1, 0, 0, 0).encode();
        assertThat(range).hasSize(64);
    }

    @Test
    void aFailureAnswerHasItsTypesSizeAndZeroBody() throws CollProtocolException {
        byte[] answer = CollNotification.failure(CommandType.POST.code(), 42, Reason.BAD_ROOT, 0);
        CollNotification decoded = CollNotification.decode(answer);
        assertThat(decoded).isEqualTo(new CollNotification.PostDone(new CollNotification.Header(5, 6, 42, 7, 0), 0, 0));
        assertThat(CollNotification.failure(99, 42, Reason.BAD_COMMAND, 0)).hasSize(24);
    }

    @Test
    void everyReasonHasTheSpecifiedStatus() {
        assertThat(Reason.MISMATCH.status()).isEqualTo(6);
        assertThat(Reason.NOT_MAPPED.status()).isEqualTo(2);
        assertThat(Reason.NO_DOMAIN.status()).isEqualTo(16);
        assertThat(Reason.TEAM_EXISTS.status()).isEqualTo(23);
        assertThat(Reason.TOO_MANY.status()).isEqualTo(24);
        assertThat(Reason.TEAM_FAILED.status()).isEqualTo(12);
        assertThat(Reason.TIMEOUT.status()).isEqualTo(9);
        assertThat(Reason.HOST_GONE.status()).isEqualTo(10);
        assertThat(Reason.TRANSPORT.status()).isEqualTo(21);
    }

    @Test
    void theMembersHashIsFnv1a64OfLittleEndianIds() {
        assertThat(MembersHash.of(new long[0])).isEqualTo(0xcbf29ce484222325L);
        long expected = 0xcbf29ce484222325L;
        for (byte x : new byte[] {1, 0, 0, 0, 0, 0, 0, 0}) {
            expected = (expected ^ (x & 0xff)) * 0x100000001b3L;
        }
        assertThat(MembersHash.of(new long[] {1})).isEqualTo(expected);
        // FNV-1a 64 of the eight bytes 00..07, computed independently.
        assertThat(MembersHash.of(new long[] {0x0706050403020100L}))
                .isEqualTo(hashOfBytes(new byte[] {0, 1, 2, 3, 4, 5, 6, 7}));
        assertThat(MembersHash.of(new long[] {1, 2})).isNotEqualTo(MembersHash.of(new long[] {2, 1}));
    }

    private static long hashOfBytes(byte[] bytes) {
        long h = 0xcbf29ce484222325L;
        for (byte x : bytes) {
            h ^= x & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    @Test
    void theAgreementNamesTheLowestRefusingRankAndTheFirstMismatchedField() {
        Agree r0 = Agree.own(3, 9, 0, 0, 10, 0, Reason.NONE);
        Agree r1 = Agree.own(3, 9, 0, 0, 11, 1, Reason.NONE);
        Agree r2 = Agree.own(3, 8, 0, 0, 10, 2, Reason.BAD_ROOT);
        Agree r3 = Agree.own(3, 9, 0, 0, 10, 3, Reason.UNKNOWN_OP);
        assertThat(r0.merge(r1).firstMismatch()).isEqualTo(AgreeField.COUNT);
        assertThat(r0.merge(r1).merge(r2).firstMismatch()).isEqualTo(AgreeField.DTYPE);
        Agree all = r3.merge(r2).merge(r1).merge(r0);
        assertThat(all.refusingRank()).isEqualTo(2);
        assertThat(all.refusedReason()).isEqualTo(Reason.BAD_ROOT.code());
        assertThat(r0.merge(r0).firstMismatch()).isNull();
        assertThat(Agree.own(0, 0, 0, 0, -1L, 0, Reason.NONE)
                        .merge(Agree.own(0, 0, 0, 0, 1, 1, Reason.NONE))
                        .min()[4])
                .as("count compares unsigned")
                .isEqualTo(1);
    }

    @Test
    void aHelloDisagreementIsNamedByItsKind() {
        Hello mine = hello(0, MEMBERS_HASH, CHUNK_BYTES, NOT_REFUSED);

        assertThat(mine.disagreement(hello(1, MEMBERS_HASH, CHUNK_BYTES, NOT_REFUSED), 1))
                .isNull();
        assertThat(mine.disagreement(hello(1, MEMBERS_HASH, 4096, NOT_REFUSED), 1))
                .isEqualTo(Reason.KNOBS);
        assertThat(mine.disagreement(hello(1, MEMBERS_HASH - 1, CHUNK_BYTES, NOT_REFUSED), 1))
                .isEqualTo(Reason.BAD_MEMBERS);
        assertThat(mine.disagreement(hello(2, MEMBERS_HASH, CHUNK_BYTES, NOT_REFUSED), 1))
                .as("a peer that says another rank than the one it is at")
                .isEqualTo(Reason.BAD_MEMBERS);
        assertThat(mine.disagreement(hello(1, MEMBERS_HASH, CHUNK_BYTES, Reason.BAD_ROOT.code()), 1))
                .isEqualTo(Reason.PEER_REFUSED);
    }

    /** A HELLO of team {@value #TEAM} ({@value #TEAM_SIZE} ranks) with the fields a disagreement case varies. */
    private static Hello hello(long rank, long membersHash, long chunkBytes, long refused) {
        return new Hello(TEAM, TEAM_SIZE, rank, membersHash, chunkBytes, SMALL_BYTES, TIMEOUT_MS, refused);
    }
}
