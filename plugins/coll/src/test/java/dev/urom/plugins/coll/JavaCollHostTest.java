// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollProtocolException;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestWorker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The host's memory when the host is another process (a child of the test): registered ranges
 * carry a POST without a look at the mappings, and a host that exits fails its team with
 * HOST_GONE instead of reaching anything.
 */
class JavaCollHostTest {
    private Process child;

    @AfterEach
    void stop() throws InterruptedException {
        if (child != null) {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * The start of the child's stack mapping (writable, far larger than a page, and unused at its
     * low end), once the child runs {@code sleep}: until then the process is still the spawn
     * helper, whose mappings go away at its exec.
     */
    private static long writableRange(long pid) throws IOException, InterruptedException {
        Path comm = Path.of("/proc", Long.toString(pid), "comm");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.readString(comm).strip().equals("sleep")) {
            assertThat(System.nanoTime() - deadline)
                    .as("the child runs sleep within 10 s")
                    .isNegative();
            Thread.onSpinWait();
        }
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "maps"))) {
            if (line.endsWith("[stack]")) {
                return Long.parseUnsignedLong(line.substring(0, line.indexOf('-')), 16);
            }
        }
        throw new AssertionError("the child has no stack mapping");
    }

    private static CollNotification call(TestWorker worker, CollCommand command) {
        try {
            return CollNotification.decode(worker.awaitAnswer(worker.send(command.cookie(), command.encode()))
                    .payload());
        } catch (CollProtocolException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aPostOnRegisteredRangesWorksAndAnExitedHostIsGone() throws Exception {
        child = new ProcessBuilder("sleep", "120").start();
        long pid = child.pid();
        long at = writableRange(pid);
        try (TestWorker worker = PluginTestKit.plugin(CollPlugin::new)
                .hostProcess(pid)
                .timeout(CollWorkers.TIMEOUT)
                .open()) {
            assertThat(call(worker, CollCommand.TeamCreate.range(1, 3, 1, 0, 0, 1, 0, 0, 0))
                            .header()
                            .reasonValue())
                    .isEqualTo(Reason.NONE);
            CollNotification.MemMapDone map = (CollNotification.MemMapDone)
                    call(worker, new CollCommand.MemMap(2, at, 4096, CollLayout.ACCESS_READ | CollLayout.ACCESS_WRITE));
            assertThat(map.header().reasonValue()).isEqualTo(Reason.NONE);
            CollCommand.Post post = CollCommand.Post.builder(3, 3)
                    .coll(CollType.ALLREDUCE.code())
                    .dtype(DataType.INT64.code())
                    .op(ReduceOp.SUM.code())
                    .count(8)
                    .src(at)
                    .dst(at + 1024)
                    .memh(map.memh(), map.memh())
                    .build();
            assertThat(call(worker, post).header().reasonValue()).isEqualTo(Reason.NONE);
            CollCommand.Post outside = CollCommand.Post.builder(4, 3)
                    .coll(CollType.ALLREDUCE.code())
                    .dtype(DataType.INT64.code())
                    .op(ReduceOp.SUM.code())
                    .count(8)
                    .src(at)
                    .dst(at + 4090)
                    .memh(map.memh(), map.memh())
                    .build();
            assertThat(call(worker, outside).header().reasonValue())
                    .as("a range past its handle")
                    .isEqualTo(Reason.BAD_MEMH);

            child.destroyForcibly();
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
            CollNotification gone = call(
                    worker,
                    CollCommand.Post.builder(5, 3)
                            .coll(CollType.ALLREDUCE.code())
                            .dtype(DataType.INT64.code())
                            .op(ReduceOp.SUM.code())
                            .count(8)
                            .src(at)
                            .dst(at + 1024)
                            .memh(map.memh(), map.memh())
                            .build());
            assertThat(gone.header().reasonValue()).isEqualTo(Reason.HOST_GONE);
            assertThat(gone.header().status()).isEqualTo(Reason.HOST_GONE.status());
            assertThat(call(
                                    worker,
                                    CollCommand.Post.builder(6, 3)
                                            .coll(CollType.BARRIER.code())
                                            .build())
                            .header()
                            .reasonValue())
                    .as("the team failed with its host")
                    .isEqualTo(Reason.TEAM_FAILED);
        }
    }
}
