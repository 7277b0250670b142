// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.testkit.PluginTestKit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Where the integration tests run the plugins: in a test kit worker of their own, and, for the one
 * test of a worker that hosts several plugins (which the kit does not make), in a worker host.
 */
final class GraphHosts {
    /** Generous: the build machine is shared and noisy. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private GraphHosts() {}

    /** The test kit on the plugin in {@code file} (a {@code .so} or a plugin jar) with this id, waiting up to {@link #TIMEOUT}. */
    static PluginTestKit.Builder kit(Path file, long pluginId) {
        return PluginTestKit.plugin(file).pluginId(pluginId).timeout(TIMEOUT);
    }

    /** A worker host with all these plugins opened, loaded as a worker loads them; fails the test when any did not load or open. */
    static WorkerHost open(long workerId, PluginSpec... specs) {
        WorkerHost host =
                WorkerHost.open(workerId, List.of(specs), PluginLoader.standard(), WorkerHostConfig.defaults());
        try {
            assertThat(host.failures())
                    .as("plugins that failed to load or open")
                    .isEmpty();
        } catch (AssertionError e) {
            host.close();
            throw e;
        }
        return host;
    }
}
