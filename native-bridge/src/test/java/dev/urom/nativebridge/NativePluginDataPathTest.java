// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bridge's data path at its edges: batches that outgrow the buffers, bad lengths, failures. */
class NativePluginDataPathTest {
    @TempDir
    static Path dir;

    static Path datapath;

    private NativePlugin plugin;

    @BeforeAll
    static void buildFixture() {
        datapath = TestPlugins.build(dir, "datapath.c", "datapath.so");
    }

    @BeforeEach
    void openPlugin() throws UromException {
        plugin = NativePlugin.load(datapath);
        plugin.open(TestContext.withoutDomain());
    }

    @AfterEach
    void closePlugin() {
        plugin.close();
    }

    @Test
    void deliversABatchLargerThanTheBuffersInOrder() throws UromException {
        plugin.workerCommand(new WorkerCommand(5, 4, 1, batch(300, 100)));
        plugin.workerCommand(new WorkerCommand(6, 4, 2, batch(3, 200_000)));
        plugin.workerCommand(new WorkerCommand(7, 4, 3, batch(2, 0)));

        List<WorkerNotification> out = new ArrayList<>();
        plugin.progress(out);

        assertThat(out).hasSize(305);
        for (int k = 0; k < 300; k++) {
            assertThat(out.get(k).destId()).isEqualTo(5);
            assertThat(out.get(k).uromContext()).isEqualTo(1);
            assertThat(out.get(k).payload()).isEqualTo(pattern(k, 100));
        }
        for (int k = 0; k < 3; k++) {
            assertThat(out.get(300 + k).uromContext()).isEqualTo(2);
            assertThat(out.get(300 + k).payload()).isEqualTo(pattern(k, 200_000));
        }
        assertThat(out.subList(303, 305)).allSatisfy(n -> {
            assertThat(n.destId()).isEqualTo(7);
            assertThat(n.payload()).isEmpty();
        });
        out.clear();
        plugin.progress(out);
        assertThat(out).isEmpty();
    }

    @Test
    void aNotificationWithAnImpossibleLengthIsDroppedAfterTheOthersAreDelivered() throws UromException {
        plugin.workerCommand(new WorkerCommand(1, 4, 10, batch(1, 8)));
        plugin.workerCommand(new WorkerCommand(1, 4, 11, ascii("BADLEN")));
        plugin.workerCommand(new WorkerCommand(1, 4, 12, batch(1, 9)));

        List<WorkerNotification> out = new ArrayList<>();
        assertThatThrownBy(() -> plugin.progress(out))
                .isInstanceOf(UromException.class)
                .hasMessage(datapath + ": progress returned a notification of 9223372036854775813 bytes")
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(out).extracting(WorkerNotification::uromContext).containsExactly(10L, 12L);
    }

    @Test
    void aFailedProgressStillDeliversWhatItHandedOver() throws UromException {
        plugin.workerCommand(new WorkerCommand(1, 4, 20, batch(2, 16)));
        plugin.workerCommand(new WorkerCommand(1, 4, 21, ascii("PROGFAIL")));

        List<WorkerNotification> out = new ArrayList<>();
        assertThatThrownBy(() -> plugin.progress(out))
                .hasMessage(datapath + ": progress returned DRIVER (21)")
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(UromStatus.DRIVER);
        assertThat(out).hasSize(2);
        out.clear();
        plugin.progress(out);
        assertThat(out).isEmpty();
    }

    @Test
    void aNodeThePluginLeftOnTheCommandListIsNotOurs() throws UromException {
        plugin.workerCommand(new WorkerCommand(1, 4, 30, ascii("STRANGER")));
        plugin.workerCommand(new WorkerCommand(1, 4, 31, batch(1, 4)));
        List<WorkerNotification> out = new ArrayList<>();
        plugin.progress(out);
        assertThat(out).extracting(WorkerNotification::uromContext).containsExactly(31L);
    }

    @Test
    void progressPacksEachNotificationWithThePluginsPackerRetryingWithTheSizeItAskedFor() throws UromException {
        int[] lengths = {0, 10, 100_000};
        for (int length : lengths) {
            plugin.workerCommand(new WorkerCommand(1, 4, 40 + length, pack(PACK_PAD, length)));
        }
        List<WorkerNotification> out = new ArrayList<>();
        plugin.progress(out);

        assertThat(out).hasSize(lengths.length);
        for (int i = 0; i < lengths.length; i++) {
            WorkerNotification n = out.get(i);
            assertThat(n.uromContext()).isEqualTo(40 + lengths[i]);
            assertThat(n.status()).isEqualTo(UromStatus.SUCCESS);
            byte[] payload = n.payload();
            assertThat(payload).as("what notif_pack wrote after the header").hasSize(lengths[i] + 64 * 1024);
            assertThat(Arrays.copyOfRange(payload, 0, lengths[i])).isEqualTo(pattern(0, lengths[i]));
            assertThat(payload[payload.length - 1]).isEqualTo((byte) 0xEE);
            assertThat(plugin.packNotification(n)).isEqualTo(n.pack());
        }
    }

    @Test
    void aNotificationThePluginCannotPackIsAFailureWithNoPayloadAndTheOthersStillCome() throws UromException {
        plugin.workerCommand(new WorkerCommand(1, 4, 50, pack(PACK_FAIL, 16)));
        plugin.workerCommand(new WorkerCommand(1, 4, 51, pack(PACK_SHORT, 16)));
        plugin.workerCommand(new WorkerCommand(1, 4, 52, pack(PACK_LIE, 16)));
        plugin.workerCommand(new WorkerCommand(1, 4, 53, pack(PACK_OVER, 16)));
        plugin.workerCommand(new WorkerCommand(2, 4, 54, batch(1, 16)));

        List<WorkerNotification> out = new ArrayList<>();
        plugin.progress(out);

        assertThat(out).extracting(WorkerNotification::uromContext).containsExactly(50L, 51L, 52L, 53L, 54L);
        assertThat(out)
                .extracting(WorkerNotification::status)
                .containsExactly(
                        UromStatus.NO_MEMORY,
                        UromStatus.UNEXPECTED,
                        UromStatus.UNEXPECTED,
                        UromStatus.UNEXPECTED,
                        UromStatus.SUCCESS);
        assertThat(out.subList(0, 4)).allSatisfy(n -> {
            assertThat(n.payload()).isEmpty();
            assertThat(n.destId()).isEqualTo(1);
        });
        assertThat(out.get(4).payload()).isEqualTo(pattern(0, 16));
    }

    private static final int PACK_PAD = 1;
    private static final int PACK_FAIL = 2;
    private static final int PACK_SHORT = 3;
    private static final int PACK_LIE = 4;
    private static final int PACK_OVER = 5;

    private static byte[] pack(int mode, int size) {
        return ByteBuffer.allocate(12)
                .order(ByteOrder.LITTLE_ENDIAN)
                .put(ascii("PACK"))
                .putInt(mode)
                .putInt(size)
                .array();
    }

    private static byte[] batch(int count, int size) {
        return ByteBuffer.allocate(13)
                .order(ByteOrder.LITTLE_ENDIAN)
                .put(ascii("BATCH"))
                .putInt(count)
                .putInt(size)
                .array();
    }

    private static byte[] pattern(int k, int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (k + i);
        }
        return bytes;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
