// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.UromStatus;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestWorker;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** TEAM_CREATE, TEAM_DESTROY and the command decoder of worker_coll.so (docs/collectives.md, "Teams"). */
class NativeCollTeamTest {
    private NativeCollFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Coll.Answer call(TestWorker w, byte[] command) {
        return Coll.Answer.of(w.call(command));
    }

    @Test
    void aTeamOfOneIsCreatedAndDestroyed() {
        fx = NativeCollFixture.open(1);
        long cookie = NativeCollFixture.cookie();
        Coll.Answer created = call(fx.worker(0), Coll.teamRange(cookie, 7, 1, 0, 0, 1, Coll.Knobs.DEFAULT)).isOk();
        assertThat(created.type()).isEqualTo(Coll.TEAM_CREATE);
        assertThat(created.version()).isEqualTo(1);
        assertThat(created.cookie()).isEqualTo(cookie);
        assertThat(created.body().getInt(0)).as("team id").isEqualTo(7);
        assertThat(created.body().getInt(4)).as("rank").isZero();
        assertThat(created.body().getInt(8)).as("size").isEqualTo(1);
        Coll.Answer destroyed = call(fx.worker(0), Coll.teamDestroy(5, 7)).isOk();
        assertThat(destroyed.type()).isEqualTo(Coll.TEAM_DESTROY);
        assertThat(destroyed.teamId()).isEqualTo(7);
        call(fx.worker(0), Coll.teamDestroy(6, 7)).fails(UromStatus.NOT_FOUND, Coll.TEAM_UNKNOWN);
    }

    @Test
    void teamsOfTwoToFiveAreCreatedOnEveryMember() {
        fx = NativeCollFixture.open(5);
        for (int size = 2; size <= 5; size++) {
            fx.team(size, size, Coll.Knobs.DEFAULT);
        }
    }

    @Test
    void aTeamIdHeldAlreadyIsRefused() {
        fx = NativeCollFixture.open(1);
        call(fx.worker(0), Coll.teamRange(1, 9, 1, 0, 0, 1, Coll.Knobs.DEFAULT)).isOk();
        call(fx.worker(0), Coll.teamRange(2, 9, 1, 0, 0, 1, Coll.Knobs.DEFAULT)).fails(UromStatus.ALREADY_EXIST, Coll.TEAM_EXISTS);
    }

    @Test
    void membersThatBreakTheRulesAreRefused() {
        fx = NativeCollFixture.open(2);
        TestWorker w = fx.worker(0);
        call(w, Coll.teamRange(1, 3, 0, 0, 0, 1, Coll.Knobs.DEFAULT)).fails(UromStatus.INVALID_VALUE, Coll.BAD_MEMBERS);
        call(w, Coll.teamRange(2, 3, 2, 2, 0, 1, Coll.Knobs.DEFAULT)).fails(UromStatus.INVALID_VALUE, Coll.BAD_MEMBERS);
        call(w, Coll.teamRange(3, 3, 2, 0, 0, 0, Coll.Knobs.DEFAULT)).fails(UromStatus.INVALID_VALUE, Coll.BAD_MEMBERS);
        call(w, Coll.teamList(4, 3, 0, new long[] {0, 0}, Coll.Knobs.DEFAULT)).fails(UromStatus.INVALID_VALUE, Coll.BAD_MEMBERS);
        call(w, Coll.teamList(5, 3, 0, new long[257], Coll.Knobs.DEFAULT)).fails(UromStatus.INVALID_VALUE, Coll.BAD_MEMBERS);
        call(w, Coll.teamRange(6, 3, 2, 0, -1, 1, Coll.Knobs.DEFAULT)).fails(UromStatus.INVALID_VALUE, Coll.BAD_MEMBERS);
        // rank 0 must be this worker: domain id 1 is the other one
        call(w, Coll.teamRange(7, 3, 2, 0, 1, 1, Coll.Knobs.DEFAULT)).fails(UromStatus.INVALID_VALUE, Coll.BAD_MEMBERS).detail(0);
        // a member outside the domain
        call(w, Coll.teamList(8, 3, 0, new long[] {0, 42}, Coll.Knobs.DEFAULT)).fails(UromStatus.NOT_FOUND, Coll.NO_DOMAIN).detail(1);
    }

    @Test
    void teamIdsOutsideTheirRangeAreBadCommands() {
        fx = NativeCollFixture.open(1);
        call(fx.worker(0), Coll.teamRange(1, 0, 1, 0, 0, 1, Coll.Knobs.DEFAULT)).fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
        call(fx.worker(0), Coll.teamRange(2, 4096, 1, 0, 0, 1, Coll.Knobs.DEFAULT)).fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
    }

    @Test
    void knobsOutOfBoundsAreRefusedAndTheOtherMembersToldAtOnce() {
        fx = NativeCollFixture.open(2);
        List<Coll.Answer> answers = fx.all(NativeCollFixture.range(2), rank -> Coll.teamRange(NativeCollFixture.cookie(), 4, 2, rank, 0, 1,
                rank == 1 ? new Coll.Knobs(100, 0, 0) : Coll.Knobs.DEFAULT));
        answers.get(1).fails(UromStatus.INVALID_VALUE, Coll.KNOBS);
        answers.get(0).fails(UromStatus.INVALID_VALUE, Coll.PEER_REFUSED).detail(1);
    }

    @Test
    void membersThatDisagreeOnAKnobFailWithKnobs() {
        fx = NativeCollFixture.open(2);
        List<Coll.Answer> answers = fx.all(NativeCollFixture.range(2), rank -> Coll.teamRange(NativeCollFixture.cookie(), 4, 2, rank, 0, 1,
                new Coll.Knobs(rank == 0 ? 8192 : 0, 0, 0)));
        answers.get(0).fails(UromStatus.INVALID_VALUE, Coll.KNOBS).detail(1);
        answers.get(1).fails(UromStatus.INVALID_VALUE, Coll.KNOBS).detail(0);
    }

    @Test
    void membersThatDisagreeOnTheMembersFailWithBadMembers() {
        fx = NativeCollFixture.open(3);
        List<Coll.Answer> answers = fx.all(new int[] {0, 1}, rank -> rank == 0
                ? Coll.teamRange(NativeCollFixture.cookie(), 4, 2, 0, 0, 1, Coll.Knobs.DEFAULT)
                : Coll.teamList(NativeCollFixture.cookie(), 4, 1, new long[] {0, 1, 2}, Coll.Knobs.DEFAULT));
        answers.get(0).fails(UromStatus.INVALID_VALUE, Coll.BAD_MEMBERS).detail(1);
        answers.get(1).fails(UromStatus.INVALID_VALUE, Coll.BAD_MEMBERS).detail(0);
    }

    @Test
    void aHostWithoutALocalProcessIsUnreachable() {
        fx = NativeCollFixture.open(2, PluginTestKit.Builder::noHostProcess);
        List<Coll.Answer> answers = fx.all(NativeCollFixture.range(2), rank -> Coll.teamRange(NativeCollFixture.cookie(), 5, 2, rank, 0, 1,
                Coll.Knobs.DEFAULT));
        answers.get(0).fails(UromStatus.NOT_PERMITTED, Coll.HOST_UNREACHABLE);
        answers.get(1).fails(UromStatus.NOT_PERMITTED, Coll.HOST_UNREACHABLE);
    }

    @Test
    void aCreationWithoutEveryMemberTimesOut() {
        fx = NativeCollFixture.open(2);
        call(fx.worker(0), Coll.teamRange(1, 5, 2, 0, 0, 1, new Coll.Knobs(0, 0, 50))).fails(UromStatus.TIME_OUT, Coll.TIMEOUT);
    }

    @Test
    void sixtyFiveTeamsAreTooMany() {
        fx = NativeCollFixture.open(1);
        for (int id = 1; id <= 64; id++) {
            call(fx.worker(0), Coll.teamRange(id, id, 1, 0, 0, 1, Coll.Knobs.DEFAULT)).isOk();
        }
        call(fx.worker(0), Coll.teamRange(65, 65, 1, 0, 0, 1, Coll.Knobs.DEFAULT)).fails(UromStatus.FULL, Coll.TOO_MANY);
        call(fx.worker(0), Coll.teamDestroy(66, 1)).isOk();
        call(fx.worker(0), Coll.teamRange(67, 65, 1, 0, 0, 1, Coll.Knobs.DEFAULT)).isOk();
    }

    @Test
    void malformedCommandsAreAnsweredBadCommand() {
        fx = NativeCollFixture.open(1);
        TestWorker w = fx.worker(0);
        call(w, new byte[] {1, 0}).fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
        byte[] unknown = Coll.teamDestroy(3, 1);
        unknown[0] = 9;
        Coll.Answer a = call(w, unknown).fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
        assertThat(a.cookie()).isEqualTo(3);
        byte[] version = Coll.teamDestroy(4, 1);
        version[2] = 2;
        call(w, version).fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
        byte[] reserved = Coll.teamDestroy(5, 1);
        reserved[4] = 1;
        call(w, reserved).fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
        byte[] reservedBody = Coll.teamDestroy(6, 1);
        reservedBody[20] = 1;
        call(w, reservedBody).fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
        byte[] longer = java.util.Arrays.copyOf(Coll.teamDestroy(7, 1), 32);
        call(w, longer).fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
        byte[] shortList = java.util.Arrays.copyOf(Coll.teamList(8, 3, 0, new long[] {0, 1}, Coll.Knobs.DEFAULT), 72);
        call(w, shortList).fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
        Coll.Answer post = call(w, java.util.Arrays.copyOf(Coll.Post.of(1, 0, 0, 0, 0, 0, 0).encode(9), 71))
                .fails(UromStatus.INVALID_VALUE, Coll.BAD_COMMAND);
        assertThat(post.type()).isEqualTo(Coll.POST);
        assertThat(post.body().remaining()).as("a POST answer's body").isEqualTo(16);
    }
}
