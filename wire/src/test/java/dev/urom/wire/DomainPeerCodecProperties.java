// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class DomainPeerCodecProperties {

    @Provide
    Arbitrary<DomainPeer> peers() {
        return WireArbitraries.domainPeers();
    }

    @Property
    void peersSurviveEncodeThenDecodeWhateverThePadding(
            @ForAll @Size(max = 4) List<@net.jqwik.api.From("peers") DomainPeer> peers,
            @ForAll @IntRange(max = 40) int padding)
            throws WireException {
        byte[] block = FrameCodec.encodeDomainPeers(peers);
        byte[] padded = Arrays.copyOf(block, block.length + padding);

        assertThat(FrameCodec.decodeDomainPeers(padded, block.length)).isEqualTo(peers);
    }

    @Property
    void aTruncatedBlockIsRefused(
            @ForAll @Size(min = 1, max = 4) List<@net.jqwik.api.From("peers") DomainPeer> peers,
            @ForAll @IntRange(min = 1, max = 1000) int cut) {
        byte[] block = FrameCodec.encodeDomainPeers(peers);
        int length = Math.max(0, block.length - Math.min(cut, block.length));

        assertThatThrownBy(() -> FrameCodec.decodeDomainPeers(block, length)).isInstanceOf(WireException.class);
    }
}
