// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.domain;

import static java.util.Objects.requireNonNull;

import dev.urom.wire.DomainPeer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The domain a worker belongs to: every peer by domain id, and which one is this worker.
 * Immutable and thread-safe (the byte arrays of the peers are shared, never changed).
 */
public final class DomainTable {
    private final long ownDomainId;
    private final Map<Long, DomainPeer> peers;

    private DomainTable(long ownDomainId, Map<Long, DomainPeer> peers) {
        this.ownDomainId = ownDomainId;
        this.peers = peers;
    }

    /**
     * Checks and builds a table.
     *
     * @throws IllegalArgumentException (one line) when two peers share a domain id, or when {@code
     *     ownDomainId} is not among the peers
     */
    public static DomainTable of(long ownDomainId, List<DomainPeer> peers) {
        requireNonNull(peers, "peers is null");
        Map<Long, DomainPeer> byId = new LinkedHashMap<>();
        for (DomainPeer peer : peers) {
            if (byId.putIfAbsent(peer.domainId(), peer) != null) {
                throw new IllegalArgumentException(
                        "domain id " + Long.toUnsignedString(peer.domainId()) + " appears twice in the domain table");
            }
        }
        if (!byId.containsKey(ownDomainId)) {
            throw new IllegalArgumentException("own domain id " + Long.toUnsignedString(ownDomainId)
                    + " is not in the domain table (" + byId.size() + " peers)");
        }
        return new DomainTable(ownDomainId, byId);
    }

    public long ownDomainId() {
        return ownDomainId;
    }

    /** The peer with this domain id. */
    public Optional<DomainPeer> peer(long domainId) {
        return Optional.ofNullable(peers.get(domainId));
    }

    public int size() {
        return peers.size();
    }
}
