// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link UcpTagSlots} between two real UCP workers: many messages in flight, slots reused, growth. */
class UcpTagSlotsTest {
    private UcpPair workers;
    private UcpTagSlots atA;
    private UcpTagSlots atB;
    private Memory source;
    private Memory target;

    @BeforeEach
    void open() throws UcxException {
        workers = new UcpPair();
        atA = workers.a.tagSlots(2);
        atB = workers.b.tagSlots(2);
        source = new Memory(64 * 8);
        target = new Memory(64 * 8);
    }

    @AfterEach
    void close() {
        workers.close();
        source.close();
        target.close();
    }

    @Test
    void manyMessagesInFlightArriveInTheirSlotsAndSlotsComeBack() {
        for (int round = 0; round < 3; round++) {
            int[] receives = new int[64];
            int[] sends = new int[64];
            for (int i = 0; i < 64; i++) {
                source.setLong(8L * i, round * 1000L + i);
                receives[i] = atB.acquire();
                assertThat(atB.postReceive(receives[i], Pointer.nativeValue(target) + 8L * i, 8, 0x55_0000L + i, -1L))
                        .isEqualTo(UcpLayout.UCS_INPROGRESS);
            }
            for (int i = 63; i >= 0; i--) {
                sends[i] = atA.acquire();
                assertThat(atA.postSend(sends[i], workers.toB, Pointer.nativeValue(source) + 8L * i, 8, 0x55_0000L + i))
                        .isIn(UcpLayout.UCS_OK, UcpLayout.UCS_INPROGRESS);
            }
            workers.progressUntil(
                    () -> {
                        boolean all = true;
                        for (int i = 0; i < 64; i++) {
                            all &= atA.test(sends[i]) != UcpLayout.UCS_INPROGRESS;
                            all &= atB.test(receives[i]) != UcpLayout.UCS_INPROGRESS;
                        }
                        return all;
                    },
                    "64 messages");
            for (int i = 0; i < 64; i++) {
                assertThat(atB.test(receives[i])).isEqualTo(UcpLayout.UCS_OK);
                assertThat(target.getLong(8L * i)).isEqualTo(round * 1000L + i);
                atA.free(sends[i]);
                atB.free(receives[i]);
            }
            assertThat(atA.inUse()).isZero();
            assertThat(atB.inUse()).isZero();
        }
    }

    @Test
    void aCancelledReceiveCompletesCanceledAndAPendingSlotCannotBeFreedOrReposted() {
        int slot = atB.acquire();
        atB.postReceive(slot, Pointer.nativeValue(target), 8, 0x99, -1L);
        assertThat(atB.pending(slot)).isTrue();
        assertThatThrownBy(() -> atB.free(slot)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> atB.postReceive(slot, Pointer.nativeValue(target), 8, 0x99, -1L))
                .isInstanceOf(IllegalStateException.class);
        atB.cancel(slot);
        workers.progressUntil(() -> atB.test(slot) != UcpLayout.UCS_INPROGRESS, "the cancel");
        assertThat(atB.test(slot)).isEqualTo(UcpLayout.UCS_ERR_CANCELED);
        atB.free(slot);
    }

    @Test
    void aLongerMessageIsTruncated() {
        int receive = atB.acquire();
        int send = atA.acquire();
        atB.postReceive(receive, Pointer.nativeValue(target), 4, 0x77, -1L);
        atA.postSend(send, workers.toB, Pointer.nativeValue(source), 8, 0x77);
        workers.progressUntil(
                () -> atB.test(receive) != UcpLayout.UCS_INPROGRESS & atA.test(send) != UcpLayout.UCS_INPROGRESS,
                "the send");
        assertThat(atB.test(receive)).isEqualTo(UcpLayout.UCS_ERR_MESSAGE_TRUNCATED);
    }
}
