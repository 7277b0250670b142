// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Library;
import com.sun.jna.NativeLibrary;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativePluginTest {
    @TempDir
    static Path dir;

    static Path echo;

    @BeforeAll
    static void buildEcho() {
        echo = TestPlugins.build(dir, "echo.c", "echo.so");
    }

    private static NativePlugin openEcho() throws UromException {
        NativePlugin plugin = NativePlugin.load(echo);
        plugin.open(TestContext.withoutDomain());
        return plugin;
    }

    private static List<WorkerNotification> drain(NativePlugin plugin) throws UromException {
        List<WorkerNotification> out = new ArrayList<>();
        plugin.progress(out);
        return out;
    }

    @Test
    void loadsOpensAnswersACommandAndCloses() throws UromException {
        NativePlugin plugin = NativePlugin.load(echo);
        assertThat(plugin.version()).isEqualTo(42);
        assertThat(plugin.path()).isEqualTo(echo);
        plugin.open(TestContext.withoutDomain());

        assertThat(drain(plugin)).isEmpty();
        byte[] payload = "hello plugin".getBytes(StandardCharsets.UTF_8);
        plugin.workerCommand(new WorkerCommand(7, 0x4, 0xC0FFEE_0000_0001L, payload));
        plugin.workerCommand(new WorkerCommand(8, 0x4, -1L, new byte[0]));

        List<WorkerNotification> out = drain(plugin);
        assertThat(out).hasSize(2);
        WorkerNotification first = out.get(0);
        assertThat(first.destId()).isEqualTo(7);
        assertThat(first.type()).isEqualTo(0x4);
        assertThat(first.uromContext()).isEqualTo(0xC0FFEE_0000_0001L);
        assertThat(first.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(first.payload()).isEqualTo(payload);
        assertThat(out.get(1).destId()).isEqualTo(8);
        assertThat(out.get(1).uromContext()).isEqualTo(-1L);
        assertThat(out.get(1).payload()).isEmpty();
        assertThat(drain(plugin)).isEmpty();

        plugin.close();
        assertThatThrownBy(() -> plugin.workerCommand(new WorkerCommand(1, 4, 0, new byte[1])))
                .isInstanceOf(UromException.class)
                .hasMessage(echo + ": cannot call worker_cmd: the plugin is closed")
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(UromStatus.BAD_STATE);
        assertThatThrownBy(() -> drain(plugin)).hasMessageContaining("the plugin is closed");
        assertThatThrownBy(plugin::address).hasMessageContaining("the plugin is closed");
        assertThatThrownBy(() -> plugin.open(TestContext.withoutDomain())).hasMessageContaining("the plugin is closed");
        plugin.close();
    }

    @Test
    void refusesCallsBeforeOpen() throws UromException {
        NativePlugin plugin = NativePlugin.load(echo);
        assertThatThrownBy(() -> plugin.workerCommand(new WorkerCommand(1, 4, 0, new byte[1])))
                .hasMessage(echo + ": cannot call worker_cmd: the plugin is not open");
        plugin.open(TestContext.withoutDomain());
        assertThatThrownBy(() -> plugin.open(TestContext.withoutDomain()))
                .hasMessage(echo + ": cannot call open: the plugin is already open");
        plugin.close();
    }

    @Test
    void addressUsesTheTwoCallProtocol() throws UromException {
        NativePlugin plugin = openEcho();
        assertThat(new String(plugin.address(), StandardCharsets.US_ASCII)).isEqualTo("echo-address-0123456789");
        plugin.close();
    }

    @Test
    void packNotificationNeverCallsThePluginItPacksTheNotificationAsItIs() throws UromException {
        NativePlugin plugin = openEcho();
        WorkerNotification notification =
                new WorkerNotification(3, 0x4, 99, UromStatus.AGAIN, "data".getBytes(StandardCharsets.US_ASCII));
        assertThat(plugin.packNotification(notification)).isEqualTo(notification.pack());
        plugin.close();
    }

    @Test
    void aRefusedCommandThrowsThePluginsStatus() throws UromException {
        NativePlugin plugin = openEcho();
        assertThatThrownBy(() -> plugin.workerCommand(new WorkerCommand(1, 4, 0, ascii("FAIL now"))))
                .isInstanceOf(UromException.class)
                .hasMessage("worker_cmd returned NOT_SUPPORTED (4)")
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(UromStatus.NOT_SUPPORTED);
        assertThatThrownBy(() -> plugin.workerCommand(new WorkerCommand(1, 4, 0, ascii("KEEPFAIL"))))
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(UromStatus.AGAIN);
        plugin.workerCommand(new WorkerCommand(1, 4, 0, ascii("KEEP it")));
        assertThat(drain(plugin)).isEmpty();
        plugin.close();
    }

    @Test
    void commandsAndNotificationsDoNotLeak() throws UromException {
        NativePlugin plugin = openEcho();
        byte[] payload = new byte[1024];
        runCommands(plugin, payload, 5_000);
        long before = heapInUse();
        int commands = 100_000;
        runCommands(plugin, payload, commands);
        long grown = heapInUse() - before;
        // A leaked descriptor pair would be over 2 KiB per command: 200 MiB in all.
        assertThat(grown).as("native heap growth over %d commands", commands).isLessThan(16L << 20);
        plugin.close();
    }

    @Test
    void descriptorsLeftOnTheListAreFreedByTheBridge() throws UromException {
        NativePlugin plugin = openEcho();
        byte[] keep = Arrays.copyOf(ascii("KEEP"), 2048);
        byte[] keepAndFail = Arrays.copyOf(ascii("KEEPFAIL"), 2048);
        for (int i = 0; i < 1_000; i++) {
            plugin.workerCommand(new WorkerCommand(i, 4, i, keep));
        }
        long before = heapInUse();
        for (int i = 0; i < 20_000; i++) {
            plugin.workerCommand(new WorkerCommand(i, 4, i, keep));
            try {
                plugin.workerCommand(new WorkerCommand(i, 4, i, keepAndFail));
            } catch (UromException e) {
                assertThat(e.status()).isEqualTo(UromStatus.AGAIN);
            }
        }
        // A leak would be 40,000 descriptors of 2 KiB: 80 MiB.
        assertThat(heapInUse() - before).isLessThan(16L << 20);
        assertThat(drain(plugin)).isEmpty();
        plugin.close();
    }

    private static void runCommands(NativePlugin plugin, byte[] payload, int count) throws UromException {
        List<WorkerNotification> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            plugin.workerCommand(new WorkerCommand(i, 4, i, payload));
            out.clear();
            plugin.progress(out);
            if (out.size() != 1 || out.get(0).uromContext() != i) {
                throw new AssertionError("command " + i + " was answered by " + out);
            }
        }
    }

    private static long heapInUse() {
        NativeLibrary library = NativeLibrary.getInstance(echo.toString(), Map.of(Library.OPTION_OPEN_FLAGS, 1));
        return library.getFunction("fixture_heap_in_use").invokeLong(new Object[0]);
    }

    @Test
    void pluginsLoadedLocallyKeepTheirOwnSymbols() throws UromException {
        Path a = TestPlugins.build(dir, "variants.c", "helper_a.so", "-DHELPER_VALUE=111");
        Path b = TestPlugins.build(dir, "variants.c", "helper_b.so", "-DHELPER_VALUE=222");
        assertThat(NativePlugin.load(a).version()).isEqualTo(111);
        assertThat(NativePlugin.load(b).version()).isEqualTo(222);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
