// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static dev.urom.plugins.coll.NativeCollFixture.address;
import static dev.urom.plugins.coll.NativeCollFixture.cookie;
import static dev.urom.plugins.coll.NativeCollFixture.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import dev.urom.plugins.coll.NativeCollFixture.Answer;
import dev.urom.plugins.coll.NativeCollFixture.Knobs;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.spi.WorkerCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** BCAST, REDUCE, ALLGATHER and ALLTOALL of worker_coll.so, both algorithms, in place, several teams and posts at once. */
class NativeCollCollectivesTest {
    static final Knobs KNOBS = NativeCollAllreduceTest.KNOBS;
    /** Per-rank element counts (INT32, 4 bytes): small (≤ 1024 bytes) and large, around chunk boundaries (1024 elements). */
    static final long[] COUNTS = {0, 1, 13, 256, 257, 1023, 1024, 1025, 3001};

    private final Random random = new Random(7);
    private NativeCollFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static Memory filled(byte[] content, int size) {
        Memory m = NativeCollFixture.memory(size);
        if (content != null) {
            m.write(0, content, 0, content.length);
        }
        return m;
    }

    @Test
    void bcastFromEveryRoot() {
        fx = NativeCollFixture.open(5);
        for (int p = 1; p <= 5; p++) {
            fx.team(p, p, KNOBS);
            for (int root = 0; root < p; root++) {
                for (long count : COUNTS) {
                    int n = (int) count * 4;
                    byte[] data = bytes(n);
                    List<Memory> dst = new ArrayList<>();
                    for (int r = 0; r < p; r++) {
                        dst.add(filled(r == root ? data : null, n));
                    }
                    int team = p;
                    int theRoot = root;
                    List<Answer> answers = fx.all(
                            NativeCollFixture.range(p),
                            r -> post(
                                    team,
                                    CollType.BCAST,
                                    DataType.INT32,
                                    ReduceOp.SUM,
                                    theRoot,
                                    0,
                                    count,
                                    0,
                                    address(dst.get(r))));
                    for (int r = 0; r < p; r++) {
                        answers.get(r).isOk();
                        assertThat(dst.get(r).getByteArray(0, n))
                                .as("p %d root %d count %d rank %d", p, root, count, r)
                                .isEqualTo(data);
                    }
                }
            }
        }
    }

    @Test
    void reduceToEveryRootInTheSpecsOrder() {
        fx = NativeCollFixture.open(5);
        for (int p = 1; p <= 5; p++) {
            fx.team(p, p, KNOBS);
            for (int root = 0; root < p; root += 2) {
                for (long count : new long[] {0, 1, 127, 128, 129, 1500}) {
                    int n = (int) count * 8;
                    byte[][] src = new byte[p][];
                    List<Memory> srcs = new ArrayList<>();
                    List<Memory> dsts = new ArrayList<>();
                    for (int r = 0; r < p; r++) {
                        src[r] = new NativeCollAllreduceTest().values(DataType.FLOAT64, count);
                        srcs.add(filled(src[r], n));
                        dsts.add(filled(null, n));
                    }
                    int team = p;
                    int theRoot = root;
                    List<Answer> answers = fx.all(
                            NativeCollFixture.range(p),
                            r -> post(
                                    team,
                                    CollType.REDUCE,
                                    DataType.FLOAT64,
                                    ReduceOp.SUM,
                                    theRoot,
                                    0,
                                    count,
                                    address(srcs.get(r)),
                                    address(dsts.get(r))));
                    byte[] expected = Reference.reduce(DataType.FLOAT64, ReduceOp.SUM, src, root, KNOBS.smallBytes());
                    for (int r = 0; r < p; r++) {
                        answers.get(r).isOk();
                        byte[] got = dsts.get(r).getByteArray(0, n);
                        if (r == root) {
                            assertThat(got)
                                    .as("p %d root %d count %d", p, root, count)
                                    .isEqualTo(expected);
                        } else {
                            assertThat(got).as("a non-root's destination").isEqualTo(new byte[n]);
                        }
                    }
                }
            }
        }
    }

    @Test
    void reduceInPlaceAtTheRoot() {
        fx = NativeCollFixture.open(3);
        fx.team(1, 3, KNOBS);
        for (long count : new long[] {5, 2000}) {
            int n = (int) count * 4;
            byte[][] src = new byte[3][];
            List<Memory> srcs = new ArrayList<>();
            List<Memory> dsts = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                src[r] = bytes(n);
                srcs.add(filled(r == 1 ? null : src[r], n));
                dsts.add(filled(r == 1 ? src[r] : null, n));
            }
            List<Answer> answers = fx.all(
                    NativeCollFixture.range(3),
                    r -> post(
                            1,
                            CollType.REDUCE,
                            DataType.INT32,
                            ReduceOp.SUM,
                            1,
                            r == 1 ? CollLayout.IN_PLACE : 0,
                            count,
                            address(srcs.get(r)),
                            address(dsts.get(r))));
            answers.forEach(Answer::isOk);
            assertThat(dsts.get(1).getByteArray(0, n))
                    .isEqualTo(Reference.reduce(DataType.INT32, ReduceOp.SUM, src, 1, KNOBS.smallBytes()));
        }
    }

    private void allgather(int team, int[] workers, long count, boolean inPlace) {
        int p = workers.length;
        int n = (int) count * 4;
        byte[][] src = new byte[p][];
        for (int r = 0; r < p; r++) {
            src[r] = bytes(n);
        }
        byte[] expected = Reference.allgather(src);
        List<Memory> srcs = new ArrayList<>();
        List<Memory> dsts = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            byte[] mine = src[r];
            srcs.add(filled(inPlace ? null : mine, n));
            Memory d = filled(null, n * p);
            if (inPlace) {
                d.write((long) r * n, mine, 0, n);
            }
            dsts.add(d);
        }
        List<Answer> answers = fx.all(
                workers,
                r -> post(
                        team,
                        CollType.ALLGATHER,
                        DataType.INT32,
                        ReduceOp.SUM,
                        0,
                        inPlace ? CollLayout.IN_PLACE : 0,
                        count,
                        address(srcs.get(r)),
                        address(dsts.get(r))));
        for (int r = 0; r < p; r++) {
            answers.get(r).isOk();
            assertThat(dsts.get(r).getByteArray(0, n * p))
                    .as("allgather p %d count %d rank %d", p, count, r)
                    .isEqualTo(expected);
        }
    }

    private void alltoall(int team, int[] workers, long count, boolean inPlace) {
        int p = workers.length;
        int n = (int) count * 4;
        byte[][] src = new byte[p][];
        List<Memory> srcs = new ArrayList<>();
        List<Memory> dsts = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            src[r] = bytes(n * p);
            srcs.add(filled(inPlace ? null : src[r], n * p));
            dsts.add(filled(inPlace ? src[r] : null, n * p));
        }
        List<Answer> answers = fx.all(
                workers,
                r -> post(
                        team,
                        CollType.ALLTOALL,
                        DataType.INT32,
                        ReduceOp.SUM,
                        0,
                        inPlace ? CollLayout.IN_PLACE : 0,
                        count,
                        address(srcs.get(r)),
                        address(dsts.get(r))));
        for (int r = 0; r < p; r++) {
            answers.get(r).isOk();
            assertThat(dsts.get(r).getByteArray(0, n * p))
                    .as("alltoall p %d count %d rank %d", p, count, r)
                    .isEqualTo(Reference.alltoall(src, r));
        }
    }

    @Test
    void allgatherAndAlltoallOnTeamsOfOneToFive() {
        fx = NativeCollFixture.open(5);
        for (int p = 1; p <= 5; p++) {
            fx.team(p, p, KNOBS);
            for (long count : COUNTS) {
                allgather(p, NativeCollFixture.range(p), count, false);
                alltoall(p, NativeCollFixture.range(p), count, false);
            }
        }
    }

    @Test
    void allgatherAndAlltoallInPlace() {
        fx = NativeCollFixture.open(4);
        fx.team(1, 4, KNOBS);
        for (long count : new long[] {1, 200, 2500}) {
            allgather(1, NativeCollFixture.range(4), count, true);
            alltoall(1, NativeCollFixture.range(4), count, true);
        }
    }

    /** Team 1: domain ids 0, 2, 4 (a range with stride 2); team 2: the list 3, 1, 4; both at once. */
    @Test
    void twoTeamsAtOnce() {
        fx = NativeCollFixture.open(5);
        int[] strided = {0, 2, 4};
        int[] listed = {3, 1, 4};
        List<Answer> created = fx.all(strided, r -> KNOBS.range(cookie(), 1, 3, r, 0, 2));
        created.forEach(Answer::isOk);
        fx.team(2, listed, KNOBS);
        int n = 3000 * 4;
        byte[] data = bytes(n);
        List<Memory> dst1 = new ArrayList<>();
        List<Memory> dst2 = new ArrayList<>();
        List<WorkerCommand> sent1 = new ArrayList<>();
        List<WorkerCommand> sent2 = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            dst1.add(filled(i == 0 ? data : null, n));
            dst2.add(filled(i == 2 ? data : null, n));
        }
        for (int i = 0; i < 3; i++) {
            sent1.add(fx.send(
                    strided[i], post(1, CollType.BCAST, DataType.INT32, ReduceOp.SUM, 3000, 0, address(dst1.get(i)))));
            sent2.add(fx.send(
                    listed[i],
                    post(2, CollType.BCAST, DataType.INT32, ReduceOp.SUM, 2, 0, 3000, 0, address(dst2.get(i)))));
        }
        for (int i = 0; i < 3; i++) {
            fx.await(strided[i], sent1.get(i)).isOk();
            fx.await(listed[i], sent2.get(i)).isOk();
            assertThat(dst1.get(i).getByteArray(0, n)).isEqualTo(data);
            assertThat(dst2.get(i).getByteArray(0, n)).isEqualTo(data);
        }
        allgather(2, listed, 2000, false);
        alltoall(1, strided, 1500, false);
    }

    /** Every rank posts ten collectives before any completes: they run in order, with sequences 0..9. */
    @Test
    void severalPostedBeforeAnyCompletes() {
        fx = NativeCollFixture.open(3);
        fx.team(1, 3, KNOBS);
        int posts = 10;
        long count = 700;
        int n = (int) count * 4;
        List<List<Memory>> dsts = new ArrayList<>();
        List<List<WorkerCommand>> sent = new ArrayList<>();
        byte[][] data = new byte[posts][];
        for (int k = 0; k < posts; k++) {
            data[k] = bytes(n);
        }
        for (int r = 0; r < 3; r++) {
            List<Memory> mine = new ArrayList<>();
            List<WorkerCommand> commands = new ArrayList<>();
            for (int k = 0; k < posts; k++) {
                Memory d = filled(r == k % 3 ? data[k] : null, n);
                mine.add(d);
                commands.add(fx.send(
                        r, post(1, CollType.BCAST, DataType.INT32, ReduceOp.SUM, k % 3, 0, count, 0, address(d))));
            }
            dsts.add(mine);
            sent.add(commands);
        }
        for (int r = 0; r < 3; r++) {
            for (int k = 0; k < posts; k++) {
                Answer a = fx.await(r, sent.get(r).get(k)).isOk();
                assertThat(a.sequence()).isEqualTo(k);
                assertThat(dsts.get(r).get(k).getByteArray(0, n)).isEqualTo(data[k]);
            }
        }
    }
}
