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
import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Failures: a peer gone, the time limit, the host gone, TEAM_DESTROY with collectives pending; the plugin serves its other teams. */
class NativeCollFailureTest {
    /** A short time limit: every failure below must come within it (plus the test kit's rounds). */
    static final Knobs QUICK = new Knobs(4096, 1024, 1500);

    private NativeCollFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private static Memory patterned(int bytes) {
        Memory m = NativeCollFixture.memory(bytes);
        byte[] fill = new byte[bytes];
        Arrays.fill(fill, (byte) 0x33);
        m.write(0, fill, 0, bytes);
        return m;
    }

    @Test
    void aPeerClosedFailsTheTeamsCollectivesButNotTheOtherTeams() {
        fx = NativeCollFixture.open(3);
        fx.team(1, 3, QUICK);
        fx.team(2, new int[] {0, 1}, QUICK);
        fx.worker(2).close();
        int n = 1 << 20;
        List<Memory> dst = List.of(patterned(n), patterned(n));
        List<Memory> src = List.of(patterned(n), patterned(n));
        long started = System.nanoTime();
        List<Answer> answers = fx.all(
                new int[] {0, 1},
                r -> post(
                        1,
                        CollType.ALLREDUCE,
                        DataType.INT32,
                        ReduceOp.SUM,
                        n / 4,
                        address(src.get(r)),
                        address(dst.get(r))));
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        for (Answer a : answers) {
            if (a.reason() == Reason.PEER_FAILED) {
                a.fails(UromStatus.CONNECTION_ABORTED, Reason.PEER_FAILED);
                assertThat(a.detail()).as("the rank that failed").isEqualTo(2);
            } else {
                a.fails(UromStatus.TIME_OUT, Reason.TIMEOUT);
            }
        }
        assertThat(elapsedMs).as("failed within the time limit").isLessThan(QUICK.timeoutMs() + 5000);
        for (int r = 0; r < 2; r++) {
            assertThat(dst.get(r).getByteArray(0, 64))
                    .as("nothing written")
                    .isEqualTo(patterned(64).getByteArray(0, 64));
        }
        // later POSTs to the failed team: TEAM_FAILED at once
        fx.all(new int[] {0, 1}, r -> barrier(cookie(), 1))
                .forEach(a -> a.fails(UromStatus.CONNECTION_ABORTED, Reason.TEAM_FAILED));
        // the other team goes on
        fx.all(new int[] {0, 1}, r -> barrier(cookie(), 2)).forEach(Answer::isOk);
    }

    /** A peer closed while an allreduce moves its data: the others fail within the time limit, never hang. */
    @Test
    void aPeerClosedInTheMiddleOfTheData() {
        fx = NativeCollFixture.open(3);
        fx.team(1, 3, QUICK);
        int n = 2 << 20;
        List<Memory> src = List.of(patterned(n), patterned(n), patterned(n));
        List<Memory> dst = List.of(patterned(n), patterned(n), patterned(n));
        List<WorkerCommand> sent = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            sent.add(fx.send(
                    r,
                    post(
                            1,
                            CollType.ALLREDUCE,
                            DataType.INT32,
                            ReduceOp.SUM,
                            n / 4,
                            address(src.get(r)),
                            address(dst.get(r)))));
        }
        for (int i = 0; i < 3; i++) {
            fx.domain.progress();
        }
        fx.worker(2).close();
        long started = System.nanoTime();
        for (int r = 0; r < 2; r++) {
            Answer a = fx.await(r, sent.get(r));
            if (a.reason() == Reason.PEER_FAILED) {
                a.fails(UromStatus.CONNECTION_ABORTED, Reason.PEER_FAILED).detail(2);
            } else {
                a.fails(UromStatus.TIME_OUT, Reason.TIMEOUT);
            }
        }
        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(QUICK.timeoutMs() + 5000L);
    }

    /** A member whose worker is gone before the team is made: NO_DOMAIN, naming its rank, at once. */
    @Test
    void aMemberGoneBeforeTheTeamIsMade() {
        fx = NativeCollFixture.open(3);
        fx.worker(2).close();
        fx.all(new int[] {0, 1}, r -> QUICK.range(cookie(), 1, 3, r, 0, 1))
                .forEach(a -> a.fails(UromStatus.NOT_FOUND, Reason.NO_DOMAIN).detail(2));
    }

    @Test
    void aCollectiveTheOthersNeverPostTimesOutAndTheTeamFails() {
        fx = NativeCollFixture.open(2);
        fx.team(1, 2, QUICK);
        long started = System.nanoTime();
        WorkerCommand lonely = fx.send(0, barrier(1, 1));
        WorkerCommand queued = fx.send(0, barrier(2, 1));
        fx.await(0, lonely).fails(UromStatus.TIME_OUT, Reason.TIMEOUT).detail(0);
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assertThat(elapsedMs).isBetween((long) QUICK.timeoutMs() - 50, (long) QUICK.timeoutMs() + 3000);
        fx.await(0, queued).fails(UromStatus.TIME_OUT, Reason.TIMEOUT);
        fx.call(0, barrier(3, 1))
                .fails(UromStatus.CONNECTION_ABORTED, Reason.TEAM_FAILED)
                .detail(0);
    }

    /** The host is a child that exits after the team is made: nothing is written, the team fails. */
    @Test
    void aHostThatExitedGetsNothingWritten() throws Exception {
        Process child = new ProcessBuilder("sleep", "60").start();
        try {
            fx = NativeCollFixture.open(2, b -> b.hostProcess(child.pid()));
            fx.team(1, 2, QUICK);
        } finally {
            child.destroyForcibly().waitFor();
        }
        int n = 4096;
        List<Memory> dst = List.of(patterned(n), patterned(n));
        List<Memory> src = List.of(patterned(n), patterned(n));
        List<Answer> answers = fx.all(
                NativeCollFixture.range(2),
                r -> post(
                        1,
                        CollType.ALLREDUCE,
                        DataType.INT32,
                        ReduceOp.SUM,
                        n / 4,
                        address(src.get(r)),
                        address(dst.get(r))));
        for (int r = 0; r < 2; r++) {
            answers.get(r).fails(UromStatus.SHUTDOWN, Reason.HOST_GONE);
            assertThat(dst.get(r).getByteArray(0, n)).isEqualTo(patterned(n).getByteArray(0, n));
        }
        fx.all(NativeCollFixture.range(2), r -> barrier(cookie(), 1))
                .forEach(a -> a.fails(UromStatus.CONNECTION_ABORTED, Reason.TEAM_FAILED));
    }

    /** The host exits while its collective waits for the other rank: the team fails at once, HOST_GONE, not at the time limit. */
    @Test
    void aHostThatExitsWhileItsCollectiveWaitsFailsTheTeamAtOnce() throws Exception {
        Process child = new ProcessBuilder("sleep", "60").start();
        WorkerCommand waiting;
        try {
            fx = NativeCollFixture.open(2, b -> b.hostProcess(child.pid()));
            fx.team(1, 2, QUICK);
            waiting = fx.send(
                    0,
                    CollCommand.Post.builder(1, 1)
                            .coll(CollType.ALLREDUCE.code())
                            .dtype(DataType.INT32.code())
                            .op(ReduceOp.SUM.code())
                            .build());
            fx.worker(0).progressAlone();
        } finally {
            child.destroyForcibly().waitFor();
        }
        long started = System.nanoTime();
        fx.await(0, waiting).fails(UromStatus.SHUTDOWN, Reason.HOST_GONE);
        assertThat((System.nanoTime() - started) / 1_000_000)
                .as("well before the time limit")
                .isLessThan(QUICK.timeoutMs() / 2);
    }

    @Test
    void destroyingATeamFailsItsPendingCollectives() {
        fx = NativeCollFixture.open(2);
        fx.team(1, 2, NativeCollAllreduceTest.KNOBS);
        List<WorkerCommand> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sent.add(fx.send(0, barrier(i, 1)));
        }
        fx.call(0, new CollCommand.TeamDestroy(10, 1)).isOk();
        for (WorkerCommand c : sent) {
            fx.await(0, c).fails(UromStatus.SHUTDOWN, Reason.TEAM_DESTROYED);
        }
        fx.call(0, barrier(11, 1)).fails(UromStatus.NOT_FOUND, Reason.TEAM_UNKNOWN);
    }

    /** The plugin asks to be polled while a collective is in flight, and may sleep once nothing is. */
    @Test
    void wakeupIsArmedOnlyWhenNothingIsInFlight() throws Exception {
        fx = NativeCollFixture.open(2);
        fx.team(1, 2, QUICK);
        assertThat(fx.worker(0).plugin().wakeupFd()).isPresent();
        fx.domain.progress();
        fx.worker(0).unclaimed();
        WorkerCommand pending = fx.send(0, barrier(1, 1));
        assertThat(fx.worker(0).plugin().armWakeup())
                .as("armed with a collective in flight")
                .isFalse();
        WorkerCommand other = fx.send(1, barrier(2, 1));
        fx.await(0, pending).isOk();
        fx.await(1, other).isOk();
        fx.worker(0).awaitCondition(() -> fx.worker(0).plugin().armWakeup(), "armed with nothing in flight");
    }
}
