// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.service.logging.LogText;
import dev.urom.service.metrics.WorkerStats;
import dev.urom.wire.ServerHandshake;
import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The worker's host connections, in the order they were accepted; not thread-safe: the data-plane
 * thread owns it. Dropping a connection:
 *
 * <ul>
 *   <li>closes its socket and removes its process from the {@link ConnectionProcesses};
 *   <li>counts it closed in the {@link WorkerStats};
 *   <li>logs the close at INFO once its handshake ended, at DEBUG before that, and not at all when
 *       the worker refused it (the refusal is logged).
 * </ul>
 */
final class HostConnections {
    private static final Logger LOG = LogManager.getLogger(DataPlane.class);

    private final long workerId;
    private final ConnectionProcesses processes;
    private final WorkerStats stats;
    private final List<HostConnection> connections = new ArrayList<>();

    HostConnections(long workerId, ConnectionProcesses processes, WorkerStats stats) {
        this.workerId = workerId;
        this.processes = processes;
        this.stats = stats;
    }

    /** Enters {@code connection}, whose process {@link ConnectionProcesses#opened} already has. */
    void add(HostConnection connection) {
        connections.add(connection);
    }

    int size() {
        return connections.size();
    }

    boolean isEmpty() {
        return connections.isEmpty();
    }

    /** The {@code index}th connection, from 0 in accept order. */
    HostConnection get(int index) {
        return connections.get(index);
    }

    /** The connection with dest id {@code destId}; null when it has gone. */
    HostConnection find(long destId) {
        for (int i = 0; i < connections.size(); i++) {
            HostConnection connection = connections.get(i);
            if (connection.id() == destId) {
                return connection;
            }
        }
        return null;
    }

    /** True when every connection is stopping or closing: none is handshaking or open. */
    boolean noneServing() {
        for (int i = 0; i < connections.size(); i++) {
            HostConnection.State state = connections.get(i).state();
            if (state != HostConnection.State.STOPPING && state != HostConnection.State.CLOSING) {
                return false;
            }
        }
        return true;
    }

    /** Closes {@code connection} once its queued output is written: now, when there is none. */
    void closeOrDrop(HostConnection connection, String reason) {
        connection.closeAfterOutput(reason);
        if (!connection.hasOutput()) {
            drop(connection, reason);
        }
    }

    /** Closes {@code connection} now and forgets it; nothing when it has already gone. */
    void drop(HostConnection connection, String reason) {
        if (connections.remove(connection)) {
            connection.close();
            processes.closed(connection.id());
            stats.connectionClosed(connection.id());
            if (connection.refused()) {
                return;
            }
            if (connection.handshake().state() == ServerHandshake.State.OPEN) {
                LOG.info("worker {}: host connection {} closed: {}", workerId, connection.id(), reason);
            } else {
                LOG.debug(
                        "worker {}: host connection {} closed before its handshake ended: {}",
                        workerId,
                        connection.id(),
                        LogText.cut(reason));
            }
        }
    }

    /** Drops every connection. */
    void dropAll(String reason) {
        for (HostConnection connection : new ArrayList<>(connections)) {
            drop(connection, reason);
        }
    }
}
