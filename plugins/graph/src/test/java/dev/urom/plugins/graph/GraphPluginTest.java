// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import static dev.urom.testkit.PluginAssertions.assertThat;
import static dev.urom.testkit.PluginAssertions.assertThatNotifications;
import static dev.urom.testkit.PluginAssertions.assertThatThrownBy;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestDomain;
import dev.urom.testkit.TestWorker;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The graph plugin in a worker of the test kit, as a worker process would host it. */
class GraphPluginTest {
    private static final long PLUGIN_ID = 1L << 3;

    private TestWorker worker;

    @BeforeEach
    void open() {
        worker = PluginTestKit.plugin(GraphPlugin::new)
                .pluginId(PLUGIN_ID)
                .destId(77)
                .open();
    }

    @AfterEach
    void close() {
        worker.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0123_4567_89ab_cdefL})
    void loopbackEchoesTheDataWithSuccessAndTheCommandsHeaders(long data) {
        WorkerCommand command =
                worker.send(0xfeed_beefL, GraphMessage.loopback(data).encode());

        assertThat(worker.awaitAnswer(command))
                .answers(command)
                .isSuccessful()
                .hasPayload(GraphMessage.loopback(data).encode());
        worker.assertNoNotificationAfter(10);
    }

    @Test
    void answersComeOutOnceAndInTheOrderTheCommandsWentIn() {
        WorkerCommand[] commands = new WorkerCommand[5];
        for (int i = 0; i < commands.length; i++) {
            commands[i] = worker.send(GraphMessage.loopback(i * 10L).encode());
        }

        assertThatNotifications(worker.awaitNotifications(5)).areAllSuccessful().answerInOrder(commands);
        worker.assertNoNotificationAfter(10);
    }

    @Test
    void progressWithNothingPendingAddsNothing() {
        assertThat(worker.progress()).isZero();
        worker.assertNoNotificationAfter(10);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 8, 15, 17, 24})
    void aPayloadOfAnyOtherLengthIsInvalidAndGetsNoNotificationFromThePlugin(int length) {
        assertThat(worker.call(new byte[length]))
                .isRefusedWith(UromStatus.INVALID_VALUE)
                .hasReasonContaining("graph command of " + length + " bytes refused");
        worker.assertNoNotificationAfter(10);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, -1, Long.MIN_VALUE})
    void anUnknownTypeIsNotSupportedAndGetsNoNotificationFromThePlugin(long type) {
        assertThat(worker.call(new GraphMessage(type, 5).encode()))
                .isRefusedWith(UromStatus.NOT_SUPPORTED)
                .hasReasonContaining(Long.toUnsignedString(type));
        worker.assertNoNotificationAfter(10);
    }

    @Test
    void packedNotificationIsTheNotifyHeaderThenThePayload() {
        WorkerCommand command =
                worker.send(0x1122_3344_5566_7788L, GraphMessage.loopback(-2).encode());

        byte[] packed = worker.pack(worker.awaitAnswer(command));

        assertThat(HexFormat.of().formatHex(packed))
                .isEqualTo(
                        "0800000000000000" // type = plugin id
                                + "8877665544332211" // urom_context
                                + "1000000000000000" // len = 16
                                + "00000000" // status SUCCESS
                                + "00000000" // reserved
                                + "0000000000000000" // LOOPBACK
                                + "feffffffffffffff"); // data = -2
    }

    @Test
    void addressIsEightBytesAndDiffersBetweenInstances() {
        try (TestDomain domain = PluginTestKit.plugin(GraphPlugin::new).openDomain(2)) {
            assertThat(domain.worker(0).address()).hasSize(GraphPlugin.ADDRESS_BYTES);
            assertThat(domain.worker(1).address())
                    .hasSize(GraphPlugin.ADDRESS_BYTES)
                    .isNotEqualTo(domain.worker(0).address());
        }
    }

    @Test
    void closeDropsUnclaimedAnswers() throws UromException {
        worker.send(GraphMessage.loopback(3).encode());

        worker.plugin().close();

        List<WorkerNotification> afterClose = new ArrayList<>();
        worker.plugin().progress(afterClose);
        assertThat(afterClose).isEmpty();
    }

    @Test
    void addressBeforeOpenIsABadState() {
        assertThatThrownBy(() -> new GraphPlugin().address())
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.BAD_STATE));
    }
}
