// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.urom.wire.DomainPeer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A domain's peers as DOMAIN_SET carries them, shown in the host API's own records. */
class DomainPeersTest {
    @Test
    void aPeerKeepsItsIdItsAddressesAndItsBuffersButNotTheSeals() {
        byte[] address = {1, 2, 3};
        byte[] memh = {4};
        DomainPeer onWire = new DomainPeer(
                9,
                List.of(
                        new DomainPeer.PluginAddress(0x2, address, "ucx", new byte[] {7, 7}),
                        new DomainPeer.PluginAddress(0x4, new byte[] {5}, new byte[] {8})),
                List.of(new DomainPeer.Segment(0x1000, 64, memh, new byte[] {6})));

        Domain.Peer peer = Domain.peer(onWire);

        assertThat(peer.domainId()).isEqualTo(9);
        assertThat(peer.addresses())
                .extracting(Domain.PeerAddress::pluginId, Domain.PeerAddress::transport)
                .containsExactly(tuple(0x2L, "ucx"), tuple(0x4L, ""));
        assertThat(peer.addresses().get(0).address()).containsExactly(1, 2, 3).isNotSameAs(address);
        assertThat(peer.buffers()).singleElement().satisfies(b -> {
            assertThat(b.va()).isEqualTo(0x1000);
            assertThat(b.length()).isEqualTo(64);
            assertThat(b.memh()).containsExactly(4).isNotSameAs(memh);
            assertThat(b.mkey()).containsExactly(6);
        });
    }
}
