// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The optional entry points: urom_plugin_get_transport, and the wake-up pair. */
class NativePluginOptionalEntriesTest {
    private static final long WAIT = 1;
    private static final long COUNT = 2;

    @TempDir
    Path dir;

    private Path fixture(String name, String... flags) {
        return NativeFixtures.compileWakeupPlugin(dir, name, flags);
    }

    private static WorkerCommand command(long op, long arg, long context) {
        byte[] payload = ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(op)
                .putLong(arg)
                .array();
        return new WorkerCommand(1, 0x4, context, payload);
    }

    private static void assertLoadFails(Path so, UromStatus status, String message) {
        assertThatThrownBy(() -> NativePlugin.load(so))
                .isInstanceOf(UromException.class)
                .hasMessage(message)
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(status);
    }

    @Test
    void aPluginNamesItsTransport() throws UromException {
        assertThat(NativePlugin.load(fixture("ucp.so", "-DTRANSPORT=\"ucp-tag\""))
                        .transport())
                .contains("ucp-tag");
        String longest = "a.b_c:d/e-F9".repeat(5) + "abcd";
        assertThat(NativePlugin.load(fixture("longest.so", "-DTRANSPORT=\"" + longest + "\""))
                        .transport())
                .contains(longest);
    }

    @Test
    void aPluginWithoutTheSymbolNamesNoTransport() throws UromException {
        assertThat(NativePlugin.load(fixture("none.so")).transport()).isEmpty();
    }

    @Test
    void aPluginWithAnInvalidTransportNameFailsToLoad() {
        Path space = fixture("space.so", "-DTRANSPORT=\"ucp tag\"");
        assertLoadFails(
                space,
                UromStatus.INVALID_VALUE,
                space
                        + ": urom_plugin_get_transport: the transport name has character U+0020 at index 3, not one of [A-Za-z0-9._:/-]");
        Path empty = fixture("empty.so", "-DTRANSPORT=\"\"");
        assertLoadFails(
                empty, UromStatus.INVALID_VALUE, empty + ": urom_plugin_get_transport: the transport name is empty");
        Path tooLong = fixture("long.so", "-DTRANSPORT=\"" + "x".repeat(65) + "\"");
        assertLoadFails(
                tooLong,
                UromStatus.INVALID_VALUE,
                tooLong + ": urom_plugin_get_transport: the transport name has more than 64 characters");
        Path utf8 = fixture("utf8.so", "-DTRANSPORT=\"caf\\xc3\\xa9\"");
        assertLoadFails(
                utf8,
                UromStatus.INVALID_VALUE,
                utf8
                        + ": urom_plugin_get_transport: the transport name has character U+00C3 at index 3, not one of [A-Za-z0-9._:/-]");
        Path nul = fixture("null.so", "-DTRANSPORT_NULL");
        assertLoadFails(nul, UromStatus.INVALID_VALUE, nul + ": urom_plugin_get_transport gave a NULL name");
        Path failing = fixture("failing.so", "-DTRANSPORT_STATUS=UROM_ERR_NOT_SUPPORTED");
        assertLoadFails(
                failing, UromStatus.NOT_SUPPORTED, failing + ": urom_plugin_get_transport returned NOT_SUPPORTED (4)");
    }

    @Test
    void theWakeupDescriptorIsArmedOnlyWhenNothingIsPending() throws UromException {
        NativePlugin plugin = NativePlugin.load(fixture("wakeup.so"));
        assertThatThrownBy(plugin::wakeupFd)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(plugin.path() + ": cannot ask for the wake-up descriptor: the plugin is not open");
        assertThatThrownBy(plugin::armWakeup)
                .isInstanceOf(UromException.class)
                .hasMessage(plugin.path() + ": cannot call urom_plugin_arm_wakeup: the plugin is not open");
        plugin.open(TestContext.withoutDomain());
        OptionalInt fd = plugin.wakeupFd();
        assertThat(fd).isPresent();
        assertThat(fd.getAsInt()).isGreaterThan(2);
        assertThat(plugin.wakeupFd()).as("asked once, the same").isEqualTo(fd);
        assertThat(plugin.armWakeup()).as("nothing pending").isTrue();

        plugin.workerCommand(command(COUNT, 0, 5));
        assertThat(plugin.armWakeup()).as("an answer is pending: AGAIN").isFalse();
        List<WorkerNotification> out = new ArrayList<>();
        plugin.progress(out);
        assertThat(out).hasSize(1);
        assertThat(plugin.armWakeup()).isTrue();

        plugin.workerCommand(command(WAIT, 1_000, 6));
        out.clear();
        for (int i = 0; i < 1_000_000 && out.isEmpty(); i++) {
            plugin.progress(out);
        }
        assertThat(out).singleElement().satisfies(n -> {
            assertThat(n.uromContext()).isEqualTo(6);
            assertThat(n.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(n.payload()).hasSize(8);
        });
        plugin.close();
    }

    @Test
    void aPluginWithoutTheWakeupPairHasNoDescriptorAndIsNeverArmed() throws UromException {
        NativePlugin plugin = NativePlugin.load(fixture("polled.so", "-DNO_WAKEUP"));
        plugin.open(TestContext.withoutDomain());
        assertThat(plugin.wakeupFd()).isEmpty();
        assertThat(plugin.armWakeup()).isFalse();
        plugin.close();
    }

    @Test
    void aDescriptorThatIsNotSupportedIsNone() throws UromException {
        NativePlugin plugin = NativePlugin.load(fixture("unsupported.so", "-DWAKEUP_UNSUPPORTED"));
        plugin.open(TestContext.withoutDomain());
        assertThat(plugin.wakeupFd()).isEmpty();
        plugin.close();
    }

    @Test
    void aFailingArmThrowsItsStatus() throws UromException {
        NativePlugin plugin = NativePlugin.load(fixture("arm_fails.so", "-DARM_STATUS=UROM_ERR_IO_FAILED"));
        plugin.open(TestContext.withoutDomain());
        assertThatThrownBy(plugin::armWakeup)
                .isInstanceOf(UromException.class)
                .hasMessage(plugin.path() + ": urom_plugin_arm_wakeup returned IO_FAILED (17)")
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(UromStatus.IO_FAILED);
        plugin.close();
        NativePlugin again = NativePlugin.load(fixture("arm_again.so", "-DARM_STATUS=UROM_ERR_AGAIN"));
        again.open(TestContext.withoutDomain());
        assertThat(again.armWakeup()).isFalse();
        again.close();
    }
}
