// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.framework.worker.HostProcesses;
import dev.urom.nativebridge.HostProcessTable;
import dev.urom.service.os.ChannelDescriptors;
import dev.urom.spi.HostProcess;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.OptionalInt;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The processes at the other end of this worker's host connections, for its plugins: the {@link
 * DataPlane} enters each connection it accepts ({@link #opened}) and removes it when it closes
 * ({@link #closed}, which closes its pidfd). The native bridge's {@link HostProcessTable} holds
 * them, so a native plugin's {@code urom_worker_host_process} and a Java plugin's {@code
 * WorkerContext.hostProcess} give the same answers.
 *
 * <p>A connection over a Unix socket has the process that the kernel names as its peer ({@code
 * SO_PEERPIDFD}); a TCP connection has none, nor has one whose descriptor this JVM cannot reach
 * (without {@link ChannelDescriptors#JVM_OPTION}: logged once, at DEBUG) or whose peer the kernel
 * does not name. Their look-ups answer NOT_SUPPORTED; a connection that is not open, NOT_FOUND.
 *
 * <p>{@link #opened} and {@link #closed} are called by the data plane's thread; {@link
 * #hostProcess} may be called from any thread.
 */
final class ConnectionProcesses implements HostProcesses {
    private static final Logger LOG = LogManager.getLogger(ConnectionProcesses.class);

    private final long workerId;
    private final boolean enabled;
    private boolean unreachableLogged;
    private boolean inexactLogged;

    private ConnectionProcesses(long workerId, boolean enabled) {
        this.workerId = workerId;
        this.enabled = enabled;
    }

    /**
     * The processes of a worker that holds at most {@code maxConnections} connections at once. When
     * the bridge's table cannot be had, every look-up answers NOT_SUPPORTED (logged as a warning).
     */
    static ConnectionProcesses open(long workerId, int maxConnections) {
        try {
            HostProcessTable.reserve(maxConnections);
            return new ConnectionProcesses(workerId, true);
        } catch (IllegalStateException | IllegalArgumentException e) {
            LOG.warn("worker {}: plugins cannot learn their hosts' processes: {}", workerId, e.getMessage());
            return new ConnectionProcesses(workerId, false);
        }
    }

    /** Enters connection {@code id}, just accepted on {@code channel}, with its peer's process if it has one. */
    void opened(long id, SocketChannel channel) {
        if (!enabled) {
            return;
        }
        try {
            if (!isUnix(channel)) {
                HostProcessTable.enterWithoutProcess(id);
                return;
            }
            OptionalInt fd = ChannelDescriptors.of(channel);
            if (fd.isEmpty()) {
                if (!unreachableLogged) {
                    unreachableLogged = true;
                    LOG.debug(
                            "worker {}: host connections have no host process: {}",
                            workerId,
                            ChannelDescriptors.unavailable()
                                    .orElse("the descriptor of a host connection cannot be reached"));
                }
                HostProcessTable.enterWithoutProcess(id);
                return;
            }
            enterPeer(id, fd.getAsInt());
        } catch (IllegalStateException e) {
            LOG.warn(
                    "worker {}: host connection {} cannot be entered among the host processes: {}",
                    workerId,
                    id,
                    e.getMessage());
        }
    }

    private void enterPeer(long id, int fd) {
        HostProcessTable.Peer peer;
        try {
            peer = HostProcessTable.enterPeer(id, fd);
        } catch (UromException e) {
            LOG.debug("worker {}: host connection {} has no host process: {}", workerId, id, e.getMessage());
            return;
        }
        LOG.debug("worker {}: host connection {} is process {}", workerId, id, peer.pid());
        if (!peer.exact() && !inexactLogged) {
            inexactLogged = true;
            LOG.debug(
                    "worker {}: the kernel has no SO_PEERPIDFD (Linux 6.5): host pidfds come from the peer's pid, which names another"
                            + " process if the host exited and its pid was reused before the worker asked",
                    workerId);
        }
    }

    private static boolean isUnix(SocketChannel channel) {
        try {
            return channel.getLocalAddress() instanceof UnixDomainSocketAddress;
        } catch (IOException e) {
            return false;
        }
    }

    /** Removes connection {@code id}, closing its pidfd. */
    void closed(long id) {
        if (enabled) {
            HostProcessTable.remove(id);
        }
    }

    @Override
    public HostProcess hostProcess(long destId) throws UromException {
        if (!enabled) {
            throw new UromException(UromStatus.NOT_SUPPORTED, "this worker cannot learn its hosts' processes");
        }
        return HostProcessTable.lookup(destId);
    }
}
