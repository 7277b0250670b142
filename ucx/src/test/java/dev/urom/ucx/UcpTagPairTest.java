// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link UcpTagPair} between two real UCP workers in this JVM: slots reused round after round. */
class UcpTagPairTest {
    private static final long FULL_MASK = -1L;

    private final List<Memory> buffers = new ArrayList<>();
    private UcpPair workers;
    private UcpTagPair a;
    private UcpTagPair b;

    @BeforeEach
    void open() throws UcxException {
        workers = new UcpPair();
        a = workers.a.tagPair(workers.toB);
        b = workers.b.tagPair(workers.b.connect(workers.a.address()));
    }

    /** Cancels what is still posted and lets it complete, so that UCX has every request back. */
    @AfterEach
    void close() {
        a.cancelReceive();
        b.cancelReceive();
        workers.progressUntil(
                () -> {
                    a.progress();
                    b.progress();
                    return a.test() & b.test();
                },
                "the pending requests");
        a.release();
        b.release();
        workers.close();
        buffers.forEach(Memory::close);
    }

    @Test
    void theSameSlotsCarryRoundAfterRoundOfPingAndPong() {
        Memory ping = buffer(8);
        Memory atA = buffer(8);
        Memory atB = buffer(8);
        for (int round = 0; round < 50; round++) {
            ping.setLong(0, 1000 + round);
            assertThat(a.postReceive(address(atA), 8, 0x70, FULL_MASK))
                    .as("round %d", round)
                    .isEqualTo(UcpLayout.UCS_INPROGRESS);
            assertThat(b.postReceive(address(atB), 8, 0x70, FULL_MASK)).isEqualTo(UcpLayout.UCS_INPROGRESS);
            assertThat(a.postSend(address(ping), 8, 0x70)).isIn(UcpLayout.UCS_OK, UcpLayout.UCS_INPROGRESS);
            untilDone(b, "the ping of round " + round);
            assertThat(b.receiveStatus()).isEqualTo(UcpLayout.UCS_OK);
            assertThat(b.postSend(address(atB), 8, 0x70)).isIn(UcpLayout.UCS_OK, UcpLayout.UCS_INPROGRESS);
            untilDone(a, "the pong of round " + round);
            untilDone(b, "the pong's send of round " + round);
            assertThat(new int[] {a.receiveStatus(), a.sendStatus(), b.sendStatus()})
                    .containsOnly(UcpLayout.UCS_OK);
            assertThat(atA.getLong(0)).isEqualTo(1000 + round);
        }
    }

    @Test
    void aMessageLongerThanTheReceiveIsTruncatedAndOfAnotherTagIsNotTaken() {
        Memory into = buffer(4);
        assertThat(b.postReceive(address(into), 4, 0x51, FULL_MASK)).isEqualTo(UcpLayout.UCS_INPROGRESS);
        a.postSend(address(buffer(16)), 16, 0x52);
        untilDone(a, "the send of another tag");
        assertThat(b.test())
                .as("a message of another tag leaves the receive pending")
                .isFalse();

        a.postSend(address(buffer(16)), 16, 0x51);
        untilDone(b, "the longer message");
        assertThat(b.receiveStatus()).isEqualTo(UcpLayout.UCS_ERR_MESSAGE_TRUNCATED);
        b.postReceive(address(buffer(16)), 16, 0x52, FULL_MASK);
        untilDone(b, "the message of the other tag, still there");
        assertThat(b.receiveStatus()).isEqualTo(UcpLayout.UCS_OK);
    }

    @Test
    void aSlotHoldsOneRequestAtATime() {
        b.postReceive(address(buffer(8)), 8, 0x53, FULL_MASK);

        assertThatThrownBy(() -> b.postReceive(address(buffer(8)), 8, 0x53, FULL_MASK))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the receive slot still holds a request");
    }

    @Test
    void aCanceledReceiveCompletesCanceled() {
        b.postReceive(address(buffer(8)), 8, 0x54, FULL_MASK);
        b.cancelReceive();

        untilDone(b, "the canceled receive");
        assertThat(b.receiveStatus()).isEqualTo(UcpLayout.UCS_ERR_CANCELED);
    }

    /** The released receive stays posted in UCX: it takes the next message of its tag, and the slot takes a new receive. */
    @Test
    void aReleasedReceiveLeavesItsSlotEmptyAndUcxFinishesItAlone() {
        b.postReceive(address(buffer(8)), 8, 0x55, FULL_MASK);

        b.release();

        assertThat(b.pending()).isFalse();
        assertThat(b.receiveStatus()).isEqualTo(UcpLayout.UCS_ERR_CANCELED);
        Memory first = buffer(8);
        first.setLong(0, 1);
        Memory second = buffer(8);
        second.setLong(0, 2);
        a.postSend(address(first), 8, 0x55);
        untilDone(a, "the first send");
        Memory into = buffer(8);
        assertThat(b.postReceive(address(into), 8, 0x55, FULL_MASK))
                .as("the slot takes a new receive")
                .isEqualTo(UcpLayout.UCS_INPROGRESS);
        a.postSend(address(second), 8, 0x55);
        untilDone(b, "the new receive");
        assertThat(into.getLong(0)).as("the new receive got the second message").isEqualTo(2);
    }

    /** Progresses both workers until {@code pair}'s slots are done. */
    private void untilDone(UcpTagPair pair, String what) {
        workers.progressUntil(
                () -> {
                    a.progress();
                    b.progress();
                    return pair.test();
                },
                what);
    }

    private Memory buffer(int size) {
        Memory memory = new Memory(size);
        memory.clear();
        buffers.add(memory);
        return memory;
    }

    private static long address(Memory memory) {
        return Pointer.nativeValue(memory);
    }
}
