package dev.urom.plugins.graph;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.nativebridge.NativePlugin;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.WorkerNotification;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Opens worker hosts on real plugin files, the way a worker does, for the integration tests. */
final class GraphHosts {
    /** Generous: the build machine is shared and noisy. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** {@code .so} through the native bridge, {@code .jar} through the Java plugin loader. */
    static final PluginLoader LOADER = PluginLoader.byExtension(NativePlugin::load, JavaPluginLoader::instantiate);

    private GraphHosts() {}

    /** A host with the given plugins opened; fails the test when any of them did not load or open. */
    static WorkerHost open(long workerId, PluginSpec... specs) {
        WorkerHost host = WorkerHost.open(workerId, List.of(specs), LOADER, WorkerHostConfig.defaults());
        assertThat(host.failures()).as("plugins that failed to load or open").isEmpty();
        return host;
    }

    /** The opened plugin with this id. */
    static PluginIface plugin(WorkerHost host, long id) {
        return host.plugin(id).orElseThrow(() -> new AssertionError("plugin id " + id + " is not open in the host"));
    }

    /** Progress rounds until {@code count} notifications came, or fails after {@link #TIMEOUT}. */
    static List<WorkerNotification> awaitNotifications(WorkerHost host, int count) {
        List<WorkerNotification> received = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (received.size() < count) {
            if (host.progress(received::add) == 0 && System.nanoTime() - deadline > 0) {
                throw new AssertionError("only " + received.size() + " of " + count + " notifications within " + TIMEOUT);
            }
        }
        assertThat(received).as("notifications").hasSize(count);
        return received;
    }

    /** What the plugin's {@code notif_pack} makes of each notification. */
    static List<byte[]> pack(PluginIface plugin, List<WorkerNotification> notifications) throws UromException {
        List<byte[]> packed = new ArrayList<>();
        for (WorkerNotification notification : notifications) {
            packed.add(plugin.packNotification(notification));
        }
        return packed;
    }

    static Path nativePlugin() {
        return GraphPluginFiles.nativePlugin();
    }

    static Path javaPlugin() {
        return GraphPluginFiles.javaPlugin();
    }
}
