// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.DomainPeer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkerDomainTest {
    private static final long PLUGIN_A = 0x2;
    private static final long PLUGIN_B = 0x8;

    private static DomainPeer peer(long domainId, String a, String b, DomainPeer.Segment... segments) {
        return new DomainPeer(
                domainId,
                List.of(
                        new DomainPeer.PluginAddress(PLUGIN_A, a.getBytes(), new byte[0]),
                        new DomainPeer.PluginAddress(PLUGIN_B, b.getBytes(), new byte[0])),
                List.of(segments));
    }

    private static void assertNotFound(ThrowingLookup lookup) {
        assertThatThrownBy(lookup::run)
                .isInstanceOf(UromException.class)
                .satisfies(e -> assertThat(((UromException) e).status()).isEqualTo(UromStatus.NOT_FOUND));
    }

    interface ThrowingLookup {
        void run() throws UromException;
    }

    @Test
    void beforeATableEveryLookUpIsNotFound() {
        DomainLookups lookups = new WorkerDomain().lookupsFor(PLUGIN_A);
        assertNotFound(() -> lookups.address(1));
        assertNotFound(() -> lookups.segment(1, 0));
        assertNotFound(() -> lookups.memoryHandle(1, 0));
        assertNotFound(() -> lookups.memoryKey(1, 0));
    }

    @Test
    void eachPluginSeesTheAddressesOfTheSamePluginAndALaterTableReplacesTheFirst() throws UromException {
        WorkerDomain domain = new WorkerDomain();
        DomainLookups a = domain.lookupsFor(PLUGIN_A);
        DomainLookups b = domain.lookupsFor(PLUGIN_B);
        domain.install(DomainTable.of(10, List.of(peer(10, "a10", "b10"), peer(11, "a11", "b11"))));

        assertThat(a.address(11)).asString().isEqualTo("a11");
        assertThat(b.address(11)).asString().isEqualTo("b11");
        assertThat(a.address(10)).asString().isEqualTo("a10");
        assertNotFound(() -> a.address(12));
        assertNotFound(() -> domain.lookupsFor(0x40).address(11));

        domain.install(DomainTable.of(10, List.of(peer(10, "x10", "y10"), peer(12, "x12", "y12"))));
        assertThat(a.address(12)).asString().isEqualTo("x12");
        assertNotFound(() -> a.address(11));
    }

    private static DomainPeer.PluginAddress at(long pluginId, String address, String transport) {
        return new DomainPeer.PluginAddress(pluginId, address.getBytes(), transport, new byte[0]);
    }

    private static WorkerDomain domainOf(DomainPeer... others) {
        WorkerDomain domain = new WorkerDomain();
        List<DomainPeer> peers = new ArrayList<>(List.of(others));
        peers.add(peer(10, "a10", "b10"));
        domain.install(DomainTable.of(10, peers));
        return domain;
    }

    private static void assertNotFound(ThrowingLookup lookup, String message) {
        assertThatThrownBy(lookup::run)
                .isInstanceOf(UromException.class)
                .hasMessage(message)
                .satisfies(e -> assertThat(((UromException) e).status()).isEqualTo(UromStatus.NOT_FOUND));
    }

    @Test
    void theSamePluginIdWinsOverAnAddressOfTheSameTransport() throws UromException {
        WorkerDomain domain = domainOf(
                new DomainPeer(21, List.of(at(PLUGIN_B, "b21", "ucp-tag"), at(PLUGIN_A, "a21", "unix")), List.of()));
        assertThat(domain.lookupsFor(PLUGIN_A, Optional.of("ucp-tag")).address(21))
                .asString()
                .isEqualTo("a21");
    }

    @Test
    void anotherPluginsAddressOfTheSameTransportIsFound() throws UromException {
        WorkerDomain domain = domainOf(
                new DomainPeer(21, List.of(at(PLUGIN_B, "b21", "ucp-tag"), at(0x40, "c21", "tcp")), List.of()));
        assertThat(domain.lookupsFor(PLUGIN_A, Optional.of("ucp-tag")).address(21))
                .asString()
                .as("the C and the Java sandbox plugins peer this way")
                .isEqualTo("b21");
        assertThat(domain.lookupsFor(PLUGIN_A, Optional.of("tcp")).address(21))
                .asString()
                .isEqualTo("c21");
        assertNotFound(
                () -> domain.lookupsFor(PLUGIN_A, Optional.of("ucp-tag-2")).address(21),
                "the peer with domain id 21 published no address of transport ucp-tag-2 and none for plugin id 0x2");
        assertNotFound(
                () -> domain.lookupsFor(PLUGIN_A, Optional.of("ucp")).address(21),
                "the peer with domain id 21 published no address of transport ucp and none for plugin id 0x2");
    }

    @Test
    void twoAddressesOfTheSameTransportAreNotFound() {
        WorkerDomain domain = domainOf(
                new DomainPeer(21, List.of(at(PLUGIN_B, "b21", "ucp-tag"), at(0x40, "c21", "ucp-tag")), List.of()));
        assertNotFound(
                () -> domain.lookupsFor(PLUGIN_A, Optional.of("ucp-tag")).address(21),
                "the peer with domain id 21 published 2 addresses of transport ucp-tag and none for plugin id 0x2");
    }

    @Test
    void aPluginWithoutATransportNeverGetsAnotherPluginsAddress() {
        WorkerDomain domain = domainOf(
                new DomainPeer(21, List.of(at(PLUGIN_B, "b21", "")), List.of()),
                new DomainPeer(22, List.of(at(PLUGIN_B, "b22", "ucp-tag")), List.of()));
        String none = "the peer with domain id 21 published no address for plugin id 0x2 (which names no transport)";
        assertNotFound(() -> domain.lookupsFor(PLUGIN_A).address(21), none);
        assertNotFound(() -> domain.lookupsFor(PLUGIN_A, Optional.empty()).address(21), none);
        assertNotFound(
                () -> domain.lookupsFor(PLUGIN_A, Optional.empty()).address(22),
                "the peer with domain id 22 published no address for plugin id 0x2 (which names no transport)");
    }

    @Test
    void anAddressWithoutATransportIsNeverHandedToAPluginOfAnotherId() {
        WorkerDomain domain = domainOf(new DomainPeer(21, List.of(at(PLUGIN_B, "b21", "")), List.of()));
        assertNotFound(
                () -> domain.lookupsFor(PLUGIN_A, Optional.of("ucp-tag")).address(21),
                "the peer with domain id 21 published no address of transport ucp-tag and none for plugin id 0x2");
    }

    @Test
    void segmentsAreFoundByAddressAndGiveTheirHandleAndKey() throws UromException {
        WorkerDomain domain = new WorkerDomain();
        DomainPeer.Segment first = new DomainPeer.Segment(0x1000, 0x100, new byte[] {1}, new byte[] {2});
        DomainPeer.Segment second = new DomainPeer.Segment(0x2000, 0x10, new byte[] {3, 3}, new byte[] {4, 4});
        domain.install(DomainTable.of(1, List.of(peer(1, "a", "b", first, second))));
        DomainLookups lookups = domain.lookupsFor(PLUGIN_A);

        assertThat(lookups.segment(1, 0x1000)).isZero();
        assertThat(lookups.segment(1, 0x10ff)).isZero();
        assertThat(lookups.segment(1, 0x2008)).isEqualTo(1);
        assertNotFound(() -> lookups.segment(1, 0x1100));
        assertNotFound(() -> lookups.segment(1, 0x2010));
        assertThat(lookups.memoryHandle(1, 1)).containsExactly(3, 3);
        assertThat(lookups.memoryKey(1, 0)).containsExactly(2);
        assertNotFound(() -> lookups.memoryKey(1, 2));
        assertNotFound(() -> lookups.memoryHandle(2, 0));
    }

    @Test
    void aTableWithoutItsOwnIdOrWithADuplicateIdIsRefused() {
        assertThatThrownBy(() -> DomainTable.of(5, List.of(peer(1, "a", "b"), peer(2, "a", "b"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("own domain id 5 is not in the domain table (2 peers)");
        assertThatThrownBy(() -> DomainTable.of(1, List.of(peer(1, "a", "b"), peer(1, "c", "d"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("domain id 1 appears twice in the domain table");
    }
}
