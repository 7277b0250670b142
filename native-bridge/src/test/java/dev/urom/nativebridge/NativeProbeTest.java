// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeProbeTest {
    private static final Duration GENEROUS = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void acceptsAValidPluginWithItsVersion() {
        Path so = NativeFixtures.compileMinimalPlugin(dir, "minimal.so", 0xFFFF_FFFF_FFFF_FFFEL);
        ProbeOutcome outcome = NativeProbe.probe(so, GENEROUS);
        assertThat(outcome.accepted()).as(outcome.reason()).isTrue();
        assertThat(outcome.version()).isEqualTo(0xFFFF_FFFF_FFFF_FFFEL);
        assertThat(outcome.reason()).isEmpty();
    }

    @Test
    void rejectsAFileThatIsNotAnElfObject() throws IOException {
        Path text = Files.writeString(
                dir.resolve("text.so"),
                "no ELF here: a line of text long enough to be read as an ELF header by the loader\n");
        assertThat(NativeProbe.probe(text, GENEROUS))
                .isEqualTo(ProbeOutcome.rejected(text + ": not a loadable shared object: invalid ELF header"));
    }

    @Test
    void rejectsAMissingSymbol() {
        Path so = TestPlugins.build(dir, "variants.c", "no_version.so", "-DOMIT_GET_VERSION");
        assertThat(NativeProbe.probe(so, GENEROUS))
                .isEqualTo(ProbeOutcome.rejected(so + ": missing symbol urom_plugin_get_version"));
    }

    @Test
    void rejectsAPluginThatCallsAFunctionNoLibraryDefinesNamingTheSymbolAndWhatToLink() {
        Path ucx = TestPlugins.build(dir, "variants.c", "unlinked_ucx.so", "-DUNDEFINED_CALL=ucp_config_read");
        Path other = TestPlugins.build(dir, "variants.c", "unlinked.so", "-DUNDEFINED_CALL=urom_test_defined_nowhere");

        assertThat(NativeProbe.probe(ucx, GENEROUS))
                .isEqualTo(
                        ProbeOutcome.rejected(
                                ucx + ": undefined symbol ucp_config_read:"
                                        + " the plugin calls UCX but was not linked with it; add $(pkg-config --libs ucx) to its link line"));
        assertThat(NativeProbe.probe(other, GENEROUS))
                .isEqualTo(ProbeOutcome.rejected(other + ": undefined symbol urom_test_defined_nowhere:"
                        + " link the plugin with the library that defines it (-lNAME on its link line), or define it"));
    }

    @Test
    void acceptsThatPluginOnceLinkedWithTheLibraryThatDefinesTheFunction() {
        Path linked = TestPlugins.build(
                dir,
                "variants.c",
                "linked_ucx.so",
                "-DUNDEFINED_CALL=ucp_config_read",
                "-Wl,--no-as-needed",
                "-lucp",
                "-lucs");

        assertThat(NativeProbe.probe(linked, GENEROUS)).isEqualTo(ProbeOutcome.accepted(5));
    }

    @Test
    void namesTheLibraryWhenTheUndefinedSymbolIsInALibraryThePluginNeeds() {
        Path library = NativeFixtures.compilePlugin(
                dir,
                "libneedsmore.so",
                "extern int urom_test_defined_nowhere(void);\n"
                        + "__attribute__((visibility(\"default\"))) int urom_test_helper(void) { return urom_test_defined_nowhere(); }\n");
        Path plugin = TestPlugins.build(
                dir,
                "variants.c",
                "uses_helper.so",
                "-DUNDEFINED_CALL=urom_test_helper",
                "-Wl,--no-as-needed",
                "-L" + dir,
                "-lneedsmore",
                "-Wl,-rpath," + dir);

        assertThat(NativeProbe.probe(plugin, GENEROUS))
                .isEqualTo(ProbeOutcome.rejected(plugin + ": the library " + library
                        + ", which it needs, has the undefined symbol urom_test_defined_nowhere"));
    }

    @Test
    void rejectsAFailingGetIfaceAndAWrongApiVersion() {
        Path failing = TestPlugins.build(dir, "variants.c", "fails.so", "-DIFACE_STATUS=UROM_ERR_INVALID_VALUE");
        assertThat(NativeProbe.probe(failing, GENEROUS).reason())
                .isEqualTo(failing + ": urom_plugin_get_iface returned INVALID_VALUE (6)");
        Path old = TestPlugins.build(dir, "variants.c", "old.so", "-DAPI_VERSION=1");
        assertThat(NativeProbe.probe(old, GENEROUS).reason())
                .isEqualTo(old + ": plugin API version 0x1 is not the supported 0x2070000");
    }

    @Test
    void acceptsTheOlderUint32VersionField() {
        Path so = TestPlugins.build(dir, "variants.c", "narrow.so", "-DNARROW_VERSION_FIELD");
        assertThat(NativeProbe.probe(so, GENEROUS)).isEqualTo(ProbeOutcome.accepted(5));
    }

    @Test
    void survivesAConstructorThatCrashes() {
        Path so = TestPlugins.build(dir, "variants.c", "segv.so", "-DCTOR_SEGV");
        assertThat(NativeProbe.probe(so, GENEROUS))
                .isEqualTo(ProbeOutcome.rejected("probe crashed while loading " + so + ": signal 11 (SIGSEGV)"));
    }

    @Test
    void survivesAConstructorThatExits() {
        Path so = TestPlugins.build(dir, "variants.c", "exits.so", "-DCTOR_EXIT=3");
        assertThat(NativeProbe.probe(so, GENEROUS))
                .isEqualTo(ProbeOutcome.rejected(so + " ended the probe process with exit status 3 while loading"));
    }

    @Test
    void killsAConstructorThatHangs() {
        Path so = TestPlugins.build(dir, "variants.c", "hangs.so", "-DCTOR_HANG");
        assertThat(NativeProbe.probe(so, Duration.ofSeconds(1)))
                .isEqualTo(ProbeOutcome.rejected(so + " did not finish loading within 1000 ms"));
    }

    @Test
    void interpretsUnexpectedAnswers() {
        Path so = dir.resolve("x.so");
        assertThat(NativeProbe.interpret(so, "garbage", 0).reason())
                .isEqualTo(so + ": the probe answered an unexpected line: garbage");
        assertThat(NativeProbe.interpret(so, null, 128 + 6).reason())
                .isEqualTo("probe crashed while loading " + so + ": signal 6 (SIGABRT)");
        assertThat(NativeProbe.interpret(so, "ok version=18446744073709551615 api=0x2070000", 0)
                        .version())
                .isEqualTo(-1L);
    }
}
