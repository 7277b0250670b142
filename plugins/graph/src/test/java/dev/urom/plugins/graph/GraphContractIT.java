// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import static dev.urom.testkit.PluginAssertions.assertThat;
import static dev.urom.testkit.PluginAssertions.assertThatNotifications;

import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.testkit.TestWorker;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of the graph plugin, run once against {@code worker_graph.so} and once against
 * {@code worker_graph_java.jar}, each loaded from its file into a test kit worker.
 */
class GraphContractIT {
    private static final long PLUGIN_ID = 1L << 5;
    private static final long RANDOM_SEED = new Random().nextLong();
    /** Rounds of progress in which nothing more may come once every command is answered. */
    private static final int QUIET_ROUNDS = 10;

    private TestWorker worker;

    static Stream<Named<Path>> plugins() {
        return Stream.of(
                Named.of("native worker_graph.so", GraphPluginFiles.nativePlugin()),
                Named.of("java worker_graph_java.jar", GraphPluginFiles.javaPlugin()));
    }

    static Stream<Arguments> pluginsAndLoopbackValues() {
        Random random = new Random(RANDOM_SEED);
        LongStream values = LongStream.concat(
                LongStream.of(0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE),
                LongStream.generate(random::nextLong).limit(3));
        List<Long> data = values.boxed().toList();
        return plugins().flatMap(plugin -> data.stream().map(value -> Arguments.of(plugin, value)));
    }

    static Stream<Arguments> pluginsAndWrongLengths() {
        return plugins().flatMap(plugin -> Stream.of(0, 8, 15, 17, 24).map(length -> Arguments.of(plugin, length)));
    }

    static Stream<Arguments> pluginsAndUnknownTypes() {
        return plugins().flatMap(plugin -> Stream.of(1L, 2L, -1L).map(type -> Arguments.of(plugin, type)));
    }

    @AfterEach
    void closeWorker() {
        if (worker != null) {
            worker.close();
        }
    }

    @ParameterizedTest(name = "{0}: LOOPBACK {1}")
    @MethodSource("pluginsAndLoopbackValues")
    void loopbackEchoesTheDataWithSuccess(Path plugin, long data) {
        worker = GraphHosts.kit(plugin, PLUGIN_ID).destId(3).open();

        WorkerCommand command = worker.send(11, GraphMessage.loopback(data).encode());

        assertThat(worker.awaitAnswer(command))
                .as("random seed %d", RANDOM_SEED)
                .answers(command)
                .isSuccessful()
                .hasPayload(GraphMessage.loopback(data).encode());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plugins")
    void everyAnswerCarriesItsCommandsDestIdTypeAndContext(Path plugin) {
        worker = GraphHosts.kit(plugin, PLUGIN_ID).open();
        long[][] headers = {{0, 0}, {1, -1}, {-1, Long.MIN_VALUE}, {Long.MAX_VALUE, 0x0123_4567_89ab_cdefL}};
        WorkerCommand[] commands = new WorkerCommand[headers.length];

        for (int i = 0; i < headers.length; i++) {
            commands[i] = worker.send(new WorkerCommand(
                    headers[i][0],
                    PLUGIN_ID,
                    headers[i][1],
                    GraphMessage.loopback(headers[i][0] ^ headers[i][1]).encode()));
        }

        assertThatNotifications(worker.awaitNotifications(headers.length))
                .areAllSuccessful()
                .answerInOrder(commands);
        worker.assertNoNotificationAfter(QUIET_ROUNDS);
    }

    @ParameterizedTest(name = "{0}: {1} bytes")
    @MethodSource("pluginsAndWrongLengths")
    void aPayloadThatIsNotSixteenBytesIsInvalid(Path plugin, int length) {
        worker = GraphHosts.kit(plugin, PLUGIN_ID).destId(5).open();

        WorkerAnswer answer = worker.awaitAnswer(worker.send(6, new byte[length]));

        assertThat(answer).isRefusedWith(UromStatus.INVALID_VALUE).hasEmptyPayload();
        // The reason beside it: the C plugin's error log line, the Java plugin's exception, word for word.
        assertThat(answer)
                .hasReason("graph command of " + length + " bytes refused: a graph command is exactly 16 bytes");
        worker.assertNoNotificationAfter(QUIET_ROUNDS);
    }

    @ParameterizedTest(name = "{0}: type {1}")
    @MethodSource("pluginsAndUnknownTypes")
    void anUnknownCommandTypeIsNotSupported(Path plugin, long type) {
        worker = GraphHosts.kit(plugin, PLUGIN_ID).destId(5).open();

        WorkerAnswer answer = worker.awaitAnswer(worker.send(6, new GraphMessage(type, 9).encode()));

        assertThat(answer).isRefusedWith(UromStatus.NOT_SUPPORTED).hasEmptyPayload();
        assertThat(answer)
                .hasReason("graph command type " + Long.toUnsignedString(type)
                        + " is not supported: the graph plugin knows only LOOPBACK (0)");
        worker.assertNoNotificationAfter(QUIET_ROUNDS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plugins")
    void packedNotificationIsTheNotifyHeaderThenThePayload(Path plugin) {
        worker = GraphHosts.kit(plugin, PLUGIN_ID).destId(9).open();
        WorkerAnswer answer = worker.awaitAnswer(
                worker.send(0x1122_3344_5566_7788L, GraphMessage.loopback(-2).encode()));

        byte[] packed = worker.pack(answer);

        assertThat(HexFormat.of().formatHex(packed))
                .isEqualTo(
                        "2000000000000000" // type = plugin id 1 << 5
                                + "8877665544332211" // urom_context
                                + "1000000000000000" // len = 16
                                + "00000000" // status SUCCESS
                                + "00000000" // reserved
                                + "0000000000000000" // LOOPBACK
                                + "feffffffffffffff"); // data = -2
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plugins")
    void nothingPendingMeansNoNotification(Path plugin) {
        worker = GraphHosts.kit(plugin, PLUGIN_ID).open();

        assertThat(worker.progress()).isZero();
        worker.assertNoNotificationAfter(QUIET_ROUNDS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plugins")
    void addressIsEightBytes(Path plugin) {
        worker = GraphHosts.kit(plugin, PLUGIN_ID).open();

        assertThat(worker.address()).hasSize(GraphPlugin.ADDRESS_BYTES);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plugins")
    void manyCommandsAreAnsweredOnceEachInOrder(Path plugin) {
        worker = GraphHosts.kit(plugin, PLUGIN_ID).destId(1).open();
        WorkerCommand[] commands = new WorkerCommand[500];

        for (int i = 0; i < commands.length; i++) {
            commands[i] = worker.send(i, GraphMessage.loopback(i * 7L).encode());
        }

        assertThatNotifications(worker.awaitNotifications(commands.length))
                .areAllSuccessful()
                .answerInOrder(commands);
        worker.assertNoNotificationAfter(QUIET_ROUNDS);
    }
}
