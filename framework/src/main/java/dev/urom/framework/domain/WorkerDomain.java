// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.domain;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.DomainPeer;
import java.util.List;
import java.util.Optional;

/**
 * The domain of one worker process as its plugins see it: a live view that answers each plugin's
 * look-ups from the table installed last. Before any table is installed every look-up fails with
 * NOT_FOUND; {@link #install} replaces the table as a whole.
 *
 * <p>Thread-safe: the table is swapped atomically, look-ups read whichever table is current.
 * Look-ups throw {@link UromException} (NOT_FOUND, or INVALID_VALUE for a negative segment index)
 * and nothing else.
 */
public final class WorkerDomain {
    private volatile DomainTable table;

    /** Makes {@code newTable} the domain from now on. */
    public void install(DomainTable newTable) {
        table = requireNonNull(newTable, "newTable is null");
    }

    /**
     * The look-ups of the plugin with {@code pluginId}, which named no transport: an address is
     * only ever the one the same plugin id published at that peer.
     */
    public DomainLookups lookupsFor(long pluginId) {
        return new PluginView(pluginId, Optional.empty());
    }

    /**
     * The look-ups of the plugin with {@code pluginId} that named {@code transport} (empty: none).
     * The address of domain id D is the one the same plugin id published at D; otherwise, when the
     * plugin names a transport, the one address at D whose plugin named the same transport, if
     * exactly one did; otherwise NOT_FOUND. An address of a plugin that named no transport, or
     * another one, is never handed to a plugin of another id.
     */
    public DomainLookups lookupsFor(long pluginId, Optional<String> transport) {
        return new PluginView(pluginId, requireNonNull(transport, "transport is null"));
    }

    private DomainPeer peer(long domainId) throws UromException {
        DomainTable current = table;
        if (current == null) {
            throw new UromException(UromStatus.NOT_FOUND, "this worker is in no domain yet");
        }
        return current.peer(domainId)
                .orElseThrow(() -> new UromException(
                        UromStatus.NOT_FOUND,
                        "no peer with domain id " + Long.toUnsignedString(domainId) + " in this worker's domain"));
    }

    private DomainPeer.Segment segmentAt(long domainId, int index) throws UromException {
        if (index < 0) {
            throw new UromException(UromStatus.INVALID_VALUE, "segment index " + index + " is negative");
        }
        List<DomainPeer.Segment> segments = peer(domainId).segments();
        if (index >= segments.size()) {
            throw new UromException(
                    UromStatus.NOT_FOUND,
                    "domain id " + Long.toUnsignedString(domainId) + " has " + segments.size()
                            + " segments; there is no segment " + index);
        }
        return segments.get(index);
    }

    private final class PluginView implements DomainLookups {
        private final long pluginId;
        private final Optional<String> transport;

        PluginView(long pluginId, Optional<String> transport) {
            this.pluginId = pluginId;
            this.transport = transport;
        }

        @Override
        public byte[] address(long domainId) throws UromException {
            List<DomainPeer.PluginAddress> addresses = peer(domainId).addresses();
            for (DomainPeer.PluginAddress a : addresses) {
                if (a.pluginId() == pluginId) {
                    return a.address();
                }
            }
            String at = "the peer with domain id " + Long.toUnsignedString(domainId);
            if (transport.isEmpty()) {
                throw new UromException(
                        UromStatus.NOT_FOUND,
                        at + " published no address for plugin id 0x" + Long.toHexString(pluginId)
                                + " (which names no transport)");
            }
            DomainPeer.PluginAddress match = null;
            int matches = 0;
            for (DomainPeer.PluginAddress a : addresses) {
                if (a.transport().equals(transport.get())) {
                    match = a;
                    matches++;
                }
            }
            if (matches == 1) {
                return match.address();
            }
            throw new UromException(
                    UromStatus.NOT_FOUND,
                    at + " published " + (matches == 0 ? "no address" : matches + " addresses") + " of transport "
                            + transport.get() + " and none for plugin id 0x" + Long.toHexString(pluginId));
        }

        @Override
        public int segment(long domainId, long va) throws UromException {
            List<DomainPeer.Segment> segments = peer(domainId).segments();
            for (int i = 0; i < segments.size(); i++) {
                if (segments.get(i).holds(va)) {
                    return i;
                }
            }
            throw new UromException(
                    UromStatus.NOT_FOUND,
                    "no segment of domain id " + Long.toUnsignedString(domainId) + " holds address 0x"
                            + Long.toHexString(va));
        }

        @Override
        public byte[] memoryHandle(long domainId, int segment) throws UromException {
            return segmentAt(domainId, segment).memh();
        }

        @Override
        public byte[] memoryKey(long domainId, int segment) throws UromException {
            return segmentAt(domainId, segment).mkey();
        }
    }
}
