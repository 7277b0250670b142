// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Two UCP contexts and workers in this JVM, A with an endpoint to B. {@link #close} closes all. */
final class UcpPair implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final long WARM_UP_TAG = 0x7e57_0000_0000L;

    final UcpContext contextA;
    final UcpContext contextB;
    final UcpWorker a;
    final UcpWorker b;
    final UcpEndpoint toB;

    UcpPair() throws UcxException {
        contextA = UcpContext.open();
        contextB = UcpContext.open();
        a = UcpWorker.open(contextA);
        b = UcpWorker.open(contextB);
        toB = a.connect(b.address());
    }

    /** Exchanges one message A to B, so that the endpoint is wired up and B knows A. */
    void connected() {
        try (Memory one = new Memory(1)) {
            one.setByte(0, (byte) 1);
            UcpRequest receive = b.tagReceive(one, 1, WARM_UP_TAG, -1L);
            UcpRequest send = a.tagSend(toB, one, 1, WARM_UP_TAG);
            progressUntil(
                    () -> send.poll() != UcpLayout.UCS_INPROGRESS & receive.poll() != UcpLayout.UCS_INPROGRESS,
                    "the warm-up message");
        }
    }

    /** Progresses both workers until {@code done} holds; fails after {@link #TIMEOUT}. */
    void progressUntil(BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!done.getAsBoolean()) {
            a.progress();
            b.progress();
            assertThat(System.nanoTime() - deadline)
                    .as("%s within %s", what, TIMEOUT)
                    .isNegative();
        }
    }

    /** Progresses until {@code request} completed; its status. */
    int complete(UcpRequest request) {
        int[] status = new int[1];
        progressUntil(() -> (status[0] = request.poll()) != UcpLayout.UCS_INPROGRESS, "the request completed");
        return status[0];
    }

    @Override
    public void close() {
        a.close();
        b.close();
        contextA.close();
        contextB.close();
    }
}
