// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Memory;
import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.spi.WorkerCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Teams that mix C ranks ({@code worker_coll.so}) and Java ranks ({@link CollPlugin}) in one
 * domain: the same HELLOs, agreement and chunks, and FLOAT64 SUM allreduce results bit for bit
 * in the specification's order, whichever side each rank runs. Runs once the C worker side is
 * built (it is assumed away before).
 */
class JavaCollMixedIT {
    private static final int TEAM = 33;
    private CollWorkers workers;

    @AfterEach
    void close() {
        if (workers != null) {
            workers.close();
        }
    }

    static Stream<Arguments> teams() {
        List<Arguments> all = new ArrayList<>();
        boolean[][] patterns = {{true, false}, {false, true}, {false, true, false}, {true, false, true, false, true}};
        for (boolean[] pattern : patterns) {
            for (int count : new int[] {0, 1, 513, 20_001, 3 << 16}) {
                for (boolean small : new boolean[] {true, false}) {
                    all.add(Arguments.of(pattern, count, small));
                }
            }
        }
        return all.stream();
    }

    private static Path nativePlugin() {
        String so = System.getProperty("urom.coll.so", "");
        assumeTrue(!so.isEmpty() && Files.isRegularFile(Path.of(so)), "worker_coll.so is not built yet");
        return Path.of(so);
    }

    @ParameterizedTest(name = "{0} count={1} small={2}")
    @MethodSource("teams")
    void mixedRanksAllreduceToTheSameBits(boolean[] pattern, int count, boolean small) {
        workers = new CollWorkers(nativePlugin(), pattern);
        int p = pattern.length;
        workers.createTeam(TEAM, p, 4096, small ? CollLayout.SMALL_MAX : 1, 0);
        Random random = new Random(count * 7L + p);
        double[][] x = new double[p][count];
        Memory[] src = new Memory[p];
        Memory[] dst = new Memory[p];
        for (int r = 0; r < p; r++) {
            src[r] = workers.buffer(8L * count);
            dst[r] = workers.buffer(8L * count);
            for (int i = 0; i < count; i++) {
                x[r][i] = random.nextGaussian() * Math.pow(2, random.nextInt(40) - 20);
            }
            src[r].write(0, x[r], 0, count);
        }
        List<WorkerCommand> sent = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            sent.add(workers.send(
                    r,
                    CollCommand.Post.builder(workers.cookie(), TEAM)
                            .coll(CollType.ALLREDUCE.code())
                            .dtype(DataType.FLOAT64.code())
                            .op(ReduceOp.SUM.code())
                            .count(count)
                            .src(CollWorkers.address(src[r]))
                            .dst(CollWorkers.address(dst[r]))
                            .build()));
        }
        byte[][] expectedBytes = Reference.allreduce(
                DataType.FLOAT64, ReduceOp.SUM, Reference.float64(x), small ? CollLayout.SMALL_MAX : 1);
        for (int r = 0; r < p; r++) {
            CollNotification.PostDone done = (CollNotification.PostDone) workers.await(r, sent.get(r));
            assertThat(done.header().reasonValue())
                    .as("rank %d (%s)", r, pattern[r] ? "C" : "Java")
                    .isEqualTo(Reason.NONE);
            double[] expected = Reference.doubles(expectedBytes[r]);
            double[] got = dst[r].getDoubleArray(0, count);
            for (int i = 0; i < count; i++) {
                if (Double.doubleToRawLongBits(got[i]) != Double.doubleToRawLongBits(expected[i])) {
                    throw new AssertionError("rank " + r + " (" + (pattern[r] ? "C" : "Java") + "): element " + i
                            + " is " + got[i] + ", expected " + expected[i]);
                }
            }
        }
    }

    static Stream<Arguments> shapes() {
        List<Arguments> all = new ArrayList<>();
        boolean[][] patterns = {{true, false}, {false, true, false}, {true, false, true, false, true}};
        for (boolean[] pattern : patterns) {
            for (int count : new int[] {0, 513, 20_001}) {
                for (boolean small : new boolean[] {true, false}) {
                    all.add(Arguments.of(pattern, count, small));
                }
            }
        }
        return all.stream();
    }

    private double[][] vectors(int p, int count) {
        Random random = new Random(count * 13L + p);
        double[][] x = new double[p][count];
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < count; i++) {
                x[r][i] = random.nextGaussian() * Math.pow(2, random.nextInt(40) - 20);
            }
        }
        return x;
    }

    private Memory doubles(double[] values, int length) {
        Memory m = workers.buffer(8L * length);
        m.write(0, values, 0, values.length);
        return m;
    }

    private void run(int p, boolean[] pattern, java.util.function.IntFunction<CollCommand.Post> posts) {
        List<WorkerCommand> sent = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            sent.add(workers.send(r, posts.apply(r)));
        }
        for (int r = 0; r < p; r++) {
            assertThat(workers.await(r, sent.get(r)).header().reasonValue())
                    .as("rank %d (%s)", r, pattern[r] ? "C" : "Java")
                    .isEqualTo(Reason.NONE);
        }
    }

    private static void assertBits(Memory actual, double[] expected, String what) {
        double[] got = actual.getDoubleArray(0, expected.length);
        for (int i = 0; i < expected.length; i++) {
            if (Double.doubleToRawLongBits(got[i]) != Double.doubleToRawLongBits(expected[i])) {
                throw new AssertionError(what + ": element " + i + " is " + got[i] + ", expected " + expected[i]);
            }
        }
    }

    @ParameterizedTest(name = "{0} count={1} small={2}")
    @MethodSource("shapes")
    void mixedRanksReduceBroadcastGatherAndExchangeAlike(boolean[] pattern, int count, boolean small) {
        workers = new CollWorkers(nativePlugin(), pattern);
        int p = pattern.length;
        workers.createTeam(TEAM, p, 4096, small ? CollLayout.SMALL_MAX : 1, 0);
        double[][] x = vectors(p, count);
        int root = p - 1;
        Memory[] src = new Memory[p];
        Memory[] dst = new Memory[p];
        for (int r = 0; r < p; r++) {
            src[r] = doubles(x[r], count);
            dst[r] = workers.buffer(8L * count);
        }
        run(
                p,
                pattern,
                r -> CollCommand.Post.builder(workers.cookie(), TEAM)
                        .coll(CollType.REDUCE.code())
                        .dtype(DataType.FLOAT64.code())
                        .op(ReduceOp.SUM.code())
                        .root(root)
                        .count(count)
                        .src(CollWorkers.address(src[r]))
                        .dst(CollWorkers.address(dst[r]))
                        .build());
        assertBits(
                dst[root],
                Reference.doubles(Reference.reduce(
                        DataType.FLOAT64, ReduceOp.SUM, Reference.float64(x), root, small ? CollLayout.SMALL_MAX : 1)),
                "REDUCE at the root");

        for (int r = 0; r < p; r++) {
            dst[r] = doubles(r == 1 ? x[1] : new double[count], count);
        }
        run(
                p,
                pattern,
                r -> CollCommand.Post.builder(workers.cookie(), TEAM)
                        .coll(CollType.BCAST.code())
                        .dtype(DataType.FLOAT64.code())
                        .root(1)
                        .count(count)
                        .dst(CollWorkers.address(dst[r]))
                        .build());
        for (int r = 0; r < p; r++) {
            assertBits(dst[r], x[1], "BCAST from rank 1 at rank " + r);
        }

        double[] gathered = Reference.doubles(Reference.allgather(Reference.float64(x)));
        for (int r = 0; r < p; r++) {
            dst[r] = workers.buffer(8L * p * count);
        }
        run(
                p,
                pattern,
                r -> CollCommand.Post.builder(workers.cookie(), TEAM)
                        .coll(CollType.ALLGATHER.code())
                        .dtype(DataType.FLOAT64.code())
                        .count(count)
                        .src(CollWorkers.address(src[r]))
                        .dst(CollWorkers.address(dst[r]))
                        .build());
        for (int r = 0; r < p; r++) {
            assertBits(dst[r], gathered, "ALLGATHER at rank " + r);
        }

        Memory[] blocks = new Memory[p];
        for (int r = 0; r < p; r++) {
            double[] mine = new double[p * count];
            for (int j = 0; j < p * count; j++) {
                mine[j] = r * 1e6 + j;
            }
            blocks[r] = doubles(mine, p * count);
            dst[r] = workers.buffer(8L * p * count);
        }
        run(
                p,
                pattern,
                r -> CollCommand.Post.builder(workers.cookie(), TEAM)
                        .coll(CollType.ALLTOALL.code())
                        .dtype(DataType.FLOAT64.code())
                        .count(count)
                        .src(CollWorkers.address(blocks[r]))
                        .dst(CollWorkers.address(dst[r]))
                        .build());
        for (int r = 0; r < p; r++) {
            double[] expected = new double[p * count];
            for (int i = 0; i < p; i++) {
                for (int k = 0; k < count; k++) {
                    expected[i * count + k] = i * 1e6 + r * count + k;
                }
            }
            assertBits(dst[r], expected, "ALLTOALL at rank " + r);
        }
    }

    @org.junit.jupiter.api.Test
    void mixedRanksAgreeOnMismatchesAndRefusals() {
        boolean[] pattern = {false, true, false};
        workers = new CollWorkers(nativePlugin(), pattern);
        workers.createTeam(TEAM, 3, 0, 0, 0);
        Memory[] src = new Memory[3];
        Memory[] dst = new Memory[3];
        for (int r = 0; r < 3; r++) {
            src[r] = workers.buffer(8 * 16);
            dst[r] = workers.buffer(8 * 16);
        }
        List<WorkerCommand> sent = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            sent.add(workers.send(
                    r,
                    CollCommand.Post.builder(workers.cookie(), TEAM)
                            .coll(CollType.ALLREDUCE.code())
                            .dtype(DataType.FLOAT64.code())
                            .op(ReduceOp.SUM.code())
                            .count(r == 1 ? 15 : 16)
                            .src(CollWorkers.address(src[r]))
                            .dst(CollWorkers.address(dst[r]))
                            .build()));
        }
        for (int r = 0; r < 3; r++) {
            CollNotification answer = workers.await(r, sent.get(r));
            assertThat(answer.header().reasonValue()).as("rank %d", r).isEqualTo(Reason.MISMATCH);
            assertThat(answer.header().detail()).isEqualTo(5);
        }
        sent.clear();
        for (int r = 0; r < 3; r++) {
            sent.add(workers.send(
                    r,
                    CollCommand.Post.builder(workers.cookie(), TEAM)
                            .coll(CollType.ALLREDUCE.code())
                            .dtype(DataType.FLOAT64.code())
                            .op(r == 1 ? ReduceOp.BXOR.code() : ReduceOp.SUM.code())
                            .count(16)
                            .src(CollWorkers.address(src[r]))
                            .dst(CollWorkers.address(dst[r]))
                            .build()));
        }
        for (int r = 0; r < 3; r++) {
            CollNotification answer = workers.await(r, sent.get(r));
            assertThat(answer.header().reasonValue())
                    .as("rank %d", r)
                    .isEqualTo(r == 1 ? Reason.OP_NOT_FOR_DTYPE : Reason.PEER_REFUSED);
            assertThat(answer.header().detail()).isEqualTo(r == 1 ? 0 : 1);
            assertThat(((CollNotification.PostDone) answer).sequence()).isEqualTo(1);
        }
    }
}
