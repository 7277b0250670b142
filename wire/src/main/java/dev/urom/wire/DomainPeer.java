// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.spi.TransportName;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One worker of a domain as DOMAIN_SET carries it: its domain id, the address each of its plugins
 * published (with its worker's seal), and the registered buffers of its host.
 *
 * <p>Immutable, except that byte arrays are not copied: whoever builds one hands its arrays over.
 * {@code equals} compares array contents.
 *
 * @throws IllegalArgumentException (constructor) when two addresses name the same plugin id
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public record DomainPeer(long domainId, List<PluginAddress> addresses, List<Segment> segments) {
    public DomainPeer {
        addresses = List.copyOf(requireNonNull(addresses, "addresses is null"));
        segments = List.copyOf(requireNonNull(segments, "segments is null"));
        Set<Long> ids = new HashSet<>();
        for (PluginAddress a : addresses) {
            if (!ids.add(a.pluginId())) {
                throw new IllegalArgumentException("domain id " + Long.toUnsignedString(domainId)
                        + " lists plugin id 0x" + Long.toHexString(a.pluginId()) + " twice");
            }
        }
    }

    /**
     * The address that the plugin with {@code pluginId} published ({@code addr}), the name of the
     * transport it belongs to ({@code ""}: the plugin named none) and the seal of the worker that
     * published it (ADDRESS_REPLY's), which covers all three.
     *
     * @throws IllegalArgumentException (constructor) when {@code transport} is neither empty nor a
     *     {@link TransportName transport name}
     */
    public record PluginAddress(long pluginId, byte[] address, String transport, byte[] seal) {
        public PluginAddress {
            requireNonNull(address, "address is null");
            checkTransport(transport);
            requireNonNull(seal, "seal is null");
        }

        /** An address whose plugin named no transport. */
        public PluginAddress(long pluginId, byte[] address, byte[] seal) {
            this(pluginId, address, "", seal);
        }

        /** The transport's name; empty when the plugin named none. */
        public Optional<String> transportName() {
            return transport.isEmpty() ? Optional.empty() : Optional.of(transport);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PluginAddress p
                    && p.pluginId == pluginId
                    && Arrays.equals(p.address, address)
                    && p.transport.equals(transport)
                    && Arrays.equals(p.seal, seal);
        }

        @Override
        public int hashCode() {
            return ((Long.hashCode(pluginId) * 31 + Arrays.hashCode(address)) * 31 + transport.hashCode()) * 31
                    + Arrays.hashCode(seal);
        }

        @Override
        public String toString() {
            return "PluginAddress[pluginId=0x" + Long.toHexString(pluginId) + ", address=" + address.length
                    + " bytes, transport=" + transport + ", seal=" + seal.length + " bytes]";
        }
    }

    /**
     * Checks a transport field of the wire: {@code ""} (none) or a {@link TransportName transport name}.
     *
     * @throws IllegalArgumentException (one line) when it is neither
     * @throws NullPointerException when it is null
     */
    static void checkTransport(String transport) {
        requireNonNull(transport, "transport is null (use \"\" for none)");
        if (!transport.isEmpty()) {
            TransportName.problem(transport).ifPresent(p -> {
                throw new IllegalArgumentException("the transport name " + p);
            });
        }
    }

    /**
     * A registered buffer: {@code length} bytes from virtual address {@code va}, with its memory
     * handle and remote key.
     */
    public record Segment(long va, long length, byte[] memh, byte[] mkey) {
        public Segment {
            requireNonNull(memh, "memh is null");
            requireNonNull(mkey, "mkey is null");
        }

        /** Whether {@code address} lies in [va, va + length), unsigned. */
        public boolean holds(long address) {
            long offset = address - va;
            return Long.compareUnsigned(address, va) >= 0 && Long.compareUnsigned(offset, length) < 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Segment s
                    && s.va == va
                    && s.length == length
                    && Arrays.equals(s.memh, memh)
                    && Arrays.equals(s.mkey, mkey);
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(va) * 31 + Long.hashCode(length)) * 31 * 31
                    + Arrays.hashCode(memh) * 31
                    + Arrays.hashCode(mkey);
        }

        @Override
        public String toString() {
            return "Segment[va=0x" + Long.toHexString(va) + ", length=" + Long.toUnsignedString(length) + ", memh="
                    + memh.length + " bytes, mkey=" + mkey.length + " bytes]";
        }
    }
}
