// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class GraphMessageTest {
    @Property
    void decodeReadsWhatEncodeWrote(@ForAll long type, @ForAll long data) throws UromException {
        assertThat(GraphMessage.decode(new GraphMessage(type, data).encode())).isEqualTo(new GraphMessage(type, data));
    }

    @Property
    void encodeWritesTwoLittleEndianWords(@ForAll long type, @ForAll long data) {
        byte[] bytes = new GraphMessage(type, data).encode();

        assertThat(bytes).hasSize(GraphMessage.BYTES);
        for (int i = 0; i < 8; i++) {
            assertThat(bytes[i]).as("type byte %d", i).isEqualTo((byte) (type >>> (8 * i)));
            assertThat(bytes[8 + i]).as("data byte %d", i).isEqualTo((byte) (data >>> (8 * i)));
        }
    }

    @Property
    void encodeIsTheInverseOfDecode(@ForAll @Size(16) byte[] payload) throws UromException {
        assertThat(GraphMessage.decode(payload).encode()).isEqualTo(payload);
    }

    @Property
    void decodeRefusesEveryOtherLengthWithInvalidValue(@ForAll @Size(max = 64) byte[] payload) {
        Assume.that(payload.length != GraphMessage.BYTES);

        assertThatThrownBy(() -> GraphMessage.decode(payload))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE))
                .hasMessageContaining(payload.length + " bytes")
                .hasMessageContaining("exactly 16 bytes");
    }

    @Property
    void onlyTypeZeroIsLoopback(@ForAll long type) {
        assertThat(new GraphMessage(type, 1).isLoopback()).isEqualTo(type == 0);
    }
}
