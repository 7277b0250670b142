package dev.urom.plugins.graph;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
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
 * {@code worker_graph_java.jar}, both loaded through the worker host.
 */
class GraphContractIT {
    private static final long WORKER_ID = 42;
    private static final long PLUGIN_ID = 1L << 5;
    private static final long RANDOM_SEED = new Random().nextLong();

    private WorkerHost host;

    static Stream<Named<Path>> plugins() {
        return Stream.of(Named.of("native worker_graph.so", GraphHosts.nativePlugin()),
                Named.of("java worker_graph_java.jar", GraphHosts.javaPlugin()));
    }

    static Stream<Arguments> pluginsAndLoopbackValues() {
        Random random = new Random(RANDOM_SEED);
        LongStream values = LongStream.concat(
                LongStream.of(0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE), LongStream.generate(random::nextLong).limit(3));
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
    void closeHost() {
        if (host != null) {
            host.close();
        }
    }

    @ParameterizedTest(name = "{0}: LOOPBACK {1}")
    @MethodSource("pluginsAndLoopbackValues")
    void loopbackEchoesTheDataWithSuccess(Path plugin, long data) {
        host = GraphHosts.open(WORKER_ID, new PluginSpec(plugin, PLUGIN_ID));

        WorkerNotification answer = host.call(new WorkerCommand(3, PLUGIN_ID, 11, GraphMessage.loopback(data).encode()), GraphHosts.TIMEOUT);

        assertThat(answer.status()).as("status (random seed %d)", RANDOM_SEED).isEqualTo(UromStatus.SUCCESS);
        assertThat(answer.payload()).as("payload (random seed %d)", RANDOM_SEED).isEqualTo(GraphMessage.loopback(data).encode());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plugins")
    void everyAnswerCarriesItsCommandsDestIdTypeAndContext(Path plugin) {
        host = GraphHosts.open(WORKER_ID, new PluginSpec(plugin, PLUGIN_ID));
        long[][] headers = {{0, 0}, {1, -1}, {-1, Long.MIN_VALUE}, {Long.MAX_VALUE, 0x0123_4567_89ab_cdefL}};

        for (long[] header : headers) {
            host.submit(new WorkerCommand(header[0], PLUGIN_ID, header[1], GraphMessage.loopback(header[0] ^ header[1]).encode()));
        }
        List<WorkerNotification> answers = GraphHosts.awaitNotifications(host, headers.length);

        for (int i = 0; i < headers.length; i++) {
            WorkerNotification answer = answers.get(i);
            assertThat(answer.destId()).as("destId of answer %d", i).isEqualTo(headers[i][0]);
            assertThat(answer.type()).as("type of answer %d", i).isEqualTo(PLUGIN_ID);
            assertThat(answer.uromContext()).as("uromContext of answer %d", i).isEqualTo(headers[i][1]);
            assertThat(answer.status()).as("status of answer %d", i).isEqualTo(UromStatus.SUCCESS);
        }
    }

    @ParameterizedTest(name = "{0}: {1} bytes")
    @MethodSource("pluginsAndWrongLengths")
    void aPayloadThatIsNotSixteenBytesIsInvalid(Path plugin, int length) {
        host = GraphHosts.open(WORKER_ID, new PluginSpec(plugin, PLUGIN_ID));

        WorkerNotification answer = host.call(new WorkerCommand(5, PLUGIN_ID, 6, new byte[length]), GraphHosts.TIMEOUT);

        assertThat(answer.status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(answer.payload()).isEmpty();
        // The reason beside it: the C plugin's error log line, the Java plugin's exception, word for word.
        assertThat(WorkerHost.refusalReason(answer)).hasValue("graph command of " + length + " bytes refused: a graph command is exactly 16 bytes");
        assertThat(host.progress(n -> {})).as("notifications after the refusal").isZero();
    }

    @ParameterizedTest(name = "{0}: type {1}")
    @MethodSource("pluginsAndUnknownTypes")
    void anUnknownCommandTypeIsNotSupported(Path plugin, long type) {
        host = GraphHosts.open(WORKER_ID, new PluginSpec(plugin, PLUGIN_ID));

        WorkerNotification answer = host.call(new WorkerCommand(5, PLUGIN_ID, 6, new GraphMessage(type, 9).encode()), GraphHosts.TIMEOUT);

        assertThat(answer.status()).isEqualTo(UromStatus.NOT_SUPPORTED);
        assertThat(answer.payload()).isEmpty();
        assertThat(WorkerHost.refusalReason(answer)).hasValue("graph command type " + Long.toUnsignedString(type)
                + " is not supported: the graph plugin knows only LOOPBACK (0)");
        assertThat(host.progress(n -> {})).as("notifications after the refusal").isZero();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plugins")
    void packedNotificationIsTheNotifyHeaderThenThePayload(Path plugin) throws UromException {
        host = GraphHosts.open(WORKER_ID, new PluginSpec(plugin, PLUGIN_ID));
        WorkerNotification answer = host.call(
                new WorkerCommand(9, PLUGIN_ID, 0x1122_3344_5566_7788L, GraphMessage.loopback(-2).encode()), GraphHosts.TIMEOUT);

        byte[] packed = GraphHosts.plugin(host, PLUGIN_ID).packNotification(answer);

        assertThat(HexFormat.of().formatHex(packed)).isEqualTo(
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
        host = GraphHosts.open(WORKER_ID, new PluginSpec(plugin, PLUGIN_ID));

        assertThat(host.progress(n -> {})).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plugins")
    void addressIsEightBytes(Path plugin) throws UromException {
        host = GraphHosts.open(WORKER_ID, new PluginSpec(plugin, PLUGIN_ID));

        assertThat(GraphHosts.plugin(host, PLUGIN_ID).address()).hasSize(GraphPlugin.ADDRESS_BYTES);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plugins")
    void manyCommandsAreAnsweredOnceEachInOrder(Path plugin) {
        host = GraphHosts.open(WORKER_ID, new PluginSpec(plugin, PLUGIN_ID));
        int count = 500;

        for (int i = 0; i < count; i++) {
            host.submit(new WorkerCommand(1, PLUGIN_ID, i, GraphMessage.loopback(i * 7L).encode()));
        }
        List<WorkerNotification> answers = GraphHosts.awaitNotifications(host, count);

        assertThat(answers).extracting(WorkerNotification::uromContext)
                .containsExactlyElementsOf(LongStream.range(0, count).boxed().toList());
        assertThat(host.progress(n -> {})).as("notifications after all were answered").isZero();
    }
}
