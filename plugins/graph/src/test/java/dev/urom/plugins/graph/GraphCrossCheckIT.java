// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import static dev.urom.testkit.PluginAssertions.assertThat;

import dev.urom.framework.javaplugin.JavaPlugin;
import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.nativebridge.NativePlugin;
import dev.urom.spi.UromException;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import dev.urom.testkit.TestWorker;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Holds {@code worker_graph.so} and {@code worker_graph_java.jar} to the same bytes. */
class GraphCrossCheckIT {
    private static final long PLUGIN_ID = 1L << 2;

    @Test
    void bothPluginsAnswerTheSameCommandsWithTheSameBytes() {
        long seed = new Random().nextLong();
        List<WorkerCommand> commands = mixedCommands(new Random(seed));

        List<String> nativeRun;
        List<String> javaRun;
        try (TestWorker nativeWorker = GraphHosts.kit(GraphPluginFiles.nativePlugin(), PLUGIN_ID)
                        .open();
                TestWorker javaWorker =
                        GraphHosts.kit(GraphPluginFiles.javaPlugin(), PLUGIN_ID).open()) {
            nativeRun = run(nativeWorker, commands);
            javaRun = run(javaWorker, commands);
        }

        assertThat(nativeRun).as("one line per notification").hasSize(commands.size());
        assertThat(javaRun)
                .as("the Java plugin's notifications and packed bytes (seed %d)", seed)
                .isEqualTo(nativeRun);
        assertThat(nativeRun)
                .as("the mix holds every outcome")
                .anyMatch(line -> line.contains("status=SUCCESS"))
                .anyMatch(line -> line.contains("status=INVALID_VALUE"))
                .anyMatch(line -> line.contains("status=NOT_SUPPORTED"));
    }

    @Test
    void bothPluginsAnswerVersionOne() throws UromException {
        assertThat(NativePlugin.load(GraphPluginFiles.nativePlugin()).version()).isEqualTo(1);
        JavaPlugin javaPlugin = JavaPluginLoader.instantiate(GraphPluginFiles.javaPlugin());
        assertThat(javaPlugin.version()).isEqualTo(1);
    }

    /** On a worker host: the test kit hosts one plugin per worker. */
    @Test
    void oneWorkerDispatchesToBothPluginsByTheirIds() {
        long nativeId = 1L << 8;
        long javaId = 1L << 9;
        try (WorkerHost host = GraphHosts.open(
                8,
                new PluginSpec(GraphPluginFiles.nativePlugin(), nativeId),
                new PluginSpec(GraphPluginFiles.javaPlugin(), javaId))) {
            WorkerCommand toNative = new WorkerCommand(
                    1, nativeId, 100, GraphMessage.loopback(-100).encode());
            WorkerCommand toJava = new WorkerCommand(
                    1, javaId, 200, GraphMessage.loopback(-200).encode());

            assertThat(host.call(toNative, GraphHosts.TIMEOUT))
                    .answers(toNative)
                    .isSuccessful()
                    .hasPayload(GraphMessage.loopback(-100).encode());
            assertThat(host.call(toJava, GraphHosts.TIMEOUT))
                    .answers(toJava)
                    .isSuccessful()
                    .hasPayload(GraphMessage.loopback(-200).encode());
        }
    }

    @Test
    void theJavaPluginRunsFromItsJarNotFromTheTestClassPath() {
        try (TestWorker worker =
                GraphHosts.kit(GraphPluginFiles.javaPlugin(), PLUGIN_ID).open()) {
            assertThat(worker.plugin()).isInstanceOfSatisfying(JavaPlugin.class, plugin -> {
                assertThat(plugin.instance().getClass().getName()).isEqualTo(GraphPlugin.class.getName());
                assertThat(plugin.instance().getClass().getClassLoader())
                        .isNotSameAs(GraphPlugin.class.getClassLoader());
            });
        }
    }

    /** Sends the commands in order, then renders every notification and its packed bytes as one line. */
    private static List<String> run(TestWorker worker, List<WorkerCommand> commands) {
        for (WorkerCommand command : commands) {
            worker.send(command);
        }
        List<WorkerNotification> notifications = worker.awaitNotifications(commands.size());
        worker.assertNoNotificationAfter(10);
        List<String> lines = new ArrayList<>();
        for (WorkerNotification n : notifications) {
            lines.add("destId=" + n.destId() + " type=" + n.type() + " context=" + n.uromContext() + " status="
                    + n.status() + " payload=" + HexFormat.of().formatHex(n.payload()) + " packed="
                    + HexFormat.of().formatHex(worker.pack(n)));
        }
        return lines;
    }

    /** LOOPBACKs of edge and random values, wrong lengths and unknown types, each with its own context. */
    private static List<WorkerCommand> mixedCommands(Random random) {
        List<byte[]> payloads = new ArrayList<>();
        for (long data : new long[] {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE}) {
            payloads.add(GraphMessage.loopback(data).encode());
        }
        for (int length : new int[] {0, 8, 15, 17, 24}) {
            byte[] payload = new byte[length];
            random.nextBytes(payload);
            payloads.add(payload);
        }
        for (long type : new long[] {1, -1, Long.MAX_VALUE}) {
            payloads.add(new GraphMessage(type, random.nextLong()).encode());
        }
        for (int i = 0; i < 50; i++) {
            payloads.add(GraphMessage.loopback(random.nextLong()).encode());
        }
        List<WorkerCommand> commands = new ArrayList<>();
        for (int i = 0; i < payloads.size(); i++) {
            commands.add(new WorkerCommand(random.nextLong(), PLUGIN_ID, i, payloads.get(i)));
        }
        return commands;
    }
}
