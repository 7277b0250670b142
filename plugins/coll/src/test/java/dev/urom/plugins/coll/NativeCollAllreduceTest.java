// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static dev.urom.plugins.coll.NativeCollFixture.address;
import static dev.urom.plugins.coll.NativeCollFixture.barrier;
import static dev.urom.plugins.coll.NativeCollFixture.cookie;
import static dev.urom.plugins.coll.NativeCollFixture.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import dev.urom.plugins.coll.NativeCollFixture.Answer;
import dev.urom.plugins.coll.NativeCollFixture.Knobs;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.CommandType;
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
    static final Knobs KNOBS = new Knobs(4096, 1024, 20000);

    private final Random random = new Random(42);
    private NativeCollFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    byte[] values(DataType dtype, long count) {
        int size = dtype.size();
        ByteBuffer b = ByteBuffer.allocate((int) (count * size)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            switch (dtype) {
                case FLOAT64 -> b.putDouble(random.nextGaussian() * Math.pow(10, random.nextInt(12) - 4));
                case FLOAT32 -> b.putFloat((float) (random.nextGaussian() * 1000));
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
    void allreduce(int teamId, int p, DataType dtype, ReduceOp op, long count, boolean inPlace, long smallBytes) {
        int n = (int) (count * dtype.size());
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
        List<Answer> answers = fx.all(
                NativeCollFixture.range(p),
                r -> post(
                        teamId,
                        CollType.ALLREDUCE,
                        dtype,
                        op,
                        0,
                        inPlace ? CollLayout.IN_PLACE : 0,
                        count,
                        address(srcs.get(r)),
                        address(dsts.get(r))));
        byte[][] expected = Reference.allreduce(dtype, op, src, smallBytes);
        for (int r = 0; r < p; r++) {
            answers.get(r).isOk();
            assertThat(answers.get(r).type()).isEqualTo(CommandType.POST.code());
            assertThat(dsts.get(r).getByteArray(0, n))
                    .as("rank %d of %d, dtype %s op %s count %d", r, p, dtype, op, count)
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
                allreduce(p, p, DataType.FLOAT64, ReduceOp.SUM, count, false, KNOBS.smallBytes());
            }
        }
    }

    @Test
    void otherDatatypesAndOperations() {
        fx = NativeCollFixture.open(3);
        fx.team(1, 3, KNOBS);
        DataType[] dtypes = {
            DataType.INT32,
            DataType.INT32,
            DataType.INT64,
            DataType.UINT32,
            DataType.UINT8,
            DataType.INT8,
            DataType.FLOAT32,
            DataType.UINT16
        };
        ReduceOp[] ops = {
            ReduceOp.SUM,
            ReduceOp.PROD,
            ReduceOp.MIN,
            ReduceOp.MAX,
            ReduceOp.BXOR,
            ReduceOp.BAND,
            ReduceOp.MAX,
            ReduceOp.SUM
        };
        for (int i = 0; i < dtypes.length; i++) {
            for (long count : new long[] {3, 5001}) {
                allreduce(1, 3, dtypes[i], ops[i], count, false, KNOBS.smallBytes());
            }
        }
    }

    @Test
    void inPlace() {
        fx = NativeCollFixture.open(4);
        fx.team(1, 3, KNOBS);
        for (long count : new long[] {1, 100, 4099}) {
            allreduce(1, 3, DataType.FLOAT64, ReduceOp.SUM, count, true, KNOBS.smallBytes());
        }
    }

    @Test
    void aFewMebibytesWithTheDefaultKnobs() {
        fx = NativeCollFixture.open(5);
        for (int p : new int[] {2, 3, 5}) {
            fx.team(p, p, Knobs.DEFAULT);
            allreduce(p, p, DataType.FLOAT64, ReduceOp.SUM, (3L << 20) / 8 + 3, p == 5, CollLayout.SMALL_DEFAULT);
        }
    }

    @Test
    void barrierCompletesOnEveryRank() {
        fx = NativeCollFixture.open(4);
        fx.team(1, 4, KNOBS);
        List<Answer> answers = fx.all(NativeCollFixture.range(4), r -> barrier(cookie(), 1));
        for (Answer a : answers) {
            a.isOk();
            assertThat(a.sequence()).isZero();
        }
    }

    /** A rank whose peers have not posted does not pass the barrier. */
    @Test
    void barrierWaitsForEveryRank() {
        fx = NativeCollFixture.open(3);
        fx.team(1, 3, KNOBS);
        var first = fx.send(0, barrier(1, 1));
        var second = fx.send(1, barrier(2, 1));
        fx.worker(0).assertNoNotificationAfter(200);
        var third = fx.send(2, barrier(3, 1));
        fx.await(0, first).isOk();
        fx.await(1, second).isOk();
        fx.await(2, third).isOk();
    }
}
