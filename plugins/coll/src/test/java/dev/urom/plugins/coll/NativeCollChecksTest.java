// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
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
        Pointer p = NativeLibrary.getInstance("c").getFunction("mmap").invokePointer(new Object[] {null, 4096L, prot,
            MAP_PRIVATE_ANONYMOUS, -1, 0L});
        return Pointer.nativeValue(p);
    }

    private static void assertUntouched(Memory m, int bytes) {
        byte[] expected = new byte[bytes];
        Arrays.fill(expected, PATTERN);
        assertThat(m.getByteArray(0, bytes)).as("the destination is untouched").isEqualTo(expected);
    }

    /** Rank 0 posts `bad' (given its destination), rank 1 a valid INT32 SUM allreduce of N/4 elements. */
    private void refused(LongFunction<Coll.Post> bad, UromStatus status, int reason) {
        Memory dst0 = buffer(N);
        Memory src1 = buffer(N);
        Memory dst1 = buffer(N);
        List<Coll.Answer> answers = fx.all(NativeCollFixture.range(2), r -> r == 0 ? bad.apply(NativeCollFixture.address(dst0)).encode(NativeCollFixture.cookie())
                : Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, NativeCollFixture.address(src1), NativeCollFixture.address(dst1))
                        .encode(NativeCollFixture.cookie()));
        answers.get(0).fails(status, reason);
        answers.get(1).fails(UromStatus.INVALID_VALUE, Coll.PEER_REFUSED).detail(0);
        assertUntouched(dst0, N);
        assertUntouched(dst1, N);
        assertThat(answers.get(0).sequence()).isEqualTo(answers.get(1).sequence());
        stillWorks();
    }

    /** The team goes on after a refusal: an allreduce on both ranks succeeds. */
    private void stillWorks() {
        Memory[] dst = {buffer(8), buffer(8)};
        Memory[] src = {buffer(8), buffer(8)};
        fx.all(NativeCollFixture.range(2), r -> Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT64, Coll.SUM, 1, NativeCollFixture.address(src[r]),
                NativeCollFixture.address(dst[r])).encode(NativeCollFixture.cookie())).forEach(Coll.Answer::isOk);
        assertThat(dst[0].getLong(0)).isEqualTo(2 * 0x5a5a5a5a5a5a5a5aL);
    }

    private Coll.Post allreduce(long dst) {
        return Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, NativeCollFixture.address(buffer(N)), dst);
    }

    @Test
    void unknownCollective() {
        refused(d -> new Coll.Post(1, 6, Coll.INT32, 0, 0, 0, N / 4, 0, d, 0, 0), UromStatus.INVALID_VALUE, Coll.UNKNOWN_COLL);
    }

    @Test
    void unknownDatatype() {
        refused(d -> new Coll.Post(1, Coll.ALLREDUCE, 10, 0, 0, 0, N / 4, NativeCollFixture.address(buffer(N)), d, 0, 0),
                UromStatus.INVALID_VALUE, Coll.UNKNOWN_DTYPE);
    }

    @Test
    void unknownOperation() {
        refused(d -> new Coll.Post(1, Coll.ALLREDUCE, Coll.INT32, 7, 0, 0, N / 4, NativeCollFixture.address(buffer(N)), d, 0, 0),
                UromStatus.INVALID_VALUE, Coll.UNKNOWN_OP);
    }

    @Test
    void bitwiseOperationOnFloatingPoint() {
        refused(d -> new Coll.Post(1, Coll.ALLREDUCE, Coll.FLOAT64, Coll.BAND, 0, 0, N / 8, NativeCollFixture.address(buffer(N)), d, 0, 0),
                UromStatus.INVALID_VALUE, Coll.OP_NOT_FOR_DTYPE);
    }

    @Test
    void countOverflow() {
        refused(d -> allreduce(d).count(1L << 62), UromStatus.INVALID_VALUE, Coll.COUNT_OVERFLOW);
        refused(d -> new Coll.Post(1, Coll.ALLGATHER, Coll.INT8, 0, 0, 0, Long.MAX_VALUE / 2 + 1, 8, d, 0, 0),
                UromStatus.INVALID_VALUE, Coll.COUNT_OVERFLOW);
    }

    @Test
    void rootOutsideTheTeam() {
        refused(d -> new Coll.Post(1, Coll.BCAST, Coll.INT32, 0, 2, 0, N / 4, 0, d, 0, 0), UromStatus.INVALID_VALUE, Coll.BAD_ROOT);
    }

    @Test
    void unknownFlagOrInPlaceWhereThereIsNone() {
        refused(d -> allreduce(d).flags(2), UromStatus.INVALID_VALUE, Coll.BAD_FLAGS);
        refused(d -> new Coll.Post(1, Coll.BCAST, Coll.INT32, 0, 0, Coll.IN_PLACE, N / 4, 0, d, 0, 0), UromStatus.INVALID_VALUE,
                Coll.BAD_FLAGS);
        refused(d -> new Coll.Post(1, Coll.REDUCE, Coll.INT32, 0, 1, Coll.IN_PLACE, N / 4, 0, d, 0, 0), UromStatus.INVALID_VALUE,
                Coll.BAD_FLAGS);
    }

    @Test
    void rangesTheHostDoesNotHave() {
        refused(d -> Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, 4096, d), UromStatus.NOT_PERMITTED, Coll.NOT_MAPPED);
        refused(d -> Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, -16, d), UromStatus.NOT_PERMITTED, Coll.NOT_MAPPED);
        long none = mmap(PROT_NONE);
        refused(d -> Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, none, d), UromStatus.NOT_PERMITTED, Coll.NOT_READABLE);
        long readOnly = mmap(PROT_READ);
        Memory src = buffer(N);
        Memory dst1 = buffer(N);
        List<Coll.Answer> answers = fx.all(NativeCollFixture.range(2), r -> (r == 0
                ? Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, NativeCollFixture.address(src), readOnly)
                : Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, NativeCollFixture.address(src), NativeCollFixture.address(dst1)))
                .encode(NativeCollFixture.cookie()));
        answers.get(0).fails(UromStatus.NOT_PERMITTED, Coll.NOT_WRITABLE);
        answers.get(1).fails(UromStatus.INVALID_VALUE, Coll.PEER_REFUSED);
        assertUntouched(dst1, N);
    }

    @Test
    void overlappingSourceAndDestination() {
        refused(d -> Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, d + 4, d), UromStatus.INVALID_VALUE, Coll.OVERLAP);
    }

    @Test
    void handles() {
        Memory region = buffer(4 * N);
        long base = NativeCollFixture.address(region);
        Coll.Answer rw = Coll.Answer.of(fx.worker(0).call(Coll.memMap(1, base, 4 * N, Coll.READ | Coll.WRITE))).isOk();
        Coll.Answer ro = Coll.Answer.of(fx.worker(0).call(Coll.memMap(2, base, 4 * N, Coll.READ))).isOk();
        assertThat(rw.memh()).isNotZero().isNotEqualTo(ro.memh());
        assertThat(rw.type()).isEqualTo(Coll.MEM_MAP);
        // a handle that lacks write access, a range outside its handle, an unknown handle
        refused(d -> allreduce(base).memh(0, ro.memh()), UromStatus.NOT_PERMITTED, Coll.BAD_MEMH);
        refused(d -> allreduce(base + 4 * N - 8).memh(0, rw.memh()), UromStatus.NOT_PERMITTED, Coll.BAD_MEMH);
        refused(d -> allreduce(d).memh(12345, 0), UromStatus.NOT_PERMITTED, Coll.BAD_MEMH);
        // through the handles, both ranks
        Memory src1 = buffer(N);
        Memory dst1 = buffer(N);
        fx.all(NativeCollFixture.range(2), r -> (r == 0
                ? Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, base, base + N).memh(ro.memh(), rw.memh())
                : Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, N / 4, NativeCollFixture.address(src1), NativeCollFixture.address(dst1)))
                .encode(NativeCollFixture.cookie())).forEach(Coll.Answer::isOk);
        assertThat(region.getInt(N)).isEqualTo(2 * 0x5a5a5a5a);
        Coll.Answer unmapped = Coll.Answer.of(fx.worker(0).call(Coll.memUnmap(3, rw.memh()))).isOk();
        assertThat(unmapped.type()).isEqualTo(Coll.MEM_UNMAP);
        Coll.Answer.of(fx.worker(0).call(Coll.memUnmap(4, rw.memh()))).fails(UromStatus.NOT_PERMITTED, Coll.BAD_MEMH);
        refused(d -> allreduce(base).memh(0, rw.memh()), UromStatus.NOT_PERMITTED, Coll.BAD_MEMH);
    }

    @Test
    void handlesOfRangesTheHostCannotGive() {
        Memory m = buffer(N);
        Coll.Answer.of(fx.worker(0).call(Coll.memMap(1, 4096, 4096, Coll.READ))).fails(UromStatus.NOT_PERMITTED, Coll.NOT_MAPPED);
        Coll.Answer.of(fx.worker(0).call(Coll.memMap(2, mmap(PROT_READ), 4096, Coll.WRITE))).fails(UromStatus.NOT_PERMITTED,
                Coll.NOT_WRITABLE);
        Coll.Answer.of(fx.worker(0).call(Coll.memMap(3, NativeCollFixture.address(m), 0, Coll.READ))).fails(UromStatus.INVALID_VALUE,
                Coll.BAD_COMMAND);
        Coll.Answer.of(fx.worker(0).call(Coll.memMap(4, NativeCollFixture.address(m), N, 0))).fails(UromStatus.INVALID_VALUE, Coll.BAD_FLAGS);
        Coll.Answer.of(fx.worker(0).call(Coll.memMap(5, NativeCollFixture.address(m), N, 4))).fails(UromStatus.INVALID_VALUE, Coll.BAD_FLAGS);
    }

    @Test
    void aDifferentCountIsAMismatchOnEveryRank() {
        Memory[] dst = {buffer(N), buffer(N)};
        List<Coll.Answer> answers = fx.all(NativeCollFixture.range(2), r -> Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, r == 0 ? 4 : 5,
                NativeCollFixture.address(buffer(N)), NativeCollFixture.address(dst[r])).encode(NativeCollFixture.cookie()));
        for (int r = 0; r < 2; r++) {
            answers.get(r).fails(UromStatus.INVALID_VALUE, Coll.MISMATCH).detail(5);
            assertUntouched(dst[r], N);
        }
        stillWorks();
    }

    @Test
    void aDifferentCollectiveIsAMismatchOnEveryRank() {
        Memory[] dst = {buffer(N), buffer(N)};
        List<Coll.Answer> answers = fx.all(NativeCollFixture.range(2), r -> (r == 0
                ? Coll.Post.of(1, Coll.ALLREDUCE, Coll.INT32, Coll.SUM, 4, NativeCollFixture.address(buffer(N)), NativeCollFixture.address(dst[r]))
                : Coll.Post.of(1, Coll.BCAST, Coll.INT32, 0, 4, 0, NativeCollFixture.address(dst[r]))).encode(NativeCollFixture.cookie()));
        for (int r = 0; r < 2; r++) {
            answers.get(r).fails(UromStatus.INVALID_VALUE, Coll.MISMATCH).detail(1);
            assertUntouched(dst[r], N);
        }
    }

    @Test
    void anUnknownTeamOrAnotherConnectionsTeam() {
        byte[] unknown = new Coll.Post(99, Coll.BARRIER, 0, 0, 0, 0, 0, 0, 0, 0, 0).encode(2);
        Coll.Answer.of(fx.worker(0).call(unknown)).fails(UromStatus.NOT_FOUND, Coll.TEAM_UNKNOWN);
        WorkerCommand other = new WorkerCommand(2, fx.worker(0).pluginId(), 77,
                new Coll.Post(1, Coll.BARRIER, 0, 0, 0, 0, 0, 0, 0, 0, 0).encode(3));
        fx.worker(0).send(other);
        Coll.Answer.of(fx.worker(0).awaitAnswer(other)).fails(UromStatus.NOT_FOUND, Coll.TEAM_UNKNOWN);
    }

    @Test
    void tooManyPostedCollectives() {
        List<WorkerCommand> sent = new ArrayList<>();
        for (int i = 0; i < 1024; i++) {
            sent.add(fx.worker(0).send(new Coll.Post(1, Coll.BARRIER, 0, 0, 0, 0, 0, 0, 0, 0, 0).encode(i)));
        }
        Coll.Answer.of(fx.worker(0).call(new Coll.Post(1, Coll.BARRIER, 0, 0, 0, 0, 0, 0, 0, 0, 0).encode(5000)))
                .fails(UromStatus.FULL, Coll.TOO_MANY);
        Coll.Answer.of(fx.worker(0).call(Coll.teamDestroy(6000, 1))).isOk();
        for (WorkerCommand c : sent) {
            Coll.Answer.of(fx.worker(0).awaitAnswer(c)).fails(UromStatus.SHUTDOWN, Coll.TEAM_DESTROYED);
        }
    }
}
