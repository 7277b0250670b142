// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

/**
 * Peer look-ups within the domain a worker belongs to: {@code struct urom_domain_lookups_iface} in
 * Java form. The worker provides it; before a domain has started every look-up fails with {@link
 * UromStatus#NOT_FOUND}.
 *
 * <p>Called by a plugin only from the thread that drives it.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public interface DomainLookups {
    /** The address ({@code addr}) that the plugin of the peer with this domain id published. */
    byte[] address(long domainId) throws UromException;

    /** The segment of the peer's registered buffers that holds virtual address {@code va}. */
    int segment(long domainId, long va) throws UromException;

    /** The memory handle of a peer's registered segment. */
    byte[] memoryHandle(long domainId, int segment) throws UromException;

    /** The remote key of a peer's registered segment. */
    byte[] memoryKey(long domainId, int segment) throws UromException;

    /** Look-ups for a worker that is in no domain: every look-up fails with NOT_FOUND. */
    static DomainLookups none() {
        return NoDomain.INSTANCE;
    }
}
