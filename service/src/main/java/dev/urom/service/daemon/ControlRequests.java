package dev.urom.service.daemon;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginDiscovery;
import dev.urom.framework.discovery.ScanResult;
import dev.urom.framework.wire.Message;
import dev.urom.framework.wire.Message.ErrorReply;
import dev.urom.framework.wire.Message.PluginsReply;
import dev.urom.framework.wire.Message.PluginsRequest;
import dev.urom.framework.wire.Message.WorkerStartReply;
import dev.urom.framework.wire.Message.WorkerStartRequest;
import dev.urom.framework.wire.Message.WorkersInGroupReply;
import dev.urom.framework.wire.Message.WorkersInGroupRequest;
import dev.urom.framework.wire.ServicePlugin;
import dev.urom.spi.UromStatus;
import java.util.List;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Answers the control requests of a host: PLUGINS, WORKER_START, WORKERS_IN_GROUP. Any other
 * message gets ERROR NOT_SUPPORTED. Refusals are logged at WARN with the peer and the reason.
 *
 * <p>Thread-safe: called from every connection's thread at once.
 */
final class ControlRequests {
    private static final Logger LOG = LogManager.getLogger(ControlRequests.class);

    private final String pluginPath;
    private final PluginDiscovery discovery;
    private final StartRequestCheck check;
    private final WorkerSupervisor supervisor;

    ControlRequests(String pluginPath, PluginDiscovery discovery, StartRequestCheck check, WorkerSupervisor supervisor) {
        this.pluginPath = pluginPath;
        this.discovery = discovery;
        this.check = check;
        this.supervisor = supervisor;
    }

    /** The reply to {@code request}; {@code peer} names the connection in log lines. */
    Message handle(Message request, String peer) {
        try {
            if (request instanceof PluginsRequest) {
                return plugins(peer);
            }
            if (request instanceof WorkerStartRequest start) {
                return workerStart(start, peer);
            }
            if (request instanceof WorkersInGroupRequest group) {
                return new WorkersInGroupReply(supervisor.workersInGroup(group.gid()));
            }
            String message = request.messageType() + " is not a request the daemon serves";
            LOG.warn("{} refused from {}: {}", request.messageType(), peer, message);
            return new ErrorReply(UromStatus.NOT_SUPPORTED, message);
        } catch (RuntimeException e) {
            LOG.error("{} from {} failed", request.messageType(), peer, e);
            return new ErrorReply(UromStatus.UNEXPECTED, request.messageType() + " failed: " + e);
        }
    }

    private PluginsReply plugins(String peer) {
        ScanResult scan = discovery.scan(pluginPath);
        List<ServicePlugin> plugins = scan.plugins().stream().map(ControlRequests::servicePlugin).toList();
        LOG.debug("PLUGINS from {}: {} plugins", peer, plugins.size());
        return new PluginsReply(plugins);
    }

    private WorkerStartReply workerStart(WorkerStartRequest request, String peer) {
        ScanResult scan = discovery.lastScan();
        Optional<Refusal> refusal = check.check(request, scan.idMask());
        if (refusal.isPresent()) {
            return supervisor.refused(request, refusal.get(), peer);
        }
        return supervisor.start(request, scan.plugins(), peer);
    }

    private static ServicePlugin servicePlugin(DiscoveredPlugin plugin) {
        return new ServicePlugin(plugin.info(), plugin.kind().label());
    }
}
