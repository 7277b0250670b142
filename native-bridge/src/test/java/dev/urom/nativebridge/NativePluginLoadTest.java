// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        assertFails(() -> NativePlugin.load(Path.of("plugins", "x.so")), UromStatus.INVALID_VALUE,
                "plugin path plugins/x.so is not absolute");
    }

    @Test
    void refusesAMissingFile() {
        Path missing = dir.resolve("missing.so");
        assertFails(() -> NativePlugin.load(missing), UromStatus.NOT_FOUND, missing + ": no such file");
    }

    @Test
    void refusesAFileThatIsNotAnElfObject() throws IOException {
        Path text = Files.writeString(dir.resolve("text.so"), "this is not a shared object, only a line of text long enough to be read as an ELF header\n");
        assertFails(() -> NativePlugin.load(text), UromStatus.INVALID_VALUE,
                text + ": not a loadable shared object: invalid ELF header");
    }

    @Test
    void refusesAPluginThatCallsAFunctionNoLibraryDefinesAtLoadRatherThanAtItsFirstCommand() {
        Path so = TestPlugins.build(dir, "variants.c", "unlinked_ucx.so", "-DUNDEFINED_CALL=ucp_config_read");
        assertFails(() -> NativePlugin.load(so), UromStatus.INVALID_VALUE, so + ": undefined symbol ucp_config_read:"
                + " the plugin calls UCX but was not linked with it; add $(pkg-config --libs ucx) to its link line");
    }

    @Test
    void loadsThatPluginLinkedWithUcx() throws UromException {
        Path so = TestPlugins.build(dir, "variants.c", "linked_ucx.so", "-DUNDEFINED_CALL=ucp_config_read",
                "-Wl,--no-as-needed", "-lucp", "-lucs");
        NativePlugin plugin = NativePlugin.load(so);
        assertThat(plugin.version()).isEqualTo(5);
        plugin.open(TestContext.withoutDomain());
        plugin.close();
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
        assertFails(() -> NativePlugin.load(so), UromStatus.INVALID_VALUE,
                so + ": urom_plugin_get_iface returned INVALID_VALUE (6)");
    }

    @Test
    void refusesAnotherApiVersion() {
        Path so = TestPlugins.build(dir, "variants.c", "old_api.so", "-DAPI_VERSION=1");
        assertFails(() -> NativePlugin.load(so), UromStatus.UNSUPPORTED_VERSION,
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
