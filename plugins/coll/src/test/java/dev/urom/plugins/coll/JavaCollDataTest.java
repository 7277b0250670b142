// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.spi.WorkerCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every collective's data against {@link Reference} (FLOAT64 SUM bit for bit in the spec's
 * order): team sizes 1 to 5, counts 0, 1, odd, chunk
 * boundaries plus and minus one, and a few MiB; both algorithms of each (small_bytes at its
 * maximum, or 1: 0 would be the default), with and without IN_PLACE.
 */
class JavaCollDataTest {
    /** chunk_bytes of the teams: 4 KiB, 512 doubles. */
    private static final int CHUNK = 4096;

    private static final int TEAM = 11;

    private CollWorkers workers;

    @AfterEach
    void close() {
        if (workers != null) {
            workers.close();
        }
    }

    static Stream<Arguments> shapes() {
        List<Arguments> all = new ArrayList<>();
        for (int p = 1; p <= 5; p++) {
            for (int count : new int[] {0, 1, 7, 511, 512, 513, 3 * 512 + 1, 20_001}) {
                for (boolean small : new boolean[] {true, false}) {
                    all.add(Arguments.of(p, count, small));
                }
            }
        }
        all.add(Arguments.of(2, 3 << 17, false));
        all.add(Arguments.of(3, (1 << 18) + 3, false));
        all.add(Arguments.of(3, 1 << 17, true));
        return all.stream();
    }

    /** small_bytes of the teams: its maximum, or 1 (0 would be the default). */
    private static long smallBytes(boolean small) {
        return small ? CollLayout.SMALL_MAX : 1;
    }

    private void team(int p, boolean small) {
        workers = new CollWorkers(p);
        workers.createTeam(TEAM, p, CHUNK, smallBytes(small), 0);
    }

    private static double[][] vectors(int p, int count, long seed) {
        Random random = new Random(seed);
        double[][] x = new double[p][count];
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < count; i++) {
                x[r][i] = random.nextGaussian() * Math.pow(2, random.nextInt(40) - 20);
            }
        }
        return x;
    }

    private Memory doubles(double[] values) {
        Memory m = workers.buffer(8L * values.length);
        m.write(0, values, 0, values.length);
        return m;
    }

    /** Posts one collective on every rank (the post of rank r from {@code posts}) and answers the answers, all SUCCESS. */
    private List<CollNotification.PostDone> runAll(int p, IntFunction<CollCommand.Post> posts) {
        List<WorkerCommand> sent = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            sent.add(workers.send(r, posts.apply(r)));
        }
        List<CollNotification.PostDone> answers = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            CollNotification.PostDone done = (CollNotification.PostDone) workers.await(r, sent.get(r));
            assertThat(done.header().reasonValue()).as("rank %d: %s", r, done).isEqualTo(Reason.NONE);
            answers.add(done);
        }
        return answers;
    }

    private CollCommand.Post post(
            CollType type, DataType dtype, ReduceOp op, int root, boolean inPlace, long count, long src, long dst) {
        return CollCommand.Post.builder(workers.cookie(), TEAM)
                .coll(type.code())
                .dtype(dtype.code())
                .op(type.reduces() ? op.code() : 0)
                .root(type.rooted() ? root : 0)
                .flags(inPlace ? CollLayout.IN_PLACE : 0)
                .count(count)
                .src(src)
                .dst(dst)
                .build();
    }

    private static void assertBits(Memory actual, double[] expected, String what) {
        double[] got = actual.getDoubleArray(0, expected.length);
        for (int i = 0; i < expected.length; i++) {
            if (Double.doubleToRawLongBits(got[i]) != Double.doubleToRawLongBits(expected[i])) {
                throw new AssertionError(what + ": element " + i + " of " + expected.length + " is " + got[i]
                        + ", expected " + expected[i]);
            }
        }
    }

    @ParameterizedTest(name = "p={0} count={1} small={2}")
    @MethodSource("shapes")
    void allreduceFloat64SumIsTheSpecsOrderBitForBit(int p, int count, boolean small) {
        team(p, small);
        double[][] x = vectors(p, count, 31L * p + count);
        byte[][] expected =
                Reference.allreduce(DataType.FLOAT64, ReduceOp.SUM, Reference.float64(x), smallBytes(small));
        for (boolean inPlace : new boolean[] {false, true}) {
            Memory[] src = new Memory[p];
            Memory[] dst = new Memory[p];
            for (int r = 0; r < p; r++) {
                src[r] = doubles(x[r]);
                dst[r] = inPlace ? src[r] : workers.buffer(8L * count);
            }
            runAll(
                    p,
                    r -> post(
                            CollType.ALLREDUCE,
                            DataType.FLOAT64,
                            ReduceOp.SUM,
                            0,
                            inPlace,
                            count,
                            CollWorkers.address(src[r]),
                            CollWorkers.address(dst[r])));
            for (int r = 0; r < p; r++) {
                assertBits(dst[r], Reference.doubles(expected[r]), "rank " + r + (inPlace ? " in place" : ""));
            }
        }
    }

    @ParameterizedTest(name = "p={0} count={1} small={2}")
    @MethodSource("shapes")
    void reduceToEveryRootIsTheSpecsOrder(int p, int count, boolean small) {
        team(p, small);
        double[][] x = vectors(p, count, 17L * p + count);
        for (int root = 0; root < p; root++) {
            int theRoot = root;
            double[] expected = Reference.doubles(
                    Reference.reduce(DataType.FLOAT64, ReduceOp.SUM, Reference.float64(x), root, smallBytes(small)));
            Memory[] src = new Memory[p];
            Memory[] dst = new Memory[p];
            for (int r = 0; r < p; r++) {
                src[r] = doubles(x[r]);
                dst[r] = workers.buffer(8L * count);
            }
            runAll(
                    p,
                    r -> post(
                            CollType.REDUCE,
                            DataType.FLOAT64,
                            ReduceOp.SUM,
                            theRoot,
                            false,
                            count,
                            CollWorkers.address(src[r]),
                            CollWorkers.address(dst[r])));
            assertBits(dst[root], expected, "root " + root);
            for (int r = 0; r < p; r++) {
                if (r != root) {
                    assertBits(dst[r], new double[count], "non-root " + r + " untouched");
                }
            }
        }
    }

    @ParameterizedTest(name = "p={0} count={1} small={2}")
    @MethodSource("shapes")
    void bcastFromEveryRootReachesEveryRank(int p, int count, boolean small) {
        team(p, small);
        double[][] x = vectors(p, count, 5L * p + count);
        for (int root = 0; root < p; root++) {
            int theRoot = root;
            Memory[] dst = new Memory[p];
            for (int r = 0; r < p; r++) {
                dst[r] = doubles(x[r]);
            }
            runAll(
                    p,
                    r -> post(
                            CollType.BCAST,
                            DataType.FLOAT64,
                            ReduceOp.SUM,
                            theRoot,
                            false,
                            count,
                            0,
                            CollWorkers.address(dst[r])));
            for (int r = 0; r < p; r++) {
                assertBits(dst[r], x[root], "rank " + r + " from root " + root);
            }
        }
    }

    @ParameterizedTest(name = "p={0} count={1} small={2}")
    @MethodSource("shapes")
    void allgatherPutsBlockIFromRankI(int p, int count, boolean small) {
        team(p, small);
        double[][] x = vectors(p, count, 3L * p + count);
        double[] expected = Reference.doubles(Reference.allgather(Reference.float64(x)));
        for (boolean inPlace : new boolean[] {false, true}) {
            Memory[] src = new Memory[p];
            Memory[] dst = new Memory[p];
            for (int r = 0; r < p; r++) {
                src[r] = doubles(x[r]);
                dst[r] = workers.buffer(8L * p * count);
                if (inPlace) {
                    dst[r].write(8L * r * count, x[r], 0, count);
                }
            }
            runAll(
                    p,
                    r -> post(
                            CollType.ALLGATHER,
                            DataType.FLOAT64,
                            ReduceOp.SUM,
                            0,
                            inPlace,
                            count,
                            inPlace ? 0 : CollWorkers.address(src[r]),
                            CollWorkers.address(dst[r])));
            for (int r = 0; r < p; r++) {
                assertBits(dst[r], expected, "rank " + r + (inPlace ? " in place" : ""));
            }
        }
    }

    @ParameterizedTest(name = "p={0} count={1} small={2}")
    @MethodSource("shapes")
    void alltoallSendsBlockJToRankJ(int p, int count, boolean small) {
        team(p, small);
        double[][] x = vectors(p, p * count, 11L * p + count);
        for (boolean inPlace : new boolean[] {false, true}) {
            Memory[] src = new Memory[p];
            Memory[] dst = new Memory[p];
            for (int r = 0; r < p; r++) {
                src[r] = doubles(x[r]);
                dst[r] = inPlace ? src[r] : workers.buffer(8L * p * count);
            }
            runAll(
                    p,
                    r -> post(
                            CollType.ALLTOALL,
                            DataType.FLOAT64,
                            ReduceOp.SUM,
                            0,
                            inPlace,
                            count,
                            CollWorkers.address(src[r]),
                            CollWorkers.address(dst[r])));
            for (int r = 0; r < p; r++) {
                assertBits(
                        dst[r],
                        Reference.doubles(Reference.alltoall(Reference.float64(x), r)),
                        "rank " + r + (inPlace ? " in place" : ""));
            }
        }
    }
}
