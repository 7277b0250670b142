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
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A first latency figure: 2-rank 1 MiB FLOAT64 SUM allreduce with the default knobs (the ring),
 * on registered ranges (the fast path: no reading of the host's mappings per POST), both ranks progressed in turn by this thread (no back-off), median of many rounds, printed.
 * Asserts only the result, so it cannot fail on a slow machine. With {@code worker_coll.so} built,
 * the same for two C ranks, measured the same way in the same JVM.
 */
class JavaCollLatencyTest {
    @Test
    void twoRankOneMebibyteAllreduce() {
        measure("Java (warming up)", new CollWorkers(2));
        measure("Java", new CollWorkers(2));
        String so = System.getProperty("urom.coll.so", "");
        if (!so.isEmpty() && java.nio.file.Files.isRegularFile(java.nio.file.Path.of(so))) {
            measure("C", new CollWorkers(java.nio.file.Path.of(so), true, true));
        }
    }

    private static void measure(String side, CollWorkers opened) {
        int count = 1 << 17;
        int rounds = 300;
        try (CollWorkers workers = opened) {
            workers.createTeam(1, 2, 0, 0, 0);
            Memory[] src = new Memory[2];
            Memory[] dst = new Memory[2];
            for (int r = 0; r < 2; r++) {
                src[r] = workers.buffer(8L * count);
                dst[r] = workers.buffer(8L * count);
                for (int i = 0; i < count; i++) {
                    src[r].setDouble(8L * i, r + i);
                }
            }
            long[][] memh = new long[2][2];
            for (int r = 0; r < 2; r++) {
                memh[r][0] = ((CollNotification.MemMapDone) workers.call(
                                r,
                                new CollCommand.MemMap(
                                        workers.cookie(),
                                        CollWorkers.address(src[r]),
                                        8L * count,
                                        CollLayout.ACCESS_READ)))
                        .memh();
                memh[r][1] = ((CollNotification.MemMapDone) workers.call(
                                r,
                                new CollCommand.MemMap(
                                        workers.cookie(),
                                        CollWorkers.address(dst[r]),
                                        8L * count,
                                        CollLayout.ACCESS_WRITE)))
                        .memh();
            }
            long[] micros = new long[rounds];
            for (int k = 0; k < rounds; k++) {
                long start = System.nanoTime();
                WorkerCommand[] sent = new WorkerCommand[2];
                for (int r = 0; r < 2; r++) {
                    sent[r] = workers.send(
                            r,
                            CollCommand.Post.builder(workers.cookie(), 1)
                                    .coll(CollType.ALLREDUCE.code())
                                    .dtype(DataType.FLOAT64.code())
                                    .op(ReduceOp.SUM.code())
                                    .count(count)
                                    .src(CollWorkers.address(src[r]))
                                    .dst(CollWorkers.address(dst[r]))
                                    .memh(memh[r][0], memh[r][1])
                                    .build());
                }
                while (workers.worker(0).unclaimed().isEmpty()
                        || workers.worker(1).unclaimed().isEmpty()) {
                    workers.domain.progress();
                }
                micros[k] = (System.nanoTime() - start) / 1000;
                for (int r = 0; r < 2; r++) {
                    assertThat(workers.await(r, sent[r]).header().reasonValue()).isEqualTo(Reason.NONE);
                }
            }
            assertThat(dst[1].getDouble(8L * 1000)).isEqualTo(2001.0);
            long[] measured = Arrays.copyOfRange(micros, 50, rounds);
            Arrays.sort(measured);

            System.out.println(side + ": 2-rank 1 MiB FLOAT64 SUM allreduce: median " + measured[measured.length / 2]
                    + " us, min " + measured[0] + " us over " + measured.length + " rounds");
        }
    }
}
