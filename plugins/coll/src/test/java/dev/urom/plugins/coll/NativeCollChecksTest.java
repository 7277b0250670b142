// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static dev.urom.plugins.coll.NativeCollFixture.address;
import static dev.urom.plugins.coll.NativeCollFixture.barrier;
import static dev.urom.plugins.coll.NativeCollFixture.cookie;
import static dev.urom.plugins.coll.NativeCollFixture.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import dev.urom.plugins.coll.NativeCollFixture.Answer;
import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.CommandType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every check of a POST (each reason, on a team of two: the refusing rank gets its reason, the other
 * PEER_REFUSED, neither destination is touched), disagreements between ranks, MEM_MAP handles.
 */
class NativeCollChecksTest {
    private static final int N = 64;
    private static final byte PATTERN = 0x5a;
    private static final int PROT_NONE = 0;
    private static final int PROT_READ = 1;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private NativeCollFixture fx;
    private final List<Memory> keep = new ArrayList<>();

    @BeforeEach
    void team() {
        fx = NativeCollFixture.open(2);
        fx.team(1, 2, NativeCollAllreduceTest.KNOBS);
    }

    @AfterEach
    void close() {
        fx.close();
    }

    private Memory buffer(int bytes) {
        Memory m = NativeCollFixture.memory(bytes);
        byte[] fill = new byte[bytes];
        Arrays.fill(fill, PATTERN);
        m.write(0, fill, 0, bytes);
        keep.add(m);
        return m;
    }

    private static long mmap(int prot) {
        Pointer p = NativeLibrary.getInstance("c")
                .getFunction("mmap")
                .invokePointer(new Object[] {null, 4096L, prot, MAP_PRIVATE_ANONYMOUS, -1, 0L});
        return Pointer.nativeValue(p);
    }

    private static void assertUntouched(Memory m, int bytes) {
        byte[] expected = new byte[bytes];
        Arrays.fill(expected, PATTERN);
        assertThat(m.getByteArray(0, bytes)).as("the destination is untouched").isEqualTo(expected);
    }

    /** Rank 0 posts `bad' (given its destination), rank 1 a valid INT32 SUM allreduce of N/4 elements. */
    private void refused(LongFunction<CollCommand.Post> bad, UromStatus status, Reason reason) {
        Memory dst0 = buffer(N);
        Memory src1 = buffer(N);
        Memory dst1 = buffer(N);
        List<Answer> answers = fx.all(
                NativeCollFixture.range(2),
                r -> r == 0
                        ? bad.apply(address(dst0))
                        : post(
                                1,
                                CollType.ALLREDUCE,
                                DataType.INT32,
                                ReduceOp.SUM,
                                N / 4,
                                address(src1),
                                address(dst1)));
        answers.get(0).fails(status, reason);
        answers.get(1).fails(UromStatus.INVALID_VALUE, Reason.PEER_REFUSED).detail(0);
        assertUntouched(dst0, N);
        assertUntouched(dst1, N);
        assertThat(answers.get(0).sequence()).isEqualTo(answers.get(1).sequence());
        stillWorks();
    }

    /** The team goes on after a refusal: an allreduce on both ranks succeeds. */
    private void stillWorks() {
        Memory[] dst = {buffer(8), buffer(8)};
        Memory[] src = {buffer(8), buffer(8)};
        fx.all(
                        NativeCollFixture.range(2),
                        r -> post(
                                1,
                                CollType.ALLREDUCE,
                                DataType.INT64,
                                ReduceOp.SUM,
                                1,
                                address(src[r]),
                                address(dst[r])))
                .forEach(Answer::isOk);
        assertThat(dst[0].getLong(0)).isEqualTo(2 * 0x5a5a5a5a5a5a5a5aL);
    }

    /** An INT32 SUM allreduce of N/4 elements from a fresh buffer to dst. */
    private CollCommand.Post allreduce(long dst) {
        return allreduce(dst, 0, N / 4, 0, 0);
    }

    /** An INT32 SUM allreduce from a fresh buffer to dst with these flags, count and handles. */
    private CollCommand.Post allreduce(long dst, long flags, long count, long srcMemh, long dstMemh) {
        return CollCommand.Post.builder(cookie(), 1)
                .coll(CollType.ALLREDUCE.code())
                .dtype(DataType.INT32.code())
                .op(ReduceOp.SUM.code())
                .flags(flags)
                .count(count)
                .src(address(buffer(N)))
                .dst(dst)
                .memh(srcMemh, dstMemh)
                .build();
    }

    @Test
    void unknownCollective() {
        refused(
                d -> CollCommand.Post.builder(cookie(), 1)
                        .coll(CollType.values().length)
                        .dtype(DataType.INT32.code())
                        .count(N / 4)
                        .dst(d)
                        .build(),
                UromStatus.INVALID_VALUE,
                Reason.UNKNOWN_COLL);
    }

    @Test
    void unknownDatatype() {
        refused(
                d -> CollCommand.Post.builder(cookie(), 1)
                        .coll(CollType.ALLREDUCE.code())
                        .dtype(DataType.values().length)
                        .count(N / 4)
                        .src(address(buffer(N)))
                        .dst(d)
                        .build(),
                UromStatus.INVALID_VALUE,
                Reason.UNKNOWN_DTYPE);
    }

    @Test
    void unknownOperation() {
        refused(
                d -> CollCommand.Post.builder(cookie(), 1)
                        .coll(CollType.ALLREDUCE.code())
                        .dtype(DataType.INT32.code())
                        .op(ReduceOp.values().length)
                        .count(N / 4)
                        .src(address(buffer(N)))
                        .dst(d)
                        .build(),
                UromStatus.INVALID_VALUE,
                Reason.UNKNOWN_OP);
    }

    @Test
    void bitwiseOperationOnFloatingPoint() {
        refused(
                d -> post(1, CollType.ALLREDUCE, DataType.FLOAT64, ReduceOp.BAND, N / 8, address(buffer(N)), d),
                UromStatus.INVALID_VALUE,
                Reason.OP_NOT_FOR_DTYPE);
    }

    @Test
    void countOverflow() {
        refused(d -> allreduce(d, 0, 1L << 62, 0, 0), UromStatus.INVALID_VALUE, Reason.COUNT_OVERFLOW);
        refused(
                d -> post(1, CollType.ALLGATHER, DataType.INT8, ReduceOp.SUM, Long.MAX_VALUE / 2 + 1, 8, d),
                UromStatus.INVALID_VALUE,
                Reason.COUNT_OVERFLOW);
    }

    @Test
    void rootOutsideTheTeam() {
        refused(
                d -> post(1, CollType.BCAST, DataType.INT32, ReduceOp.SUM, 2, 0, N / 4, 0, d),
                UromStatus.INVALID_VALUE,
                Reason.BAD_ROOT);
    }

    @Test
    void unknownFlagOrInPlaceWhereThereIsNone() {
        refused(d -> allreduce(d, 2, N / 4, 0, 0), UromStatus.INVALID_VALUE, Reason.BAD_FLAGS);
        refused(
                d -> post(1, CollType.BCAST, DataType.INT32, ReduceOp.SUM, 0, CollLayout.IN_PLACE, N / 4, 0, d),
                UromStatus.INVALID_VALUE,
                Reason.BAD_FLAGS);
        refused(
                d -> post(1, CollType.REDUCE, DataType.INT32, ReduceOp.SUM, 1, CollLayout.IN_PLACE, N / 4, 0, d),
                UromStatus.INVALID_VALUE,
                Reason.BAD_FLAGS);
    }

    @Test
    void rangesTheHostDoesNotHave() {
        refused(
                d -> post(1, CollType.ALLREDUCE, DataType.INT32, ReduceOp.SUM, N / 4, 4096, d),
                UromStatus.NOT_PERMITTED,
                Reason.NOT_MAPPED);
        refused(
                d -> post(1, CollType.ALLREDUCE, DataType.INT32, ReduceOp.SUM, N / 4, -16, d),
                UromStatus.NOT_PERMITTED,
                Reason.NOT_MAPPED);
        long none = mmap(PROT_NONE);
        refused(
                d -> post(1, CollType.ALLREDUCE, DataType.INT32, ReduceOp.SUM, N / 4, none, d),
                UromStatus.NOT_PERMITTED,
                Reason.NOT_READABLE);
        long readOnly = mmap(PROT_READ);
        Memory src = buffer(N);
        Memory dst1 = buffer(N);
        List<Answer> answers = fx.all(
                NativeCollFixture.range(2),
                r -> r == 0
                        ? post(1, CollType.ALLREDUCE, DataType.INT32, ReduceOp.SUM, N / 4, address(src), readOnly)
                        : post(
                                1,
                                CollType.ALLREDUCE,
                                DataType.INT32,
                                ReduceOp.SUM,
                                N / 4,
                                address(src),
                                address(dst1)));
        answers.get(0).fails(UromStatus.NOT_PERMITTED, Reason.NOT_WRITABLE);
        answers.get(1).fails(UromStatus.INVALID_VALUE, Reason.PEER_REFUSED);
        assertUntouched(dst1, N);
    }

    @Test
    void overlappingSourceAndDestination() {
        refused(
                d -> post(1, CollType.ALLREDUCE, DataType.INT32, ReduceOp.SUM, N / 4, d + 4, d),
                UromStatus.INVALID_VALUE,
                Reason.OVERLAP);
    }

    @Test
    void handles() {
        Memory region = buffer(4 * N);
        long base = address(region);
        Answer rw = fx.call(0, new CollCommand.MemMap(1, base, 4 * N, CollLayout.ACCESS_READ | CollLayout.ACCESS_WRITE))
                .isOk();
        Answer ro = fx.call(0, new CollCommand.MemMap(2, base, 4 * N, CollLayout.ACCESS_READ))
                .isOk();
        assertThat(rw.memh()).isNotZero().isNotEqualTo(ro.memh());
        assertThat(rw.type()).isEqualTo(CommandType.MEM_MAP.code());
        // a handle that lacks write access, a range outside its handle, an unknown handle
        refused(d -> allreduce(base, 0, N / 4, 0, ro.memh()), UromStatus.NOT_PERMITTED, Reason.BAD_MEMH);
        refused(d -> allreduce(base + 4 * N - 8, 0, N / 4, 0, rw.memh()), UromStatus.NOT_PERMITTED, Reason.BAD_MEMH);
        refused(d -> allreduce(d, 0, N / 4, 12345, 0), UromStatus.NOT_PERMITTED, Reason.BAD_MEMH);
        // through the handles, both ranks
        Memory src1 = buffer(N);
        Memory dst1 = buffer(N);
        fx.all(
                        NativeCollFixture.range(2),
                        r -> r == 0
                                ? CollCommand.Post.builder(cookie(), 1)
                                        .coll(CollType.ALLREDUCE.code())
                                        .dtype(DataType.INT32.code())
                                        .op(ReduceOp.SUM.code())
                                        .count(N / 4)
                                        .src(base)
                                        .dst(base + N)
                                        .memh(ro.memh(), rw.memh())
                                        .build()
                                : post(
                                        1,
                                        CollType.ALLREDUCE,
                                        DataType.INT32,
                                        ReduceOp.SUM,
                                        N / 4,
                                        address(src1),
                                        address(dst1)))
                .forEach(Answer::isOk);
        assertThat(region.getInt(N)).isEqualTo(2 * 0x5a5a5a5a);
        Answer unmapped = fx.call(0, new CollCommand.MemUnmap(3, rw.memh())).isOk();
        assertThat(unmapped.type()).isEqualTo(CommandType.MEM_UNMAP.code());
        fx.call(0, new CollCommand.MemUnmap(4, rw.memh())).fails(UromStatus.NOT_PERMITTED, Reason.BAD_MEMH);
        refused(d -> allreduce(base, 0, N / 4, 0, rw.memh()), UromStatus.NOT_PERMITTED, Reason.BAD_MEMH);
    }

    @Test
    void handlesOfRangesTheHostCannotGive() {
        Memory m = buffer(N);
        fx.call(0, new CollCommand.MemMap(1, 4096, 4096, CollLayout.ACCESS_READ))
                .fails(UromStatus.NOT_PERMITTED, Reason.NOT_MAPPED);
        fx.call(0, new CollCommand.MemMap(2, mmap(PROT_READ), 4096, CollLayout.ACCESS_WRITE))
                .fails(UromStatus.NOT_PERMITTED, Reason.NOT_WRITABLE);
        fx.call(0, new CollCommand.MemMap(3, address(m), 0, CollLayout.ACCESS_READ))
                .fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        fx.call(0, new CollCommand.MemMap(4, address(m), N, 0)).fails(UromStatus.INVALID_VALUE, Reason.BAD_FLAGS);
        fx.call(0, new CollCommand.MemMap(5, address(m), N, 4)).fails(UromStatus.INVALID_VALUE, Reason.BAD_FLAGS);
    }

    @Test
    void aDifferentCountIsAMismatchOnEveryRank() {
        Memory[] dst = {buffer(N), buffer(N)};
        List<Answer> answers = fx.all(
                NativeCollFixture.range(2),
                r -> post(
                        1,
                        CollType.ALLREDUCE,
                        DataType.INT32,
                        ReduceOp.SUM,
                        r == 0 ? 4 : 5,
                        address(buffer(N)),
                        address(dst[r])));
        for (int r = 0; r < 2; r++) {
            answers.get(r).fails(UromStatus.INVALID_VALUE, Reason.MISMATCH).detail(5);
            assertUntouched(dst[r], N);
        }
        stillWorks();
    }

    @Test
    void aDifferentCollectiveIsAMismatchOnEveryRank() {
        Memory[] dst = {buffer(N), buffer(N)};
        List<Answer> answers = fx.all(
                NativeCollFixture.range(2),
                r -> r == 0
                        ? post(
                                1,
                                CollType.ALLREDUCE,
                                DataType.INT32,
                                ReduceOp.SUM,
                                4,
                                address(buffer(N)),
                                address(dst[r]))
                        : post(1, CollType.BCAST, DataType.INT32, ReduceOp.SUM, 4, 0, address(dst[r])));
        for (int r = 0; r < 2; r++) {
            answers.get(r).fails(UromStatus.INVALID_VALUE, Reason.MISMATCH).detail(1);
            assertUntouched(dst[r], N);
        }
    }

    @Test
    void anUnknownTeamOrAnotherConnectionsTeam() {
        fx.call(0, barrier(2, 99)).fails(UromStatus.NOT_FOUND, Reason.TEAM_UNKNOWN);
        WorkerCommand other =
                new WorkerCommand(2, fx.worker(0).pluginId(), 77, barrier(3, 1).encode());
        fx.worker(0).send(other);
        fx.await(0, other).fails(UromStatus.NOT_FOUND, Reason.TEAM_UNKNOWN);
    }

    @Test
    void tooManyPostedCollectives() {
        List<WorkerCommand> sent = new ArrayList<>();
        for (int i = 0; i < 1024; i++) {
            sent.add(fx.send(0, barrier(i, 1)));
        }
        fx.call(0, barrier(5000, 1)).fails(UromStatus.FULL, Reason.TOO_MANY);
        fx.call(0, new CollCommand.TeamDestroy(6000, 1)).isOk();
        for (WorkerCommand c : sent) {
            fx.await(0, c).fails(UromStatus.SHUTDOWN, Reason.TEAM_DESTROYED);
        }
    }
}
