// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.auth.Principal;
import dev.urom.service.access.WorkerAccess;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Protocol;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The worker table and its entries' states, without processes. */
class WorkerTableTest {
    private static final Principal ALICE = Principal.unix(1000);
    private static final Principal BOB = Principal.unix(1001);
    private static final byte[] SECRET = "s".repeat(32).getBytes(StandardCharsets.US_ASCII);

    private final WorkerTable table = new WorkerTable(4, 2);

    private static WorkerTable.NewEntry entryOf(Principal owner) {
        return (id, serial) -> new WorkerEntry(
                id, serial, 7, 0x3, WorkerAccess.of(owner, Optional.empty(), SECRET), List.of("a", "b"));
    }

    private WorkerEntry created(long id, Principal owner) {
        WorkerTable.Claim claim = table.claim(id, owner, entryOf(owner));
        assertThat(claim).isInstanceOf(WorkerTable.Claim.Created.class);
        return ((WorkerTable.Claim.Created) claim).entry();
    }

    private Refusal refusal(long id, Principal owner) {
        WorkerTable.Claim claim = table.claim(id, owner, entryOf(owner));
        assertThat(claim).isInstanceOf(WorkerTable.Claim.Refused.class);
        return ((WorkerTable.Claim.Refused) claim).refusal();
    }

    @Test
    void anyWorkerTakesTheLowestFreeIdAndEachLaunchItsOwnSerial() {
        WorkerEntry first = created(Protocol.ANY_WORKER, ALICE);
        WorkerEntry five = created(5, BOB);
        WorkerEntry second = created(Protocol.ANY_WORKER, ALICE);

        assertThat(List.of(first.id, five.id, second.id)).containsExactly(0L, 5L, 1L);
        assertThat(List.of(first.name(), five.name(), second.name()))
                .containsExactly("worker-0-1", "worker-5-2", "worker-1-3");
        assertThat(first.phase()).isEqualTo(WorkerEntry.Phase.STARTING);
    }

    @Test
    void aTakenIdIsTheOwnersToWaitForOrJoinAndNobodyElses() {
        WorkerEntry entry = created(3, ALICE);

        WorkerTable.Claim again = table.claim(3, ALICE, entryOf(ALICE));
        assertThat(again).isEqualTo(new WorkerTable.Claim.Taken(entry, WorkerEntry.Phase.STARTING, null));
        assertThat(refusal(3, BOB))
                .isEqualTo(new Refusal(UromStatus.NOT_PERMITTED, "worker 3 belongs to another principal"));
    }

    @Test
    void theTableCapsWorkersInAllAndPerPrincipal() {
        created(0, ALICE);
        created(1, ALICE);
        assertThat(refusal(2, ALICE))
                .isEqualTo(new Refusal(
                        UromStatus.FULL,
                        "unix:1000 already has its maximum of 2 workers (--max-workers-per-principal)"));
        created(2, BOB);
        created(3, BOB);
        assertThat(refusal(4, Principal.unix(1002)))
                .isEqualTo(new Refusal(
                        UromStatus.FULL, "the daemon already runs its maximum of 4 workers (--max-workers)"));
    }

    @Test
    void aWorkerThatLeavesFreesItsIdAndEnds() {
        WorkerEntry entry = created(0, ALICE);

        table.leave(entry, null);
        table.leave(entry, null);

        assertThat(entry.phase()).isEqualTo(WorkerEntry.Phase.ENDING);
        assertThat(table.entries()).isEmpty();
        assertThat(table.holds(entry)).isFalse();
        assertThat(table.running(entry, "unix:/w.sock", () -> null))
                .as("a worker out of the table is not taken as running")
                .isFalse();
        assertThat(created(0, ALICE)).isNotSameAs(entry);
        entry.dead();
        assertThat(entry.phase()).isEqualTo(WorkerEntry.Phase.DEAD);
    }

    @Test
    void aWorkerInTheTableIsTakenAsRunningOnce() {
        WorkerEntry entry = created(0, ALICE);

        assertThat(table.running(entry, "unix:/w.sock", () -> null)).isTrue();

        assertThat(entry.phase()).isEqualTo(WorkerEntry.Phase.RUNNING);
        assertThat(entry.address()).isEqualTo("unix:/w.sock");
        assertThat(entry.info().state()).isEqualTo(WorkerInfo.State.RUNNING);
        assertThatThrownBy(() -> table.running(entry, "unix:/x.sock", () -> null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot take it as running of worker 0 (pid -1): it is RUNNING");
    }

    @Test
    void everyTransitionOutOfItsOrderIsRefused() {
        WorkerEntry entry = created(0, ALICE);

        assertThatThrownBy(entry::dead)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith("it is STARTING");
        entry.ending();
        assertThatThrownBy(entry::ending)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith("it is ENDING");
        assertThatThrownBy(() -> entry.running("unix:/w.sock", null)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> entry.spawned(null, null, null, null, null)).isInstanceOf(IllegalStateException.class);
        entry.dead();
        assertThatThrownBy(entry::dead)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith("it is DEAD");
    }

    @Test
    void aClosedTableTakesNoWorker() {
        assertThat(table.close()).isTrue();
        assertThat(table.close()).as("once").isFalse();

        assertThat(refusal(0, ALICE)).isEqualTo(new Refusal(UromStatus.SHUTDOWN, "the daemon is shutting down"));
    }
}
