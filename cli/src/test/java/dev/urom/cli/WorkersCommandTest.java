// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.host.WorkerInfo;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkersCommandTest {
    private static final WorkerInfo RUNNING = new WorkerInfo(
            12, 0, 3, WorkerInfo.State.RUNNING, 4242, 75_000, 1234, List.of("worker_graph", "worker_graph_java"));
    private static final WorkerInfo STARTING = new WorkerInfo(-1, 1, 1, WorkerInfo.State.STARTING, -1, 0, 0, List.of());

    @Test
    void theTableHasOneHeaderRowAndAlignedColumns() {
        assertThat(WorkersCommand.table(List.of(RUNNING, STARTING)))
                .containsExactly(
                        "ID                    GID  STATE     PLUGINS                         PID   UPTIME  COMMANDS",
                        "12                    0    running   worker_graph,worker_graph_java  4242  1m15s   1234",
                        "18446744073709551615  1    starting  -                               -     0s      0");
    }

    @Test
    void jsonIsAnArrayOfOneObjectPerWorkerWithUnsignedIds() throws Exception {
        assertThat(WorkersCommand.json(List.of(RUNNING, STARTING)))
                .isEqualTo(
                        "["
                                + "{\"id\":12,\"gid\":0,\"state\":\"running\",\"plugins\":[\"worker_graph\",\"worker_graph_java\"],\"pid\":4242,"
                                + "\"uptime_ms\":75000,\"commands\":1234},"
                                + "{\"id\":18446744073709551615,\"gid\":1,\"state\":\"starting\",\"plugins\":[],\"pid\":null,\"uptime_ms\":0,\"commands\":0}]");
        assertThat(WorkersCommand.json(List.of())).isEqualTo("[]");
    }

    @Test
    void uptimeShowsTheTwoLargestUnits() {
        assertThat(WorkersCommand.uptime(Duration.ofMillis(999))).isEqualTo("0s");
        assertThat(WorkersCommand.uptime(Duration.ofSeconds(59))).isEqualTo("59s");
        assertThat(WorkersCommand.uptime(Duration.ofSeconds(185))).isEqualTo("3m05s");
        assertThat(WorkersCommand.uptime(Duration.ofSeconds(2 * 3600 + 7 * 60 + 9)))
                .isEqualTo("2h07m");
        assertThat(WorkersCommand.uptime(Duration.ofHours(76))).isEqualTo("3d04h");
    }
}
