// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.ReduceOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** ALLREDUCE and BARRIER of worker_coll.so on teams of 1 to 5, checked against the spec's order. */
class NativeCollAllreduceTest {
    /** Small knobs so that both algorithms and many chunks run on small vectors. */
    static final Coll.Knobs KNOBS = new Coll.Knobs(4096, 1024, 20000);
    private final Random random = new Random(42);
    private NativeCollFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    byte[] values(int dtype, long count) {
        int size = Coll.dtypeSize(dtype);
        ByteBuffer b = ByteBuffer.allocate((int) (count * size)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            switch (dtype) {
                case Coll.FLOAT64 -> b.putDouble(random.nextGaussian() * Math.pow(10, random.nextInt(12) - 4));
                case Coll.FLOAT32 -> b.putFloat((float) (random.nextGaussian() * 1000));
                default -> {
                    byte[] raw = new byte[size];
                    random.nextBytes(raw);
                    b.put(raw);
                }
            }
        }
        return b.array();
    }

    /** Runs one ALLREDUCE over ranks 0..p-1 and checks every destination against the reference. */
    void allreduce(int teamId, int p, int dtype, int op, long count, boolean inPlace, int smallBytes) {
        int n = (int) (count * Coll.dtypeSize(dtype));
        byte[][] src = new byte[p][];
        List<Memory> srcs = new ArrayList<>();
        List<Memory> dsts = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            src[r] = values(dtype, count);
            Memory s = NativeCollFixture.memory(n);
            Memory d = NativeCollFixture.memory(n);
            (inPlace ? d : s).write(0, src[r], 0, n);
            srcs.add(s);
            dsts.add(d);
        }
        List<Coll.Answer> answers = fx.all(NativeCollFixture.range(p), r -> Coll.Post.of(teamId, Coll.ALLREDUCE, dtype, op, count,
                NativeCollFixture.address(srcs.get(r)), NativeCollFixture.address(dsts.get(r))).flags(inPlace ? Coll.IN_PLACE : 0)
                .encode(NativeCollFixture.cookie()));
        byte[][] expected = Reference.allreduce(DataType.ofCode(dtype), ReduceOp.ofCode(op), src, smallBytes);
        for (int r = 0; r < p; r++) {
            answers.get(r).isOk();
            assertThat(answers.get(r).type()).isEqualTo(Coll.POST);
            assertThat(dsts.get(r).getByteArray(0, n)).as("rank %d of %d, dtype %d op %d count %d", r, p, dtype, op, count)
                    .isEqualTo(expected[r]);
        }
    }

    @Test
    void float64SumIsBitForBitTheSpecsOrderOnTeamsOfOneToFive() {
        fx = NativeCollFixture.open(5);
        for (int p = 1; p <= 5; p++) {
            fx.team(p, p, KNOBS);
            // elements of 8 bytes: 128 is the last small count; chunks hold 512
            long[] counts = {0, 1, 7, 127, 128, 129, 511, 512, 513, 512L * p - 1, 512L * p, 512L * p + 1, 5000};
            for (long count : counts) {
                allreduce(p, p, Coll.FLOAT64, Coll.SUM, count, false, KNOBS.smallBytes());
            }
        }
    }

    @Test
    void otherDatatypesAndOperations() {
        fx = NativeCollFixture.open(3);
        fx.team(1, 3, KNOBS);
        int[][] pairs = {{Coll.INT32, Coll.SUM}, {Coll.INT32, Coll.PROD}, {Coll.INT64, Coll.MIN}, {Coll.UINT32, Coll.MAX},
            {Coll.UINT8, Coll.BXOR}, {Coll.INT8, Coll.BAND}, {Coll.FLOAT32, Coll.MAX}, {Coll.UINT16, Coll.SUM}};
        for (int[] pair : pairs) {
            for (long count : new long[] {3, 5001}) {
                allreduce(1, 3, pair[0], pair[1], count, false, KNOBS.smallBytes());
            }
        }
    }

    @Test
    void inPlace() {
        fx = NativeCollFixture.open(4);
        fx.team(1, 3, KNOBS);
        for (long count : new long[] {1, 100, 4099}) {
            allreduce(1, 3, Coll.FLOAT64, Coll.SUM, count, true, KNOBS.smallBytes());
        }
    }

    @Test
    void aFewMebibytesWithTheDefaultKnobs() {
        fx = NativeCollFixture.open(5);
        for (int p : new int[] {2, 3, 5}) {
            fx.team(p, p, Coll.Knobs.DEFAULT);
            allreduce(p, p, Coll.FLOAT64, Coll.SUM, (3L << 20) / 8 + 3, p == 5, 16384);
        }
    }

    @Test
    void barrierCompletesOnEveryRank() {
        fx = NativeCollFixture.open(4);
        fx.team(1, 4, KNOBS);
        List<Coll.Answer> answers = fx.all(NativeCollFixture.range(4), r -> Coll.Post.of(1, Coll.BARRIER, 0, 0, 0, 0, 0)
                .encode(NativeCollFixture.cookie()));
        for (Coll.Answer a : answers) {
            a.isOk();
            assertThat(a.sequence()).isZero();
        }
    }

    /** A rank whose peers have not posted does not pass the barrier. */
    @Test
    void barrierWaitsForEveryRank() {
        fx = NativeCollFixture.open(3);
        fx.team(1, 3, KNOBS);
        var first = fx.worker(0).send(Coll.Post.of(1, Coll.BARRIER, 0, 0, 0, 0, 0).encode(1));
        var second = fx.worker(1).send(Coll.Post.of(1, Coll.BARRIER, 0, 0, 0, 0, 0).encode(2));
        fx.worker(0).assertNoNotificationAfter(200);
        var third = fx.worker(2).send(Coll.Post.of(1, Coll.BARRIER, 0, 0, 0, 0, 0).encode(3));
        Coll.Answer.of(fx.worker(0).awaitAnswer(first)).isOk();
        Coll.Answer.of(fx.worker(1).awaitAnswer(second)).isOk();
        Coll.Answer.of(fx.worker(2).awaitAnswer(third)).isOk();
    }
}
