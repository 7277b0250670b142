// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.spi.WorkerCommand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Teams of {@link CollPlugin}s: creation, barriers in sequence, destruction. */
class JavaCollTeamTest {
    private CollWorkers workers;

    @AfterEach
    void close() {
        if (workers != null) {
            workers.close();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void aTeamIsCreatedAndBarriersCompleteInSequence(int size) {
        workers = new CollWorkers(size);
        workers.createTeam(7, size, 0, 0, 0);
        for (int round = 0; round < 3; round++) {
            List<WorkerCommand> posts = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                posts.add(workers.send(r, barrier(7)));
            }
            for (int r = 0; r < size; r++) {
                CollNotification.PostDone done = (CollNotification.PostDone) workers.await(r, posts.get(r));
                assertThat(done.header().reasonValue())
                        .as("rank %d round %d", r, round)
                        .isEqualTo(Reason.NONE);
                assertThat(done.sequence()).isEqualTo(round);
            }
        }
    }

    @Test
    void aDestroyedTeamIsUnknown() {
        workers = new CollWorkers(2);
        workers.createTeam(9, 2, 0, 0, 0);
        for (int r = 0; r < 2; r++) {
            CollNotification.TeamDestroyDone done = (CollNotification.TeamDestroyDone)
                    workers.call(r, new CollCommand.TeamDestroy(workers.cookie(), 9));
            assertThat(done.header().reasonValue()).isEqualTo(Reason.NONE);
            assertThat(done.teamId()).isEqualTo(9);
            CollNotification.PostDone post = (CollNotification.PostDone) workers.call(r, barrier(9));
            assertThat(post.header().reasonValue()).isEqualTo(Reason.TEAM_UNKNOWN);
        }
    }

    private CollCommand.Post barrier(long team) {
        return CollCommand.Post.builder(workers.cookie(), team)
                .coll(CollType.BARRIER.code())
                .build();
    }
}
