// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.nativebridge.NativePlugin;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.util.List;
import java.util.function.Consumer;

/**
 * A {@link WorkerHost} in this process with one graph plugin, driven one LOOPBACK at a time: the
 * command is submitted and the host made to progress until its notification comes back. {@code
 * native} loads {@code worker_graph.so} (through JNA), {@code java} {@code worker_graph_java.jar} (in
 * its own class loader); {@link GraphPluginFiles} says where they are found.
 *
 * <p>One thread at a time, as the host requires. {@link #open} and {@link #loopback} throw {@link
 * IllegalStateException} with one line when the plugin does not open or a LOOPBACK is answered
 * wrongly; {@link #close} closes the host.
 */
final class InProcessDispatch implements AutoCloseable {
    static final long PLUGIN_ID = 1;

    private final WorkerHost host;
    private WorkerNotification answer;
    private final Consumer<WorkerAnswer> sink = n -> answer = n.notification();

    private InProcessDispatch(WorkerHost host) {
        this.host = host;
    }

    /** A host with the graph plugin of kind {@code plugin}: {@code native} or {@code java}. */
    static InProcessDispatch open(String plugin) {
        String fileName = switch (plugin) {
            case "native" -> GraphPluginFiles.NATIVE_FILE;
            case "java" -> GraphPluginFiles.JAVA_FILE;
            default -> throw new IllegalArgumentException("plugin '" + plugin + "' is neither native nor java");
        };
        PluginLoader loader = PluginLoader.byExtension(NativePlugin::load, JavaPluginLoader::instantiate);
        WorkerHost host = WorkerHost.open(
                1,
                List.of(new PluginSpec(GraphPluginFiles.locate(fileName), PLUGIN_ID)),
                loader,
                WorkerHostConfig.defaults());
        if (!host.failures().isEmpty()) {
            host.close();
            throw new IllegalStateException(
                    "graph plugin did not open: " + host.failures().values());
        }
        return new InProcessDispatch(host);
    }

    /** Submits a LOOPBACK of {@code data} and progresses until its notification, which it checks and answers. */
    WorkerNotification loopback(long data) {
        WorkerCommand command = new WorkerCommand(0, PLUGIN_ID, data, GraphClient.loopbackCommand(data));
        answer = null;
        host.submit(command);
        while (answer == null) {
            host.progress(sink);
        }
        return checked(answer, data);
    }

    private static WorkerNotification checked(WorkerNotification answer, long data) {
        if (answer.status() != UromStatus.SUCCESS || answer.uromContext() != data) {
            throw new IllegalStateException(
                    "LOOPBACK " + data + " answered " + answer.status() + " for context " + answer.uromContext());
        }
        return answer;
    }

    @Override
    public void close() {
        host.close();
    }
}
