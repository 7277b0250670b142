// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginDiscovery;
import dev.urom.framework.discovery.ScanResult;
import dev.urom.service.logging.RateLimitedLog;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.ServiceInfoReply;
import dev.urom.wire.Message.ServiceInfoRequest;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Message.WorkersInGroupReply;
import dev.urom.wire.Message.WorkersInGroupRequest;
import dev.urom.wire.Message.WorkersInfoReply;
import dev.urom.wire.Message.WorkersInfoRequest;
import dev.urom.wire.ServicePlugin;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Answers the control requests of an admitted host: PLUGINS, WORKER_START (of a worker the host's
 * principal owns, or a new one), WORKERS_IN_GROUP and WORKERS_INFO (of the principal's own workers;
 * WORKERS_INFO first asks them for fresh counts, waiting at most {@link #STATS_WAIT}), and
 * SERVICE_INFO (the same for every principal: the cpus a WORKER_START may name and the most workers
 * a principal may have). Any other message gets ERROR NOT_SUPPORTED. Refusals are logged at WARN
 * with the peer and the reason.
 *
 * <p>Thread-safe: called from every connection's thread at once.
 */
final class ControlRequests {
    private static final Logger LOG = LogManager.getLogger(ControlRequests.class);
    /** How long WORKERS_INFO waits for the workers' counts; a worker that has not answered by then shows its last ones. */
    static final Duration STATS_WAIT = Duration.ofSeconds(1);

    private final RateLimitedLog refusals = new RateLimitedLog(LOG, 20, Duration.ofSeconds(10));

    private final String pluginPath;
    private final PluginDiscovery discovery;
    private final StartRequestCheck check;
    private final WorkerSupervisor supervisor;
    private final CpuSet allowedCpus;
    private final int maxWorkersPerPrincipal;

    /**
     * @param allowedCpus the cpus {@code check} lets a WORKER_START name
     * @param maxWorkersPerPrincipal the most workers one principal may have ({@link DaemonConfig#maxWorkersPerPrincipal()})
     */
    ControlRequests(
            String pluginPath,
            PluginDiscovery discovery,
            StartRequestCheck check,
            WorkerSupervisor supervisor,
            CpuSet allowedCpus,
            int maxWorkersPerPrincipal) {
        this.pluginPath = pluginPath;
        this.discovery = discovery;
        this.check = check;
        this.supervisor = supervisor;
        this.allowedCpus = allowedCpus;
        this.maxWorkersPerPrincipal = maxWorkersPerPrincipal;
    }

    /** The reply to {@code request} of an admitted connection. */
    Message handle(Message request, ControlSession session) {
        try {
            if (request instanceof PluginsRequest) {
                return plugins(session.peer());
            }
            if (request instanceof WorkerStartRequest start) {
                return workerStart(start, session);
            }
            if (request instanceof WorkersInGroupRequest group) {
                return new WorkersInGroupReply(supervisor.workersInGroup(group.gid(), session.principal()));
            }
            if (request instanceof WorkersInfoRequest info) {
                supervisor.refreshStats(STATS_WAIT);
                return new WorkersInfoReply(supervisor.workersInfo(info.gid(), session.principal()));
            }
            if (request instanceof ServiceInfoRequest) {
                return new ServiceInfoReply(allowedCpus.toList(), maxWorkersPerPrincipal);
            }
            String message = request.messageType() + " is not a request the daemon serves";
            refusals.warn(
                    "requests the daemon does not serve",
                    "{} refused from {}: {}",
                    request.messageType(),
                    session.peer(),
                    message);
            return new ErrorReply(UromStatus.NOT_SUPPORTED, message);
        } catch (RuntimeException e) {
            LOG.error("{} from {} failed", request.messageType(), session.peer(), e);
            return new ErrorReply(UromStatus.UNEXPECTED, request.messageType() + " failed: " + e);
        }
    }

    private PluginsReply plugins(String peer) {
        ScanResult scan = discovery.scan(pluginPath);
        List<ServicePlugin> plugins =
                scan.plugins().stream().map(ControlRequests::servicePlugin).toList();
        LOG.debug("PLUGINS from {}: {} plugins", peer, plugins.size());
        return new PluginsReply(plugins);
    }

    private WorkerStartReply workerStart(WorkerStartRequest request, ControlSession session) {
        ScanResult scan = discovery.lastScan();
        Optional<Refusal> refusal = check.check(request, scan.idMask());
        if (refusal.isPresent()) {
            return supervisor.refused(request, refusal.get(), session.peer());
        }
        return supervisor.start(request, scan.plugins(), session);
    }

    private static ServicePlugin servicePlugin(DiscoveredPlugin plugin) {
        return new ServicePlugin(plugin.info(), plugin.kind().label());
    }
}
