package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.UromStatus;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FailureMessageTest {
    @Test
    void aTextPayloadIsTheMessage() {
        assertThat(FailureMessage.describe(UromStatus.NOT_FOUND, "no node 7 — try één".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("NOT_FOUND: no node 7 — try één");
    }

    @Test
    void anEmptyBinaryOrInvalidUtf8PayloadIsNoMessage() {
        assertThat(FailureMessage.describe(UromStatus.INVALID_VALUE, new byte[0])).isEqualTo("INVALID_VALUE");
        assertThat(FailureMessage.describe(UromStatus.INVALID_VALUE, new byte[8])).isEqualTo("INVALID_VALUE");
        assertThat(FailureMessage.describe(UromStatus.INVALID_VALUE, new byte[] {'a', (byte) 0xc3})).isEqualTo("INVALID_VALUE");
        assertThat(FailureMessage.describe(UromStatus.INVALID_VALUE, "two\nlines".getBytes(StandardCharsets.UTF_8))).isEqualTo("INVALID_VALUE");
        assertThat(FailureMessage.describe(UromStatus.INVALID_VALUE, "   ".getBytes(StandardCharsets.UTF_8))).isEqualTo("INVALID_VALUE");
    }
}
