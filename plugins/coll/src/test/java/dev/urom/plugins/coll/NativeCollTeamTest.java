// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static dev.urom.plugins.coll.NativeCollFixture.barrier;
import static dev.urom.plugins.coll.NativeCollFixture.cookie;
import static dev.urom.plugins.coll.NativeCollFixture.withByte;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.plugins.coll.NativeCollFixture.Answer;
import dev.urom.plugins.coll.NativeCollFixture.Knobs;
import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CommandType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.spi.UromStatus;
import dev.urom.testkit.PluginTestKit;
import java.util.Arrays;
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

    @Test
    void aTeamOfOneIsCreatedAndDestroyed() {
        fx = NativeCollFixture.open(1);
        long cookie = NativeCollFixture.cookie();
        Answer created = fx.call(0, Knobs.DEFAULT.range(cookie, 7, 1, 0, 0, 1)).isOk();
        assertThat(created.type()).isEqualTo(CommandType.TEAM_CREATE.code());
        assertThat(created.cookie()).isEqualTo(cookie);
        CollNotification.TeamCreateDone body = created.as(CollNotification.TeamCreateDone.class);
        assertThat(body.teamId()).as("team id").isEqualTo(7);
        assertThat(body.rank()).as("rank").isZero();
        assertThat(body.size()).as("size").isEqualTo(1);
        Answer destroyed = fx.call(0, new CollCommand.TeamDestroy(5, 7)).isOk();
        assertThat(destroyed.type()).isEqualTo(CommandType.TEAM_DESTROY.code());
        assertThat(destroyed.teamId()).isEqualTo(7);
        fx.call(0, new CollCommand.TeamDestroy(6, 7)).fails(UromStatus.NOT_FOUND, Reason.TEAM_UNKNOWN);
    }

    @Test
    void teamsOfTwoToFiveAreCreatedOnEveryMember() {
        fx = NativeCollFixture.open(5);
        for (int size = 2; size <= 5; size++) {
            fx.team(size, size, Knobs.DEFAULT);
        }
    }

    @Test
    void aTeamIdHeldAlreadyIsRefused() {
        fx = NativeCollFixture.open(1);
        fx.call(0, Knobs.DEFAULT.range(1, 9, 1, 0, 0, 1)).isOk();
        fx.call(0, Knobs.DEFAULT.range(2, 9, 1, 0, 0, 1)).fails(UromStatus.ALREADY_EXIST, Reason.TEAM_EXISTS);
    }

    @Test
    void membersThatBreakTheRulesAreRefused() {
        fx = NativeCollFixture.open(2);
        fx.call(0, Knobs.DEFAULT.range(1, 3, 0, 0, 0, 1)).fails(UromStatus.INVALID_VALUE, Reason.BAD_MEMBERS);
        fx.call(0, Knobs.DEFAULT.range(2, 3, 2, 2, 0, 1)).fails(UromStatus.INVALID_VALUE, Reason.BAD_MEMBERS);
        fx.call(0, Knobs.DEFAULT.range(3, 3, 2, 0, 0, 0)).fails(UromStatus.INVALID_VALUE, Reason.BAD_MEMBERS);
        fx.call(0, Knobs.DEFAULT.list(4, 3, 0, new long[] {0, 0})).fails(UromStatus.INVALID_VALUE, Reason.BAD_MEMBERS);
        fx.call(0, Knobs.DEFAULT.list(5, 3, 0, new long[257])).fails(UromStatus.INVALID_VALUE, Reason.BAD_MEMBERS);
        fx.call(0, Knobs.DEFAULT.range(6, 3, 2, 0, -1, 1)).fails(UromStatus.INVALID_VALUE, Reason.BAD_MEMBERS);
        // rank 0 must be this worker: domain id 1 is the other one
        fx.call(0, Knobs.DEFAULT.range(7, 3, 2, 0, 1, 1))
                .fails(UromStatus.INVALID_VALUE, Reason.BAD_MEMBERS)
                .detail(0);
        // a member outside the domain
        fx.call(0, Knobs.DEFAULT.list(8, 3, 0, new long[] {0, 42}))
                .fails(UromStatus.NOT_FOUND, Reason.NO_DOMAIN)
                .detail(1);
    }

    @Test
    void teamIdsOutsideTheirRangeAreBadCommands() {
        fx = NativeCollFixture.open(1);
        fx.call(0, Knobs.DEFAULT.range(1, 0, 1, 0, 0, 1)).fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        fx.call(0, Knobs.DEFAULT.range(2, 4096, 1, 0, 0, 1)).fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
    }

    @Test
    void knobsOutOfBoundsAreRefusedAndTheOtherMembersToldAtOnce() {
        fx = NativeCollFixture.open(2);
        List<Answer> answers = fx.all(
                NativeCollFixture.range(2),
                rank -> (rank == 1 ? new Knobs(100, 0, 0) : Knobs.DEFAULT).range(cookie(), 4, 2, rank, 0, 1));
        answers.get(1).fails(UromStatus.INVALID_VALUE, Reason.KNOBS);
        answers.get(0).fails(UromStatus.INVALID_VALUE, Reason.PEER_REFUSED).detail(1);
    }

    @Test
    void membersThatDisagreeOnAKnobFailWithKnobs() {
        fx = NativeCollFixture.open(2);
        List<Answer> answers = fx.all(
                NativeCollFixture.range(2),
                rank -> new Knobs(rank == 0 ? 8192 : 0, 0, 0).range(cookie(), 4, 2, rank, 0, 1));
        answers.get(0).fails(UromStatus.INVALID_VALUE, Reason.KNOBS).detail(1);
        answers.get(1).fails(UromStatus.INVALID_VALUE, Reason.KNOBS).detail(0);
    }

    @Test
    void membersThatDisagreeOnTheMembersFailWithBadMembers() {
        fx = NativeCollFixture.open(3);
        List<Answer> answers = fx.all(
                new int[] {0, 1},
                rank -> rank == 0
                        ? Knobs.DEFAULT.range(cookie(), 4, 2, 0, 0, 1)
                        : Knobs.DEFAULT.list(cookie(), 4, 1, new long[] {0, 1, 2}));
        answers.get(0).fails(UromStatus.INVALID_VALUE, Reason.BAD_MEMBERS).detail(1);
        answers.get(1).fails(UromStatus.INVALID_VALUE, Reason.BAD_MEMBERS).detail(0);
    }

    @Test
    void aHostWithoutALocalProcessIsUnreachable() {
        fx = NativeCollFixture.open(2, PluginTestKit.Builder::noHostProcess);
        List<Answer> answers =
                fx.all(NativeCollFixture.range(2), rank -> Knobs.DEFAULT.range(cookie(), 5, 2, rank, 0, 1));
        answers.get(0).fails(UromStatus.NOT_PERMITTED, Reason.HOST_UNREACHABLE);
        answers.get(1).fails(UromStatus.NOT_PERMITTED, Reason.HOST_UNREACHABLE);
    }

    @Test
    void aCreationWithoutEveryMemberTimesOut() {
        fx = NativeCollFixture.open(2);
        fx.call(0, new Knobs(0, 0, 50).range(1, 5, 2, 0, 0, 1)).fails(UromStatus.TIME_OUT, Reason.TIMEOUT);
    }

    @Test
    void sixtyFiveTeamsAreTooMany() {
        fx = NativeCollFixture.open(1);
        for (int id = 1; id <= 64; id++) {
            fx.call(0, Knobs.DEFAULT.range(id, id, 1, 0, 0, 1)).isOk();
        }
        fx.call(0, Knobs.DEFAULT.range(65, 65, 1, 0, 0, 1)).fails(UromStatus.FULL, Reason.TOO_MANY);
        fx.call(0, new CollCommand.TeamDestroy(66, 1)).isOk();
        fx.call(0, Knobs.DEFAULT.range(67, 65, 1, 0, 0, 1)).isOk();
    }

    @Test
    void malformedCommandsAreAnsweredBadCommand() {
        fx = NativeCollFixture.open(1);
        fx.call(0, new byte[] {1, 0}).fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        Answer a = fx.call(0, withByte(new CollCommand.TeamDestroy(3, 1), CollLayout.CMD_HDR_TYPE, 9))
                .fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        assertThat(a.cookie()).isEqualTo(3);
        fx.call(0, withByte(new CollCommand.TeamDestroy(4, 1), CollLayout.CMD_HDR_VERSION, 2))
                .fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        fx.call(0, withByte(new CollCommand.TeamDestroy(5, 1), CollLayout.CMD_HDR_RESERVED, 1))
                .fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        fx.call(0, withByte(new CollCommand.TeamDestroy(6, 1), CollLayout.TEAM_DESTROY_RESERVED, 1))
                .fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        fx.call(0, Arrays.copyOf(new CollCommand.TeamDestroy(7, 1).encode(), CollLayout.TEAM_DESTROY_SIZE + 8))
                .fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        fx.call(
                        0,
                        Arrays.copyOf(
                                Knobs.DEFAULT.list(8, 3, 0, new long[] {0, 1}).encode(),
                                CollLayout.TEAM_CREATE_SIZE + 8))
                .fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        Answer post = fx.call(0, Arrays.copyOf(barrier(9, 1).encode(), CollLayout.POST_SIZE - 1))
                .fails(UromStatus.INVALID_VALUE, Reason.BAD_COMMAND);
        assertThat(post.type()).isEqualTo(CommandType.POST.code());
        assertThat(post.as(CollNotification.PostDone.class))
                .as("a POST answer, body and all")
                .isNotNull();
    }
}
