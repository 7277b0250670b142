// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativePluginLoadTest {
    @TempDir
    Path dir;

    private static void assertFails(ThrowingCallable load, UromStatus status, String message) {
        assertThatThrownBy(load)
                .isInstanceOf(UromException.class)
                .hasMessage(message)
                .extracting(e -> ((UromException) e).status())
                .isEqualTo(status);
    }

    @Test
    void refusesARelativePath() {
        assertFails(
                () -> NativePlugin.load(Path.of("plugins", "x.so")),
                UromStatus.INVALID_VALUE,
                "plugin path plugins/x.so is not absolute");
    }

    @Test
    void refusesAMissingFile() {
        Path missing = dir.resolve("missing.so");
        assertFails(() -> NativePlugin.load(missing), UromStatus.NOT_FOUND, missing + ": no such file");
    }

    @Test
    void refusesAFileThatIsNotAnElfObject() throws IOException {
        Path text = Files.writeString(
                dir.resolve("text.so"),
                "this is not a shared object, only a line of text long enough to be read as an ELF header\n");
        assertFails(
                () -> NativePlugin.load(text),
                UromStatus.INVALID_VALUE,
                text + ": not a loadable shared object: invalid ELF header");
    }

    @Test
    void refusesAPluginThatCallsAFunctionNoLibraryDefinesAtLoadRatherThanAtItsFirstCommand() {
        Path so = TestPlugins.build(dir, "variants.c", "unlinked_ucx.so", "-DUNDEFINED_CALL=ucp_config_read");
        assertFails(
                () -> NativePlugin.load(so),
                UromStatus.INVALID_VALUE,
                so + ": undefined symbol ucp_config_read:"
                        + " the plugin calls UCX but was not linked with it; add $(pkg-config --libs ucx) to its link line");
    }

    @Test
    void loadsThatPluginLinkedWithUcxWithoutLettingUcxTakeTheJvmsSignals() throws Exception {
        Path so = TestPlugins.build(
                dir,
                "variants.c",
                "linked_ucx.so",
                "-DUNDEFINED_CALL=ucp_config_read",
                "-Wl,--no-as-needed",
                "-lucp",
                "-lucs");
        NativePlugin plugin = NativePlugin.load(so);
        assertThat(plugin.version()).isEqualTo(5);
        plugin.open(TestContext.withoutDomain());
        plugin.close();

        // libucs, now loaded, left the JVM's handler of SIGSEGV (which it takes when UCX_ERROR_SIGNALS allows)
        List<long[]> ucs = mappings("libucs");
        long handler = SignalHandlers.of(SIGSEGV);
        assertThat(ucs).as("libucs is mapped into this JVM").isNotEmpty();
        assertThat(ucs)
                .as("SIGSEGV's handler 0x%x lies in no mapping of libucs", handler)
                .noneMatch(range -> handler >= range[0] && handler < range[1]);
    }

    private static final int SIGSEGV = 11;

    /** The address ranges of this process's mappings of files whose name contains {@code name}. */
    private static List<long[]> mappings(String name) throws IOException {
        List<long[]> ranges = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 6
                    && Path.of(fields[5]).getFileName().toString().contains(name)) {
                String[] bounds = fields[0].split("-");
                ranges.add(new long[] {Long.parseUnsignedLong(bounds[0], 16), Long.parseUnsignedLong(bounds[1], 16)});
            }
        }
        return ranges;
    }

    /** The C library's sigaction, to read a signal's handler. */
    private static final class SignalHandlers {
        static {
            Native.register(SignalHandlers.class, NativeLibrary.getInstance("c"));
        }

        private static native int sigaction(int signal, Pointer action, Pointer old);

        /** The address of {@code signal}'s handler (the first field of glibc's struct sigaction). */
        static long of(int signal) {
            Memory old = new Memory(256);
            assertThat(sigaction(signal, null, old)).isZero();
            return Pointer.nativeValue(old.getPointer(0));
        }
    }

    @Test
    void refusesAPluginWithoutGetIface() {
        Path so = TestPlugins.build(dir, "variants.c", "no_iface.so", "-DOMIT_GET_IFACE");
        assertFails(() -> NativePlugin.load(so), UromStatus.NOT_FOUND, so + ": missing symbol urom_plugin_get_iface");
    }

    @Test
    void refusesAPluginWithoutGetVersion() {
        Path so = TestPlugins.build(dir, "variants.c", "no_version.so", "-DOMIT_GET_VERSION");
        assertFails(() -> NativePlugin.load(so), UromStatus.NOT_FOUND, so + ": missing symbol urom_plugin_get_version");
    }

    @Test
    void refusesAPluginWhoseGetIfaceFails() {
        Path so = TestPlugins.build(dir, "variants.c", "iface_fails.so", "-DIFACE_STATUS=UROM_ERR_INVALID_VALUE");
        assertFails(
                () -> NativePlugin.load(so),
                UromStatus.INVALID_VALUE,
                so + ": urom_plugin_get_iface returned INVALID_VALUE (6)");
    }

    @Test
    void refusesAnotherApiVersion() {
        Path so = TestPlugins.build(dir, "variants.c", "old_api.so", "-DAPI_VERSION=1");
        assertFails(
                () -> NativePlugin.load(so),
                UromStatus.UNSUPPORTED_VERSION,
                so + ": plugin API version 0x1 is not the supported 0x2070000");
    }

    @Test
    void acceptsTheOlderUint32VersionField() throws UromException {
        Path so = TestPlugins.build(dir, "variants.c", "narrow.so", "-DNARROW_VERSION_FIELD");
        NativePlugin plugin = NativePlugin.load(so);
        assertThat(plugin.version()).isEqualTo(5);
        plugin.open(TestContext.withoutDomain());
        plugin.close();
    }
}
