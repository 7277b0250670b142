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
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every refusal of docs/collectives.md with its status, reason and detail, on the rank that
 * refuses and on the others, with every destination untouched; mismatches on every rank; teams
 * that keep working beside failed ones; a closed peer failing a collective within the team's
 * time limit.
 */
class JavaCollFailureTest {
    private static final int TEAM = 21;
    private static final int COUNT = 64;

    private CollWorkers workers;
    private final List<long[]> pages = new ArrayList<>();

    @AfterEach
    void close() {
        if (workers != null) {
            workers.close();
        }
        pages.forEach(p -> Pages.unmap(p[0], p[1]));
    }

    private long pages(long count, int prot) {
        long address = Pages.map(count, prot);
        pages.add(new long[] {address, count});
        return address;
    }

    private CollCommand.Post allreduce(long src, long dst) {
        return CollCommand.Post.builder(workers.cookie(), TEAM)
                .coll(CollType.ALLREDUCE.code())
                .dtype(DataType.FLOAT64.code())
                .op(ReduceOp.SUM.code())
                .count(COUNT)
                .src(src)
                .dst(dst)
                .build();
    }

    private static void assertAnswer(CollNotification answer, Reason reason, long detail, String what) {
        assertThat(answer.header().reasonValue()).as(what).isEqualTo(reason);
        assertThat(answer.header().status()).as(what + ": status").isEqualTo(reason.status());
        assertThat(answer.header().detail()).as(what + ": detail").isEqualTo(detail);
    }

    /** Rank 0 posts {@code bad}, rank 1 a valid allreduce: rank 0 refuses with {@code reason}, rank 1 gets PEER_REFUSED of rank 0, nothing written. */
    private void refusal(CollCommand.Post bad, Reason reason, Memory[] dst) {
        Memory src1 = workers.buffer(8 * COUNT);
        src1.setDouble(0, 42);
        WorkerCommand zero = workers.send(0, bad);
        WorkerCommand one = workers.send(1, allreduce(CollWorkers.address(src1), CollWorkers.address(dst[1])));
        CollNotification a0 = workers.await(0, zero);
        CollNotification a1 = workers.await(1, one);
        assertAnswer(a0, reason, 0, "the refusing rank, " + reason);
        assertAnswer(a1, Reason.PEER_REFUSED, 0, "the other rank, " + reason);
        for (Memory d : dst) {
            assertThat(d.getByteArray(0, 8 * COUNT))
                    .as("destination untouched, " + reason)
                    .containsOnly(0);
        }
    }

    @Test
    void everyBadPostIsRefusedOnItsRankAndPeerRefusedOnTheOthers() {
        workers = new CollWorkers(2);
        workers.createTeam(TEAM, 2, 0, 0, 0);
        Memory src = workers.buffer(8 * COUNT);
        Memory[] dst = {workers.buffer(8 * COUNT), workers.buffer(8 * COUNT)};
        long s = CollWorkers.address(src);
        long d = CollWorkers.address(dst[0]);
        long c = workers.cookie();
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(9)
                        .dtype(9)
                        .count(COUNT)
                        .src(s)
                        .dst(d)
                        .build(),
                Reason.UNKNOWN_COLL,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(10)
                        .count(COUNT)
                        .src(s)
                        .dst(d)
                        .build(),
                Reason.UNKNOWN_DTYPE,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .op(7)
                        .count(COUNT)
                        .src(s)
                        .dst(d)
                        .build(),
                Reason.UNKNOWN_OP,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .op(ReduceOp.BXOR.code())
                        .count(COUNT)
                        .src(s)
                        .dst(d)
                        .build(),
                Reason.OP_NOT_FOR_DTYPE,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .count(1L << 60)
                        .src(s)
                        .dst(d)
                        .build(),
                Reason.COUNT_OVERFLOW,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(CollType.REDUCE.code())
                        .dtype(9)
                        .root(2)
                        .count(COUNT)
                        .src(s)
                        .dst(d)
                        .build(),
                Reason.BAD_ROOT,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .flags(2)
                        .count(COUNT)
                        .src(s)
                        .dst(d)
                        .build(),
                Reason.BAD_FLAGS,
                dst);
        long hole = 4096; // below vm.mmap_min_addr: never mapped
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .count(COUNT)
                        .src(hole)
                        .dst(d)
                        .build(),
                Reason.NOT_MAPPED,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .count(COUNT)
                        .src(-256)
                        .dst(d)
                        .build(),
                Reason.NOT_MAPPED,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .count(COUNT)
                        .src(pages(1, Pages.PROT_NONE))
                        .dst(d)
                        .build(),
                Reason.NOT_READABLE,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .count(COUNT)
                        .src(s)
                        .dst(pages(1, Pages.PROT_READ))
                        .build(),
                Reason.NOT_WRITABLE,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .count(COUNT)
                        .src(d + 8)
                        .dst(d)
                        .build(),
                Reason.OVERLAP,
                dst);
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .count(COUNT)
                        .src(s)
                        .dst(d)
                        .memh(99, 0)
                        .build(),
                Reason.BAD_MEMH,
                dst);
        CollNotification.MemMapDone map = (CollNotification.MemMapDone)
                workers.call(0, new CollCommand.MemMap(workers.cookie(), s, 8 * COUNT, CollLayout.ACCESS_WRITE));
        assertAnswer(map, Reason.NONE, 0, "MEM_MAP");
        refusal(
                CollCommand.Post.builder(c, TEAM)
                        .coll(3)
                        .dtype(9)
                        .count(COUNT)
                        .src(s)
                        .dst(d)
                        .memh(map.memh(), 0)
                        .build(),
                Reason.BAD_MEMH,
                dst);
        Memory one = workers.buffer(8 * COUNT);
        one.setDouble(0, 1);
        WorkerCommand a = workers.send(0, allreduce(CollWorkers.address(one), d));
        WorkerCommand b = workers.send(1, allreduce(CollWorkers.address(one), CollWorkers.address(dst[1])));
        assertAnswer(workers.await(0, a), Reason.NONE, 0, "the team still works");
        assertAnswer(workers.await(1, b), Reason.NONE, 0, "the team still works");
        assertThat(dst[0].getDouble(0)).isEqualTo(2);
    }

    @Test
    void aMismatchIsReportedOnEveryRankWithTheFirstField() {
        workers = new CollWorkers(3);
        workers.createTeam(TEAM, 3, 0, 0, 0);
        Memory[] dst = new Memory[3];
        List<WorkerCommand> sent = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            Memory src = workers.buffer(8 * 11);
            dst[r] = workers.buffer(8 * 11);
            sent.add(workers.send(
                    r,
                    CollCommand.Post.builder(workers.cookie(), TEAM)
                            .coll(3)
                            .dtype(r == 2 ? DataType.INT64.code() : 9)
                            .count(r == 1 ? 11 : 10)
                            .src(CollWorkers.address(src))
                            .dst(CollWorkers.address(dst[r]))
                            .build()));
        }
        for (int r = 0; r < 3; r++) {
            assertAnswer(workers.await(r, sent.get(r)), Reason.MISMATCH, 2, "rank " + r);
            assertThat(dst[r].getByteArray(0, 88)).containsOnly(0);
        }
    }

    @Test
    void commandsAreRefusedWithTheirReasons() {
        workers = new CollWorkers(2);
        WorkerCommand truncated =
                workers.worker(0).send(77, Arrays.copyOf(new CollCommand.TeamDestroy(77, 1).encode(), 20));
        assertAnswer(workers.await(0, truncated), Reason.BAD_COMMAND, 0, "truncated");
        byte[] headerOnly = workers.worker(0)
                .awaitAnswer(workers.worker(0).send(78, new byte[3]))
                .payload();
        assertThat(headerOnly)
                .as("bytes too short for a type: a notification header alone")
                .hasSize(CollLayout.NOTIF_HDR_SIZE);
        assertThat(java.nio.ByteBuffer.wrap(headerOnly)
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                        .getInt(CollLayout.NOTIF_HDR_REASON))
                .isEqualTo(Reason.BAD_COMMAND.code());
        assertAnswer(
                workers.call(0, new CollCommand.TeamDestroy(workers.cookie(), 5)),
                Reason.TEAM_UNKNOWN,
                0,
                "destroy unknown");
        assertAnswer(workers.call(0, allreduce(0, 0)), Reason.TEAM_UNKNOWN, 0, "post unknown");
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.range(workers.cookie(), TEAM, 2, 2, 0, 1, 0, 0, 0)),
                Reason.BAD_MEMBERS,
                0,
                "rank");
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.range(workers.cookie(), TEAM, 2, 0, 0, 0, 0, 0, 0)),
                Reason.BAD_MEMBERS,
                0,
                "stride");
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.list(workers.cookie(), TEAM, 0, new long[] {0, 0}, 0, 0, 0)),
                Reason.BAD_MEMBERS,
                0,
                "twice");
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.range(workers.cookie(), 0, 2, 0, 0, 1, 0, 0, 0)),
                Reason.BAD_COMMAND,
                0,
                "team 0");
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.range(workers.cookie(), 4096, 1, 0, 0, 1, 0, 0, 0)),
                Reason.BAD_COMMAND,
                0,
                "team 4096");
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.range(workers.cookie(), TEAM + 40, 2, 0, 0, 1, 100, 0, 0)),
                Reason.KNOBS,
                0,
                "chunk");
        assertAnswer(
                workers.call(0, new CollCommand.MemMap(workers.cookie(), 4096, 0, 1)),
                Reason.BAD_COMMAND,
                0,
                "map of length 0");
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.list(workers.cookie(), TEAM, 0, new long[] {0, 99}, 0, 0, 0)),
                Reason.NO_DOMAIN,
                1,
                "member 99");
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.list(workers.cookie(), TEAM, 0, new long[] {1, 0}, 0, 0, 0)),
                Reason.BAD_MEMBERS,
                0,
                "rank 0 is another worker");
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.list(workers.cookie(), TEAM, 1, new long[] {0, 1}, 0, 0, 0)),
                Reason.BAD_MEMBERS,
                1,
                "rank 1 is another worker");
        assertAnswer(
                workers.call(0, new CollCommand.MemUnmap(workers.cookie(), 5)), Reason.BAD_MEMH, 0, "unmap unknown");
        assertAnswer(
                workers.call(0, new CollCommand.MemMap(workers.cookie(), 4096, 8, 4)), Reason.BAD_FLAGS, 0, "access");
        long unreadable = pages(1, Pages.PROT_NONE);
        assertAnswer(
                workers.call(0, new CollCommand.MemMap(workers.cookie(), unreadable, 8, 1)),
                Reason.NOT_READABLE,
                0,
                "map unreadable");
        CollNotification.MemMapDone map = (CollNotification.MemMapDone) workers.call(
                0, new CollCommand.MemMap(workers.cookie(), CollWorkers.address(workers.buffer(64)), 64, 3));
        assertThat(map.memh()).isEqualTo(1);
        assertAnswer(workers.call(0, new CollCommand.MemUnmap(workers.cookie(), 1)), Reason.NONE, 0, "unmap");
        assertAnswer(workers.call(0, new CollCommand.MemUnmap(workers.cookie(), 1)), Reason.BAD_MEMH, 0, "unmap twice");

        workers.createTeam(TEAM, 2, 0, 0, 0);
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.range(workers.cookie(), TEAM, 1, 0, 0, 1, 0, 0, 0)),
                Reason.TEAM_EXISTS,
                0,
                "exists");
        WorkerCommand other = workers.worker(0)
                .send(new dev.urom.spi.WorkerCommand(
                        2, workers.worker(0).pluginId(), 999, allreduce(0, 0).encode()));
        assertAnswer(workers.await(0, other), Reason.TEAM_UNKNOWN, 0, "another connection's team");
    }

    @Test
    void membersThatDisagreeOnAKnobFailWithKnobs() {
        workers = new CollWorkers(2);
        WorkerCommand a = workers.send(0, CollCommand.TeamCreate.range(workers.cookie(), TEAM, 2, 0, 0, 1, 8192, 0, 0));
        WorkerCommand b = workers.send(1, CollCommand.TeamCreate.range(workers.cookie(), TEAM, 2, 1, 0, 1, 0, 0, 0));
        assertAnswer(workers.await(0, a), Reason.KNOBS, 1, "rank 0");
        assertAnswer(workers.await(1, b), Reason.KNOBS, 0, "rank 1");

        a = workers.send(0, CollCommand.TeamCreate.range(workers.cookie(), TEAM + 1, 2, 0, 0, 1, 100, 0, 60_000));
        b = workers.send(1, CollCommand.TeamCreate.range(workers.cookie(), TEAM + 1, 2, 1, 0, 1, 0, 0, 60_000));
        long start = System.nanoTime();
        assertAnswer(workers.await(0, a), Reason.KNOBS, 0, "the rank with a knob out of bounds");
        assertAnswer(workers.await(1, b), Reason.PEER_REFUSED, 0, "its peer, told by a refusing HELLO");
        assertThat(System.nanoTime() - start).as("long before the 60 s limit").isLessThan(20_000_000_000L);
    }

    @Test
    void aRegisteredRangeTheHostTakesAwayFailsWithNotMappedAndNothingElseIsTouched() {
        workers = new CollWorkers(1);
        workers.createTeam(TEAM, 1, 0, 0, 0);
        long gone = pages(2, Pages.PROT_READ | Pages.PROT_WRITE);
        CollNotification.MemMapDone map = (CollNotification.MemMapDone) workers.call(
                0,
                new CollCommand.MemMap(
                        workers.cookie(), gone, 2 * Pages.PAGE, CollLayout.ACCESS_READ | CollLayout.ACCESS_WRITE));
        assertAnswer(map, Reason.NONE, 0, "MEM_MAP");
        Pages.protect(gone, 2, Pages.PROT_NONE);
        Memory dst = workers.buffer(8 * COUNT);
        CollNotification answer = workers.call(
                0,
                CollCommand.Post.builder(workers.cookie(), TEAM)
                        .coll(CollType.ALLREDUCE.code())
                        .dtype(DataType.FLOAT64.code())
                        .count(COUNT)
                        .src(gone)
                        .dst(CollWorkers.address(dst))
                        .memh(map.memh(), 0)
                        .build());
        assertAnswer(answer, Reason.NOT_MAPPED, 0, "a read of the unmapped range");
        assertThat(dst.getByteArray(0, 8 * COUNT)).containsOnly(0);
    }

    @Test
    void aHostTheWorkerCannotReachIsRefusedAndItsPeersHearOfItAtOnce() {
        try (TestDomain domain = PluginTestKit.domain(
                PluginTestKit.plugin(CollPlugin::new).noHostProcess().timeout(CollWorkers.TIMEOUT),
                PluginTestKit.plugin(CollPlugin::new).timeout(CollWorkers.TIMEOUT))) {
            WorkerCommand a = domain.worker(0)
                    .send(
                            1,
                            CollCommand.TeamCreate.range(1, TEAM, 2, 0, 0, 1, 0, 0, 60_000)
                                    .encode());
            WorkerCommand b = domain.worker(1)
                    .send(
                            2,
                            CollCommand.TeamCreate.range(2, TEAM, 2, 1, 0, 1, 0, 0, 60_000)
                                    .encode());
            long start = System.nanoTime();
            assertAnswer(
                    decode(domain.worker(0).awaitAnswer(a).payload()),
                    Reason.HOST_UNREACHABLE,
                    0,
                    "the unreachable host's rank");
            assertAnswer(decode(domain.worker(1).awaitAnswer(b).payload()), Reason.PEER_REFUSED, 0, "its peer");
            assertThat(System.nanoTime() - start)
                    .as("long before the 60 s limit")
                    .isLessThan(20_000_000_000L);
        }
    }

    private static CollNotification decode(byte[] bytes) {
        try {
            return CollNotification.decode(bytes);
        } catch (dev.urom.plugins.coll.protocol.CollProtocolException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aClosedPeerFailsTheCollectiveWithinTheTimeLimitAndOtherTeamsKeepWorking() {
        workers = new CollWorkers(3);
        workers.createTeam(TEAM, 2, 0, 0, 300);
        List<WorkerCommand> create = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            create.add(workers.send(
                    r, CollCommand.TeamCreate.list(workers.cookie(), TEAM + 1, r, new long[] {0, 1, 2}, 0, 0, 0)));
        }
        for (int r = 0; r < 3; r++) {
            assertAnswer(workers.await(r, create.get(r)), Reason.NONE, 0, "the second team");
        }
        TestDomain domain = workers.domain;
        Memory src = workers.buffer(8 * COUNT);
        Memory dst = workers.buffer(8 * COUNT);
        long start = System.nanoTime();
        workers.worker(1).close();
        WorkerCommand post = workers.send(0, allreduce(CollWorkers.address(src), CollWorkers.address(dst)));
        CollNotification answer = workers.await(0, post);
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(answer.header().reasonValue()).isIn(Reason.PEER_FAILED, Reason.TIMEOUT);
        assertThat(elapsedMs).as("within a few times the 300 ms limit").isLessThan(5_000);
        assertThat(dst.getByteArray(0, 8 * COUNT)).containsOnly(0);
        assertThat(workers.call(0, allreduce(CollWorkers.address(src), CollWorkers.address(dst)))
                        .header()
                        .reasonValue())
                .as("a failed team fails what comes after")
                .isIn(Reason.TEAM_FAILED, Reason.PEER_FAILED);
        assertThat(domain.size()).isEqualTo(3);
    }

    @Test
    void twoTeamsRunTogetherWithManyCollectivesPostedBeforeAnyCompletes() {
        workers = new CollWorkers(3);
        workers.createTeam(TEAM, 3, 4096, 0, 0);
        List<WorkerCommand> create = new ArrayList<>();
        for (int r = 1; r < 3; r++) {
            create.add(workers.send(
                    r, CollCommand.TeamCreate.list(workers.cookie(), TEAM + 5, r - 1, new long[] {1, 2}, 0, 1, 0)));
        }
        for (int r = 1; r < 3; r++) {
            assertAnswer(workers.await(r, create.get(r - 1)), Reason.NONE, 0, "team B");
        }
        int rounds = 6;
        int count = 3000;
        Memory[][] src = new Memory[3][rounds];
        Memory[][] dstA = new Memory[3][rounds];
        Memory[][] dstB = new Memory[3][rounds];
        List<List<WorkerCommand>> sent = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            List<WorkerCommand> mine = new ArrayList<>();
            for (int k = 0; k < rounds; k++) {
                src[r][k] = workers.buffer(8L * count);
                for (int i = 0; i < count; i++) {
                    src[r][k].setLong(8L * i, (r + 1) * 1000L + k * 10L + i);
                }
                dstA[r][k] = workers.buffer(8L * count);
                dstB[r][k] = workers.buffer(8L * count);
                mine.add(workers.send(
                        r,
                        CollCommand.Post.builder(workers.cookie(), TEAM)
                                .coll(3)
                                .dtype(DataType.INT64.code())
                                .count(count)
                                .src(CollWorkers.address(src[r][k]))
                                .dst(CollWorkers.address(dstA[r][k]))
                                .build()));
                if (r > 0) {
                    mine.add(workers.send(
                            r,
                            CollCommand.Post.builder(workers.cookie(), TEAM + 5)
                                    .coll(3)
                                    .dtype(DataType.INT64.code())
                                    .op(ReduceOp.MAX.code())
                                    .count(count)
                                    .src(CollWorkers.address(src[r][k]))
                                    .dst(CollWorkers.address(dstB[r][k]))
                                    .build()));
                }
            }
            sent.add(mine);
        }
        for (int r = 0; r < 3; r++) {
            for (WorkerCommand c : sent.get(r)) {
                assertAnswer(workers.await(r, c), Reason.NONE, 0, "rank " + r);
            }
            for (int k = 0; k < rounds; k++) {
                for (int i = 0; i < count; i += 499) {
                    assertThat(dstA[r][k].getLong(8L * i)).isEqualTo(6000L + 3 * (k * 10L + i));
                    if (r > 0) {
                        assertThat(dstB[r][k].getLong(8L * i)).isEqualTo(3000L + k * 10L + i);
                    }
                }
            }
        }
    }

    @Test
    void aPeerThatNeverPostsTimesTheCollectiveOutOnTimeAndTheTeamFails() {
        workers = new CollWorkers(2);
        workers.createTeam(TEAM, 2, 0, 0, 200);
        Memory src = workers.buffer(8 * COUNT);
        Memory dst = workers.buffer(8 * COUNT);
        long start = System.nanoTime();
        CollNotification answer = workers.call(0, allreduce(CollWorkers.address(src), CollWorkers.address(dst)));
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertAnswer(answer, Reason.TIMEOUT, 0, "the waiting rank");
        assertThat(elapsedMs)
                .as("not before the 200 ms limit, and not long after")
                .isBetween(190L, 5_000L);
        assertAnswer(
                workers.call(0, allreduce(CollWorkers.address(src), CollWorkers.address(dst))),
                Reason.TEAM_FAILED,
                0,
                "afterwards");
    }

    @Test
    void destroyingATeamFailsItsPendingCollectivesAndLeavesTheOthersAlone() {
        workers = new CollWorkers(2);
        workers.createTeam(TEAM, 2, 0, 0, 0);
        List<WorkerCommand> create = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            create.add(workers.send(r, CollCommand.TeamCreate.range(workers.cookie(), TEAM + 1, 2, r, 0, 1, 0, 0, 0)));
        }
        for (int r = 0; r < 2; r++) {
            assertAnswer(workers.await(r, create.get(r)), Reason.NONE, 0, "team B");
        }
        Memory src = workers.buffer(8 * COUNT);
        Memory dst = workers.buffer(8 * COUNT);
        List<WorkerCommand> pending = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            pending.add(workers.send(0, allreduce(CollWorkers.address(src), CollWorkers.address(dst))));
        }
        assertAnswer(workers.call(0, new CollCommand.TeamDestroy(workers.cookie(), TEAM)), Reason.NONE, 0, "destroy");
        for (WorkerCommand c : pending) {
            CollNotification answer = workers.await(0, c);
            assertAnswer(answer, Reason.TEAM_DESTROYED, 0, "pending");
        }
        assertThat(dst.getByteArray(0, 8 * COUNT)).containsOnly(0);
        List<WorkerCommand> barriers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            barriers.add(workers.send(
                    r,
                    CollCommand.Post.builder(workers.cookie(), TEAM + 1)
                            .coll(CollType.BARRIER.code())
                            .build()));
        }
        for (int r = 0; r < 2; r++) {
            assertAnswer(workers.await(r, barriers.get(r)), Reason.NONE, 0, "team B still works");
        }
    }

    @Test
    void theBoundsOnTeamsPostsAndHandlesAnswerTooMany() {
        workers = new CollWorkers(2);
        for (int team = 1; team <= CollLayout.TEAMS_PER_WORKER; team++) {
            assertAnswer(
                    workers.call(0, CollCommand.TeamCreate.range(workers.cookie(), team, 1, 0, 0, 1, 0, 0, 0)),
                    Reason.NONE,
                    0,
                    "team " + team);
        }
        assertAnswer(
                workers.call(0, CollCommand.TeamCreate.range(workers.cookie(), 100, 1, 0, 0, 1, 0, 0, 0)),
                Reason.TOO_MANY,
                0,
                "team 65");
        assertAnswer(workers.call(0, new CollCommand.TeamDestroy(workers.cookie(), 1)), Reason.NONE, 0, "destroy one");

        workers.createTeam(1, 2, 0, 0, 0);
        List<WorkerCommand> pending = new ArrayList<>();
        for (int k = 0; k < CollLayout.INFLIGHT_MAX; k++) {
            pending.add(workers.send(
                    0,
                    CollCommand.Post.builder(workers.cookie(), 1)
                            .coll(CollType.BARRIER.code())
                            .build()));
        }
        assertAnswer(
                workers.call(
                        0,
                        CollCommand.Post.builder(workers.cookie(), 1)
                                .coll(CollType.BARRIER.code())
                                .build()),
                Reason.TOO_MANY,
                0,
                "post 1025");
        assertAnswer(workers.call(0, new CollCommand.TeamDestroy(workers.cookie(), 1)), Reason.NONE, 0, "destroy");
        for (WorkerCommand c : pending) {
            assertThat(workers.await(0, c).header().reasonValue()).isEqualTo(Reason.TEAM_DESTROYED);
        }

        long at = CollWorkers.address(workers.buffer(64));
        for (int k = 1; k <= CollLayout.MEMH_MAX; k++) {
            CollNotification.MemMapDone map =
                    (CollNotification.MemMapDone) workers.call(0, new CollCommand.MemMap(workers.cookie(), at, 64, 3));
            assertThat(map.memh()).isEqualTo(k);
        }
        assertAnswer(
                workers.call(0, new CollCommand.MemMap(workers.cookie(), at, 64, 3)),
                Reason.TOO_MANY,
                0,
                "handle 1025");
    }

    @Test
    void closingWorkersWithSendsInFlightLeavesTheProcessStanding() {
        workers = new CollWorkers(2);
        workers.createTeam(TEAM, 2, 4096, 1, 0);
        int count = 1 << 18;
        Memory src = workers.buffer(8L * count);
        Memory dst = workers.buffer(8L * count);
        WorkerCommand post = workers.send(
                0,
                CollCommand.Post.builder(workers.cookie(), TEAM)
                        .coll(CollType.ALLREDUCE.code())
                        .dtype(DataType.FLOAT64.code())
                        .op(ReduceOp.SUM.code())
                        .count(count)
                        .src(CollWorkers.address(src))
                        .dst(CollWorkers.address(dst))
                        .build());
        for (int i = 0; i < 200; i++) {
            workers.worker(0).progressAlone();
        }
        assertThat(workers.worker(0).unclaimed())
                .as("rank 1 has not posted: nothing can be answered yet")
                .isEmpty();
        workers.send(
                1,
                CollCommand.Post.builder(workers.cookie(), TEAM)
                        .coll(CollType.ALLREDUCE.code())
                        .dtype(DataType.FLOAT64.code())
                        .op(ReduceOp.SUM.code())
                        .count(count)
                        .src(CollWorkers.address(src))
                        .dst(CollWorkers.address(workers.buffer(8L * count)))
                        .build());
        for (int i = 0; i < 3; i++) {
            workers.domain.progress();
        }
        workers.close();
        workers = null;
        assertThat(post).isNotNull();
    }
}
