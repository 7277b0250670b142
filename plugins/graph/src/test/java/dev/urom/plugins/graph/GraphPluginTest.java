package dev.urom.plugins.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GraphPluginTest {
    private static final long PLUGIN_ID = 1L << 3;

    private final GraphPlugin plugin = new GraphPlugin();

    @BeforeEach
    void open() {
        plugin.open(contextOf(PLUGIN_ID));
    }

    @AfterEach
    void close() {
        plugin.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0123_4567_89ab_cdefL})
    void loopbackEchoesTheDataWithSuccessAndTheCommandsHeaders(long data) throws UromException {
        plugin.workerCommand(new WorkerCommand(77, PLUGIN_ID, 0xfeed_beefL, GraphMessage.loopback(data).encode()));

        List<WorkerNotification> notifications = progress();

        assertThat(notifications).singleElement().satisfies(n -> {
            assertThat(n.destId()).isEqualTo(77);
            assertThat(n.type()).isEqualTo(PLUGIN_ID);
            assertThat(n.uromContext()).isEqualTo(0xfeed_beefL);
            assertThat(n.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(n.payload()).isEqualTo(GraphMessage.loopback(data).encode());
        });
    }

    @Test
    void answersComeOutOnceAndInTheOrderTheCommandsWentIn() throws UromException {
        for (long data = 1; data <= 5; data++) {
            plugin.workerCommand(new WorkerCommand(data, PLUGIN_ID, 0, GraphMessage.loopback(data * 10).encode()));
        }

        assertThat(progress()).extracting(WorkerNotification::destId).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(progress()).as("second progress after everything was handed out").isEmpty();
    }

    @Test
    void progressWithNothingPendingAddsNothing() {
        assertThat(progress()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 8, 15, 17, 24})
    void aPayloadOfAnyOtherLengthIsInvalidAndGetsNoNotification(int length) {
        assertThatThrownBy(() -> plugin.workerCommand(new WorkerCommand(1, PLUGIN_ID, 2, new byte[length])))
                .isInstanceOfSatisfying(UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE));

        assertThat(progress()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, -1, Long.MIN_VALUE})
    void anUnknownTypeIsNotSupportedAndGetsNoNotification(long type) {
        assertThatThrownBy(() -> plugin.workerCommand(new WorkerCommand(1, PLUGIN_ID, 2, new GraphMessage(type, 5).encode())))
                .isInstanceOfSatisfying(UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_SUPPORTED))
                .hasMessageContaining(Long.toUnsignedString(type));

        assertThat(progress()).isEmpty();
    }

    @Test
    void packedNotificationIsTheNotifyHeaderThenThePayload() throws UromException {
        plugin.workerCommand(new WorkerCommand(9, PLUGIN_ID, 0x1122_3344_5566_7788L, GraphMessage.loopback(-2).encode()));

        byte[] packed = plugin.packNotification(progress().get(0));

        assertThat(HexFormat.of().formatHex(packed)).isEqualTo(
                "0800000000000000" // type = plugin id
                        + "8877665544332211" // urom_context
                        + "1000000000000000" // len = 16
                        + "00000000" // status SUCCESS
                        + "00000000" // reserved
                        + "0000000000000000" // LOOPBACK
                        + "feffffffffffffff"); // data = -2
    }

    @Test
    void addressIsEightBytesAndDiffersBetweenInstances() throws UromException {
        GraphPlugin other = new GraphPlugin();
        other.open(contextOf(PLUGIN_ID));

        assertThat(plugin.address()).hasSize(GraphPlugin.ADDRESS_BYTES);
        assertThat(other.address()).hasSize(GraphPlugin.ADDRESS_BYTES).isNotEqualTo(plugin.address());
        other.close();
    }

    @Test
    void addressBeforeOpenIsABadState() {
        assertThatThrownBy(() -> new GraphPlugin().address())
                .isInstanceOfSatisfying(UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.BAD_STATE));
    }

    @Test
    void closeDropsUnclaimedAnswers() throws UromException {
        plugin.workerCommand(new WorkerCommand(1, PLUGIN_ID, 2, GraphMessage.loopback(3).encode()));

        plugin.close();

        assertThat(progress()).isEmpty();
    }

    private List<WorkerNotification> progress() {
        List<WorkerNotification> out = new ArrayList<>();
        plugin.progress(out);
        return out;
    }

    private static WorkerContext contextOf(long pluginId) {
        return new WorkerContext() {
            @Override
            public long workerId() {
                return 1;
            }

            @Override
            public long pluginId() {
                return pluginId;
            }

            @Override
            public DomainLookups domain() {
                return DomainLookups.none();
            }
        };
    }
}
