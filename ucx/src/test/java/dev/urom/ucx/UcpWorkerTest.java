// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two real UCP workers in this JVM: tag sends and receives, immediate completion, truncation, wake-up. */
class UcpWorkerTest {
    private final List<Memory> buffers = new ArrayList<>();
    private UcpPair pair;

    @BeforeEach
    void open() throws UcxException {
        pair = new UcpPair();
    }

    @AfterEach
    void close() {
        pair.close();
        buffers.forEach(Memory::close);
    }

    @Test
    void aWorkerAddressIsOpaqueBytesOfItsOwn() throws UcxException {
        assertThat(pair.a.address()).isNotEmpty().isNotEqualTo(pair.b.address());
        assertThat(pair.a.address()).isEqualTo(pair.a.address());
    }

    @Test
    void aPostedReceiveTakesAMessageWithItsTagAndLength() {
        Memory into = buffer(64);
        UcpRequest receive = pair.b.tagReceive(into, 64, 0x1234, 0xffff);
        assertThat(receive.poll()).isEqualTo(UcpLayout.UCS_INPROGRESS);

        UcpRequest send = pair.a.tagSend(pair.toB, bytes(1, 2, 3, 4, 5), 5, 0xAB_1234L);

        assertThat(pair.complete(send)).isEqualTo(UcpLayout.UCS_OK);
        assertThat(pair.complete(receive)).isEqualTo(UcpLayout.UCS_OK);
        assertThat(receive.senderTag()).isEqualTo(0xAB_1234L);
        assertThat(receive.length()).isEqualTo(5);
        assertThat(into.getByteArray(0, 5)).containsExactly(1, 2, 3, 4, 5);
    }

    @Test
    void aReceiveOfAMessageAlreadyThereCompletesAtOnce() {
        pair.connected();
        UcpRequest send = pair.a.tagSend(pair.toB, bytes(9, 8, 7), 3, 0x77);
        assertThat(send.inProgress())
                .as("a short eager send on a connected endpoint completes at once")
                .isFalse();
        assertThat(send.poll()).isEqualTo(UcpLayout.UCS_OK);

        Memory into = buffer(8);
        UcpRequest receive = receiveOnceArrived(into, 8, 0x77);

        assertThat(receive.poll()).isEqualTo(UcpLayout.UCS_OK);
        assertThat(receive.senderTag()).isEqualTo(0x77);
        assertThat(receive.length()).isEqualTo(3);
        assertThat(into.getByteArray(0, 3)).containsExactly(9, 8, 7);
    }

    @Test
    void aMessageLongerThanAPostedReceiveIsTruncatedWithItsTag() {
        UcpRequest receive = pair.b.tagReceive(buffer(4), 4, 0x51, -1L);
        pair.complete(pair.a.tagSend(pair.toB, bytes(1, 2, 3, 4, 5, 6), 6, 0x51));

        assertThat(pair.complete(receive)).isEqualTo(UcpLayout.UCS_ERR_MESSAGE_TRUNCATED);
        assertThat(receive.senderTag()).isEqualTo(0x51);
    }

    @Test
    void aMessageAlreadyThereThatIsTooLongIsTruncatedAtOnce() {
        pair.complete(pair.a.tagSend(pair.toB, bytes(1, 2, 3, 4, 5, 6), 6, 0x52));

        UcpRequest receive = receiveOnceArrived(buffer(4), 4, 0x52);

        assertThat(receive.poll()).isEqualTo(UcpLayout.UCS_ERR_MESSAGE_TRUNCATED);
        assertThat(receive.senderTag()).isEqualTo(0x52);
    }

    @Test
    void messagesGoToTheOldestMatchingReceiveUnderItsMask() {
        UcpRequest exact = pair.b.tagReceive(buffer(8), 8, 0xAB_1234L, -1L);
        UcpRequest low = pair.b.tagReceive(buffer(8), 8, 0xFF_1234L, 0xffff);

        pair.complete(pair.a.tagSend(pair.toB, bytes(7), 1, 0x77_1234L));
        pair.complete(pair.a.tagSend(pair.toB, bytes(8), 1, 0xAB_1234L));

        assertThat(pair.complete(low)).isEqualTo(UcpLayout.UCS_OK);
        assertThat(low.senderTag()).isEqualTo(0x77_1234L);
        assertThat(pair.complete(exact)).isEqualTo(UcpLayout.UCS_OK);
        assertThat(exact.senderTag()).isEqualTo(0xAB_1234L);
    }

    @Test
    void aLargeMessageArrivesWhole() {
        int size = 4 << 20;
        Memory from = buffer(size);
        for (int i = 0; i < size; i += 4) {
            from.setInt(i, i * 31);
        }
        Memory into = buffer(size);
        UcpRequest receive = pair.b.tagReceive(into, size, 3, -1L);
        UcpRequest send = pair.a.tagSend(pair.toB, from, size, 3);

        pair.progressUntil(
                () -> send.poll() != UcpLayout.UCS_INPROGRESS & receive.poll() != UcpLayout.UCS_INPROGRESS,
                "both completed");

        assertThat(new int[] {send.poll(), receive.poll()}).containsExactly(UcpLayout.UCS_OK, UcpLayout.UCS_OK);
        assertThat(receive.length()).isEqualTo(size);
        assertThat(into.getByteArray(0, size)).isEqualTo(from.getByteArray(0, size));
    }

    @Test
    void aCanceledReceiveCompletesCanceledAndTakesNothing() {
        UcpRequest receive = pair.b.tagReceive(buffer(8), 8, 0x99, -1L);
        receive.cancel();

        assertThat(pair.complete(receive)).isEqualTo(UcpLayout.UCS_ERR_CANCELED);
        assertThat(receive.inProgress()).isFalse();
    }

    @Test
    void theEventFdBecomesReadableWhenAMessageArrivesAndArmIsBusyUntilItIsProgressed() throws UcxException {
        pair.connected();
        int fd = pair.b.eventFd();
        assertThat(fd).isNotNegative();
        UcpRequest receive = pair.b.tagReceive(buffer(8), 8, 0x42, -1L);
        armed(pair.b);
        assertThat(Poll.readable(fd, 0)).as("nothing arrived yet").isFalse();
        assertThat(pair.b.arm()).as("armed again with nothing pending").isTrue();

        UcpRequest send = pair.a.tagSend(pair.toB, bytes(4, 2), 2, 0x42);
        long deadline = System.nanoTime() + UcpPair.TIMEOUT.toNanos();
        while (send.poll() == UcpLayout.UCS_INPROGRESS) {
            pair.a.progress();
            assertThat(System.nanoTime() - deadline)
                    .as("the send completed in time")
                    .isNegative();
        }

        assertThat(Poll.readable(fd, (int) UcpPair.TIMEOUT.toMillis()))
                .as("B's event fd after the message was sent")
                .isTrue();
        // Over shared memory UCX answers BUSY; over TCP it arms and the socket keeps the descriptor readable.
        assertThat(!pair.b.arm() || Poll.readable(fd, 0))
                .as("arm is BUSY, or the descriptor stays readable, while the message waits")
                .isTrue();
        while (receive.poll() == UcpLayout.UCS_INPROGRESS) {
            pair.b.progress();
            assertThat(System.nanoTime() - deadline)
                    .as("the receive completed in time")
                    .isNegative();
        }
        assertThat(receive.senderTag()).isEqualTo(0x42);
    }

    @Test
    void anEmptyAddressIsRefused() {
        assertThatThrownBy(() -> pair.a.connect(new byte[0]))
                .isInstanceOf(UcxException.class)
                .hasMessage("ucp_ep_create refused: the remote worker address is empty");
    }

    @Test
    void anEndpointToAClosedWorkerFailsItsSendsAndIsReported() throws UcxException {
        pair.complete(pair.a.tagSend(pair.toB, bytes(1), 1, 1));
        pair.b.close();

        int size = 1 << 20;
        Memory from = buffer(size);
        long deadline = System.nanoTime() + UcpPair.TIMEOUT.toNanos();
        int status = UcpLayout.UCS_OK;
        while (status == UcpLayout.UCS_OK) {
            UcpRequest send = pair.a.tagSend(pair.toB, from, size, 1);
            while ((status = send.poll()) == UcpLayout.UCS_INPROGRESS) {
                pair.a.progress();
                assertThat(System.nanoTime() - deadline)
                        .as("the send to a closed worker failed in time")
                        .isNegative();
            }
        }
        assertThat(status).as(Ucx.describe(status)).isNegative();
        while (pair.toB.failure() == 0) {
            pair.a.progress();
            assertThat(System.nanoTime() - deadline)
                    .as("the endpoint's error was reported in time")
                    .isNegative();
        }
        assertThat(pair.a.takeFailedEndpoints()).containsExactly(pair.toB);
        assertThat(pair.a.takeFailedEndpoints()).isEmpty();
        pair.toB.close(false);
        assertThat(pair.toB.closed()).isTrue();
    }

    @Test
    void aSendInFlightWhenThePeerCloseFailsAndTheEndpointIsReported() {
        pair.connected();
        int size = 1 << 20;
        UcpRequest send = pair.a.tagSend(pair.toB, buffer(size), size, 5);
        for (int i = 0; i < 100; i++) {
            pair.a.progress();
        }
        assertThat(send.poll()).as("a rendezvous send waits for the receiver").isEqualTo(UcpLayout.UCS_INPROGRESS);

        pair.b.close();

        long deadline = System.nanoTime() + UcpPair.TIMEOUT.toNanos();
        int status;
        while ((status = send.poll()) == UcpLayout.UCS_INPROGRESS) {
            pair.a.progress();
            assertThat(System.nanoTime() - deadline)
                    .as("the send failed in time")
                    .isNegative();
        }
        assertThat(status).as(Ucx.describe(status)).isNegative();
        assertThat(pair.a.takeFailedEndpoints()).containsExactly(pair.toB);
        pair.toB.close(true);
        for (int i = 0; i < 10; i++) {
            pair.a.progress();
        }
    }

    /** Progresses B until a receive for {@code tag} is complete the moment it is posted. */
    private UcpRequest receiveOnceArrived(Memory into, long length, long tag) {
        long deadline = System.nanoTime() + UcpPair.TIMEOUT.toNanos();
        while (true) {
            pair.a.progress();
            pair.b.progress();
            UcpRequest receive = pair.b.tagReceive(into, length, tag, -1L);
            if (receive.poll() != UcpLayout.UCS_INPROGRESS) {
                return receive;
            }
            receive.cancel();
            assertThat(receive.poll())
                    .as("a receive canceled before any progress")
                    .isEqualTo(UcpLayout.UCS_ERR_CANCELED);
            assertThat(System.nanoTime() - deadline)
                    .as("the message reached B in time")
                    .isNegative();
        }
    }

    private static void armed(UcpWorker worker) throws UcxException {
        long deadline = System.nanoTime() + UcpPair.TIMEOUT.toNanos();
        while (!worker.arm()) {
            worker.progress();
            assertThat(System.nanoTime() - deadline)
                    .as("the worker armed in time")
                    .isNegative();
        }
    }

    private Memory buffer(int size) {
        Memory memory = new Memory(size);
        memory.clear();
        buffers.add(memory);
        return memory;
    }

    private Memory bytes(int... values) {
        Memory memory = buffer(values.length);
        for (int i = 0; i < values.length; i++) {
            memory.setByte(i, (byte) values[i]);
        }
        return memory;
    }

    /** {@code poll(2)} on one descriptor through JNA. */
    static final class Poll {
        private static final short POLLIN = 1;

        static {
            Native.register(Poll.class, "c");
        }

        private static native int poll(Memory fds, long nfds, int timeout);

        /** Whether {@code fd} is readable within {@code timeoutMillis}. */
        static boolean readable(int fd, int timeoutMillis) {
            try (Memory pollfd = new Memory(8)) {
                pollfd.setInt(0, fd);
                pollfd.setShort(4, POLLIN);
                pollfd.setShort(6, (short) 0);
                int ready = poll(pollfd, 1, timeoutMillis);
                assertThat(ready).as("poll(2) of fd %d", fd).isNotNegative();
                return ready == 1 && (pollfd.getShort(6) & POLLIN) != 0;
            }
        }
    }
}
