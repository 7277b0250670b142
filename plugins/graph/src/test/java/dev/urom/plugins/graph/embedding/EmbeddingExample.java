// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph.embedding;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.embed.EmbeddedUrom;
import dev.urom.framework.embed.InProcessWorker;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The example of docs/embedding.md: discovers the plugins of a plugin path, hosts the two graph
 * sample plugins (worker_graph.so in C, worker_graph_java.jar in Java) in this process and sends
 * each a LOOPBACK, which a graph plugin answers with the command's own 16 bytes.
 */
public final class EmbeddingExample {
    /** The graph plugins' LOOPBACK command: { u64 type = 0; u64 data }, little-endian. */
    private static final long LOOPBACK = 0;

    private EmbeddingExample() {}

    /** Usage: {@code EmbeddingExample PLUGIN_PATH [DATA]}. */
    public static void main(String[] args) throws UromException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: EmbeddingExample PLUGIN_PATH [DATA]");
            System.exit(2);
        }
        long data = args.length == 2 ? Long.parseLong(args[1]) : 42;
        for (String line : run(args[0], data)) {
            System.out.println(line);
        }
    }

    /**
     * Lists the plugins of {@code pluginPath}, then opens both graph plugins in one in-process
     * worker and sends each a LOOPBACK of {@code data}.
     *
     * @return one line per plugin found, then one per LOOPBACK answer
     * @throws UromException when a directory or a graph plugin is missing, a plugin cannot be
     *     opened, or an answer is not the LOOPBACK sent
     */
    public static List<String> run(String pluginPath, long data) throws UromException {
        List<String> lines = new ArrayList<>();
        try (EmbeddedUrom urom = EmbeddedUrom.builder().pluginPath(pluginPath).build()) {
            for (DiscoveredPlugin plugin : urom.plugins()) {
                lines.add(String.format(
                        "plugin %s: id 0x%x, version %d, %s, %s",
                        plugin.name(),
                        plugin.id(),
                        plugin.version(),
                        plugin.kind().label(),
                        plugin.path().getFileName()));
            }
            try (InProcessWorker worker = urom.openInProcess("worker_graph", "worker_graph_java")) {
                byte[] loopback = ByteBuffer.allocate(16)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(LOOPBACK)
                        .putLong(data)
                        .array();
                for (DiscoveredPlugin plugin : worker.plugins()) {
                    WorkerNotification answer = worker.call(plugin.id(), loopback);
                    if (answer.status() != UromStatus.SUCCESS || !Arrays.equals(answer.payload(), loopback)) {
                        throw new UromException(
                                answer.status().isSuccess() ? UromStatus.UNEXPECTED : answer.status(),
                                "plugin '" + plugin.name() + "' answered LOOPBACK with " + answer.status() + " and "
                                        + answer.payload().length + " bytes");
                    }
                    long echoed = ByteBuffer.wrap(answer.payload())
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .getLong(8);
                    lines.add(String.format("%s: LOOPBACK %d -> %s %d", plugin.name(), data, answer.status(), echoed));
                }
            }
        }
        return lines;
    }
}
