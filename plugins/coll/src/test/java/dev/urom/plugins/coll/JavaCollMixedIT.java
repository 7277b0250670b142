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
            sent.add(workers.send(r, new CollCommand.Post(workers.cookie(), TEAM, CollType.ALLREDUCE.code(), DataType.FLOAT64.code(),
                    ReduceOp.SUM.code(), 0, 0, count, CollWorkers.address(src[r]), CollWorkers.address(dst[r]), 0, 0)));
        }
        boolean latency = small && 8L * count <= CollLayout.SMALL_MAX;
        double[] ring = latency ? null : SpecOrder.ring(x, Double::sum);
        double[][] rd = latency ? SpecOrder.allreduceSmall(x, Double::sum) : null;
        for (int r = 0; r < p; r++) {
            CollNotification.PostDone done = (CollNotification.PostDone) workers.await(r, sent.get(r));
            assertThat(done.header().reasonValue()).as("rank %d (%s)", r, pattern[r] ? "C" : "Java").isEqualTo(Reason.NONE);
            double[] expected = latency ? rd[r] : ring;
            double[] got = dst[r].getDoubleArray(0, count);
            for (int i = 0; i < count; i++) {
                if (Double.doubleToRawLongBits(got[i]) != Double.doubleToRawLongBits(expected[i])) {
                    throw new AssertionError("rank " + r + " (" + (pattern[r] ? "C" : "Java") + "): element " + i + " is " + got[i]
                            + ", expected " + expected[i]);
                }
            }
        }
    }
}
