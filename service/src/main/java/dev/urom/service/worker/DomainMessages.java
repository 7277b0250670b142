// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.auth.Proofs;
import dev.urom.framework.domain.DomainTable;
import dev.urom.framework.domain.WorkerDomain;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.service.logging.RateLimitedLog;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.DomainPeer;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.DomainSet;
import dev.urom.wire.Message.DomainSetReply;
import dev.urom.wire.Protocol;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Answers a host's ADDRESS and DOMAIN_SET, each with one whole frame under the same request id; not
 * thread-safe: it calls plugins, on the data-plane thread only, and a plugin's failure becomes the
 * reply's status, never an exception.
 *
 * <ul>
 *   <li>ADDRESS: the named plugin's {@code address()}, the transport it names ({@link
 *       WorkerHost#transport}) and this worker's seal over both; NOT_FOUND for a plugin the worker
 *       does not run, TOO_BIG for a reply over the frame limit, UNEXPECTED for no address or a throw,
 *       or the plugin's own status.
 *   <li>DOMAIN_SET: installs the domain table into the {@link WorkerDomain} that the plugins'
 *       look-ups read, or refuses it with a one-line reason: NOT_PERMITTED when an address's seal
 *       does not match (it is not one a worker of this owner published), INVALID_VALUE for a
 *       malformed table.
 * </ul>
 */
final class DomainMessages {
    private static final Logger LOG = LogManager.getLogger(DataPlane.class);
    /** Refused tables are the hosts' doing: 20 lines per 10 s at most. */
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LOG, 20, Duration.ofSeconds(10));

    private final long workerId;
    private final WorkerHost host;
    private final WorkerDomain domain;
    private final byte[] sealKey;
    private final int frameLimit;

    /** @param sealKey the key of this worker's address seals; not copied */
    DomainMessages(long workerId, WorkerHost host, WorkerDomain domain, byte[] sealKey, int frameLimit) {
        this.workerId = workerId;
        this.host = host;
        this.domain = domain;
        this.sealKey = sealKey;
        this.frameLimit = frameLimit;
    }

    /** The ADDRESS_REPLY frame for plugin {@code pluginId}. */
    ByteBuffer address(long requestId, long pluginId) {
        PluginIface plugin = host.plugin(pluginId).orElse(null);
        if (plugin == null) {
            return FrameCodec.encode(requestId, AddressReply.failed(UromStatus.NOT_FOUND));
        }
        try {
            byte[] address = plugin.address();
            if (address == null) {
                LOG.warn("worker {}: plugin 0x{} answered no address", workerId, Long.toHexString(pluginId));
                return FrameCodec.encode(requestId, AddressReply.failed(UromStatus.UNEXPECTED));
            }
            String transport = host.transport(pluginId).orElse("");
            ByteBuffer frame = FrameCodec.encode(
                    requestId,
                    new AddressReply(
                            UromStatus.SUCCESS,
                            address,
                            transport,
                            Proofs.seal(sealKey, pluginId, transport, address)));
            if (frame.remaining() - Protocol.LENGTH_FIELD_BYTES > frameLimit) {
                LOG.warn(
                        "worker {}: plugin 0x{} has an address of {} bytes, over the frame limit",
                        workerId,
                        Long.toHexString(pluginId),
                        address.length);
                return FrameCodec.encode(requestId, AddressReply.failed(UromStatus.TOO_BIG));
            }
            return frame;
        } catch (UromException e) {
            LOG.warn(
                    "worker {}: plugin 0x{} gave no address: {}: {}",
                    workerId,
                    Long.toHexString(pluginId),
                    e.status(),
                    e.getMessage());
            return FrameCodec.encode(requestId, AddressReply.failed(e.status()));
        } catch (RuntimeException | StackOverflowError e) {
            LOG.error("worker {}: plugin 0x{} threw while giving its address", workerId, Long.toHexString(pluginId), e);
            return FrameCodec.encode(requestId, AddressReply.failed(UromStatus.UNEXPECTED));
        }
    }

    /** The DOMAIN_SET_REPLY frame for {@code set}, once the table is installed or refused. */
    ByteBuffer install(long requestId, DomainSet set) {
        return FrameCodec.encode(requestId, installed(set));
    }

    private DomainSetReply installed(DomainSet set) {
        Optional<String> unsealed = unsealed(set);
        if (unsealed.isPresent()) {
            REFUSALS.warn("refused domain tables", "worker {}: domain table refused: {}", workerId, unsealed.get());
            return new DomainSetReply(UromStatus.NOT_PERMITTED, unsealed.get());
        }
        DomainTable table;
        try {
            table = DomainTable.of(set.ownDomainId(), set.peers());
        } catch (IllegalArgumentException e) {
            REFUSALS.warn("refused domain tables", "worker {}: domain table refused: {}", workerId, e.getMessage());
            return new DomainSetReply(UromStatus.INVALID_VALUE, e.getMessage());
        }
        domain.install(table);
        LOG.info(
                "worker {}: in a domain of {} peers as domain id {}",
                workerId,
                table.size(),
                Long.toUnsignedString(table.ownDomainId()));
        return new DomainSetReply(UromStatus.SUCCESS, "");
    }

    /** The first address of {@code set} whose seal this worker cannot verify, as a refusal; empty when all are sealed. */
    private Optional<String> unsealed(DomainSet set) {
        for (DomainPeer peer : set.peers()) {
            for (DomainPeer.PluginAddress a : peer.addresses()) {
                if (!Proofs.same(Proofs.seal(sealKey, a.pluginId(), a.transport(), a.address()), a.seal())) {
                    return Optional.of("the address of plugin id 0x" + Long.toHexString(a.pluginId()) + " at domain id "
                            + Long.toUnsignedString(peer.domainId())
                            + " is not one a worker of this owner published (its seal does not match)");
                }
            }
        }
        return Optional.empty();
    }
}
