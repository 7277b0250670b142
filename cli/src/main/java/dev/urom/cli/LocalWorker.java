// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.worker.PluginFailure;
import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.spi.WorkerCommand;
import java.time.Duration;
import java.util.List;

/**
 * A worker host in this process, for the commands that run plugins without a service. Not
 * thread-safe: one thread drives it, as a worker drives its plugins.
 */
final class LocalWorker implements AutoCloseable {
    private static final long WORKER_ID = 0;
    private static final long DEST_ID = 0;

    private final WorkerHost host;
    private long nextContext = 1;

    private LocalWorker(WorkerHost host) {
        this.host = host;
    }

    /**
     * Loads and opens these plugins, with the ids the scan gave them.
     *
     * @throws CliFailure naming the first plugin that could not be loaded or opened, and why
     */
    static LocalWorker open(List<DiscoveredPlugin> plugins) {
        List<PluginSpec> specs = plugins.stream()
                .map(p -> new PluginSpec(p.path(), p.info().id()))
                .toList();
        WorkerHost host = WorkerHost.open(WORKER_ID, specs, PluginLoader.standard(), WorkerHostConfig.defaults());
        for (DiscoveredPlugin plugin : plugins) {
            PluginFailure failure = host.failures().get(plugin.info().id());
            if (failure != null) {
                host.close();
                throw new CliFailure("cannot load plugin '" + plugin.info().name() + "' (" + plugin.path() + "): "
                        + failure.status() + ": " + failure.reason());
            }
        }
        return new LocalWorker(host);
    }

    /** Sends one command to this plugin and waits for its answer (TIME_OUT when none comes). */
    WorkerAnswer call(DiscoveredPlugin plugin, byte[] payload, Duration timeout) {
        return host.call(new WorkerCommand(DEST_ID, plugin.info().id(), nextContext++, payload), timeout);
    }

    @Override
    public void close() {
        host.close();
    }
}
