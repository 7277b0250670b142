// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.host.Notification;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class GraphClientTest {
    @Test
    void aLoopbackCommandIsTypeZeroThenTheValueLittleEndian() {
        byte[] command = GraphClient.loopbackCommand(0x0102030405060708L);
        assertThat(command).hasSize(GraphClient.MESSAGE_BYTES);
        ByteBuffer in = ByteBuffer.wrap(command).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(in.getLong()).isEqualTo(GraphClient.LOOPBACK);
        assertThat(in.getLong()).isEqualTo(0x0102030405060708L);
    }

    @Test
    void theEchoOfAnAnswerIsItsValue() {
        assertThat(GraphClient.echoedValue(answer(UromStatus.SUCCESS, GraphClient.loopbackCommand(-5L))))
                .isEqualTo(-5L);
    }

    @Test
    void aFailedAnswerCompletesExceptionallyWithItsStatus() {
        assertThatThrownBy(() -> GraphClient.echoedValue(answer(UromStatus.NOT_FOUND, new byte[0])))
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND))
                .hasMessage("graph LOOPBACK failed: NOT_FOUND");
    }

    @Test
    void anAnswerOfTheWrongShapeIsUnexpected() {
        assertThatThrownBy(() -> GraphClient.echoedValue(answer(UromStatus.SUCCESS, new byte[8])))
                .cause()
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.UNEXPECTED))
                .hasMessage("graph LOOPBACK answer has 8 bytes; expected 16");
        byte[] otherType = ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(3)
                .putLong(1)
                .array();
        assertThatThrownBy(() -> GraphClient.echoedValue(answer(UromStatus.SUCCESS, otherType)))
                .cause()
                .hasMessage("graph answer has type 3 instead of LOOPBACK (0)");
    }

    private static Notification answer(UromStatus status, byte[] payload) {
        return new Notification(status, payload, new byte[0]);
    }
}
