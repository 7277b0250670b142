// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static dev.urom.framework.discovery.NativeFixtureSet.CTOR_EXIT;
import static dev.urom.framework.discovery.NativeFixtureSet.CTOR_HANG;
import static dev.urom.framework.discovery.NativeFixtureSet.CTOR_SEGFAULT;
import static dev.urom.framework.discovery.NativeFixtureSet.GOOD_V1;
import static dev.urom.framework.discovery.NativeFixtureSet.GOOD_V3;
import static dev.urom.framework.discovery.NativeFixtureSet.IFACE_ERROR;
import static dev.urom.framework.discovery.NativeFixtureSet.NOT_ELF;
import static dev.urom.framework.discovery.NativeFixtureSet.NO_GET_IFACE;
import static dev.urom.framework.discovery.NativeFixtureSet.NO_GET_VERSION;
import static dev.urom.framework.discovery.NativeFixtureSet.WRONG_API_VERSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.urom.framework.javaplugin.JavaPlugin;
import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.framework.javaplugin.PluginJarBuilder;
import dev.urom.framework.javaplugin.fixtures.EchoJavaPlugin;
import dev.urom.framework.javaplugin.fixtures.NotAPlugin;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.PluginIface;
import dev.urom.spi.PluginInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Discovery end to end: real {@code .so} files probed in child processes, real jars. Each bad
 * candidate must be rejected (or shadowed) with a reason that names it, while every other plugin
 * is listed with the ids it has in a scan without the bad file.
 */
class PluginDiscoveryTest {
    @TempDir
    static Path fixtureDir;

    static NativeFixtureSet fixtures;

    @TempDir
    Path work;

    Path dir;

    @BeforeAll
    static void compileFixtures() throws IOException {
        fixtures = NativeFixtureSet.compile(fixtureDir);
    }

    /** Three good plugins around the slot ("m_...") where the bad candidates go. */
    @BeforeEach
    void goodPlugins() {
        dir = work.resolve("plugins");
        fixtures.install(GOOD_V1, dir.resolve("a_native.so"));
        PluginJarBuilder.validPlugin(dir.resolve("k_java.jar"), EchoJavaPlugin.class, "2");
        fixtures.install(GOOD_V3, dir.resolve("z_native.so"));
    }

    @Test
    void listsGoodPluginsWithIdsVersionsAndKinds() {
        ScanResult result = discovery().scan(dir.toString());

        assertThat(result.rejected()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        assertThat(result.plugins())
                .containsExactly(
                        new DiscoveredPlugin(
                                new PluginInfo(1, 1, "a_native"), PluginKind.NATIVE, dir.resolve("a_native.so")),
                        new DiscoveredPlugin(
                                new PluginInfo(2, 2, "k_java"), PluginKind.JAVA, dir.resolve("k_java.jar")),
                        new DiscoveredPlugin(
                                new PluginInfo(4, 3, "z_native"), PluginKind.NATIVE, dir.resolve("z_native.so")));
    }

    static Stream<Arguments> badNativePlugins() {
        return Stream.of(
                Arguments.of(NOT_ELF, "not a loadable shared object"),
                Arguments.of(NO_GET_IFACE, "missing symbol urom_plugin_get_iface"),
                Arguments.of(NO_GET_VERSION, "missing symbol urom_plugin_get_version"),
                Arguments.of(IFACE_ERROR, "urom_plugin_get_iface returned"),
                Arguments.of(WRONG_API_VERSION, "API version 0x1000000"),
                Arguments.of(CTOR_SEGFAULT, "SIGSEGV"),
                Arguments.of(CTOR_EXIT, "exit status 3"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badNativePlugins")
    void aBadNativePluginIsRejectedAlone(String fixture, String reason) throws IOException {
        Path bad = fixtures.install(fixture, dir.resolve("m_" + fixture));

        assertRejectedAlone(bad, reason, discovery());
    }

    @Test
    void aConstructorThatNeverReturnsIsRejectedAfterTheTimeLimit() throws IOException {
        Path bad = fixtures.install(CTOR_HANG, dir.resolve("m_hang.so"));

        assertRejectedAlone(
                bad,
                "did not finish loading within 3000 ms",
                new PluginDiscovery(new PluginScanner(Duration.ofSeconds(3)), new PluginIdRegistry()));
    }

    @Test
    void aNameOverFortySevenBytesIsRejected() throws IOException {
        String name = "n".repeat(48);
        Path bad = fixtures.install(GOOD_V1, dir.resolve(name + ".so"));
        fixtures.install(GOOD_V1, dir.resolve("o".repeat(47) + ".so"));
        Path multiByte = fixtures.install(GOOD_V1, dir.resolve("é".repeat(24) + ".so"));

        ScanResult result = discovery().scan(dir.toString());

        assertThat(result.rejected())
                .containsExactly(
                        new Rejection(bad, bad + ": plugin name '" + name + "' is 48 bytes; the limit is 47"),
                        new Rejection(
                                multiByte,
                                multiByte + ": plugin name '" + "é".repeat(24) + "' is 48 bytes; the limit is 47"));
        assertThat(result.plugins()).extracting(DiscoveredPlugin::name).contains("o".repeat(47));
    }

    static Stream<Arguments> badJavaPlugins() {
        return Stream.of(
                Arguments.of(
                        "no descriptor",
                        (Function<Path, Path>) file -> PluginJarBuilder.at(file)
                                .addClass(EchoJavaPlugin.class)
                                .write(),
                        "no PF4J plugin descriptor (MANIFEST.MF Plugin-Id or plugin.properties)"),
                Arguments.of(
                        "not the SPI",
                        (Function<Path, Path>) file -> PluginJarBuilder.validPlugin(file, NotAPlugin.class, "1"),
                        "does not implement dev.urom.spi.PluginIface"),
                Arguments.of(
                        "bad version",
                        (Function<Path, Path>)
                                file -> PluginJarBuilder.validPlugin(file, EchoJavaPlugin.class, "1.0.0"),
                        "Plugin-Version '1.0.0' is not an unsigned decimal number"),
                Arguments.of(
                        "not a zip",
                        (Function<Path, Path>) file -> write(file, "plain text"),
                        "not a readable jar or zip archive"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badJavaPlugins")
    void aBadJavaPluginIsRejectedAlone(String what, Function<Path, Path> writer, String reason) throws IOException {
        Path bad = writer.apply(dir.resolve("m_bad.jar"));

        assertRejectedAlone(bad, reason, discovery());
    }

    @Test
    void aJarBundlingTheSpiIsAcceptedAndImplementsTheWorkersSpi() throws Exception {
        Path jar = PluginJarBuilder.at(dir.resolve("m_bundled.jar"))
                .manifest("Plugin-Id", "b")
                .manifest("Plugin-Version", "5")
                .manifest("Plugin-Class", EchoJavaPlugin.class.getName())
                .addClass(EchoJavaPlugin.class)
                .addClassFile(PluginIface.class)
                .write();

        PluginDiscovery discovery = discovery();
        discovery.scan(dir.toString());

        DiscoveredPlugin found = discovery.byName("m_bundled").orElseThrow();
        assertThat(found.version()).isEqualTo(5);
        JavaPlugin plugin = JavaPluginLoader.instantiate(found.path());
        try {
            assertThat(plugin.instance()).isInstanceOf(PluginIface.class);
            assertThat(plugin.instance().getClass().getClassLoader().loadClass(PluginIface.class.getName()))
                    .isSameAs(PluginIface.class);
        } finally {
            plugin.close();
        }
        assertThat(jar).exists();
    }

    @Test
    void theSameNameInALaterDirectoryIsShadowed() {
        Path later = work.resolve("later");
        Path shadowed = fixtures.install(GOOD_V3, later.resolve("a_native.so"));
        fixtures.install(GOOD_V1, later.resolve("b_only_later.so"));

        ScanResult result = discovery().scan(dir + ";" + later);

        assertThat(result.rejected())
                .containsExactly(new Rejection(
                        shadowed,
                        shadowed + ": shadowed by " + dir.resolve("a_native.so") + " (same plugin name 'a_native')"));
        assertThat(result.plugins())
                .extracting(DiscoveredPlugin::name, DiscoveredPlugin::id, DiscoveredPlugin::version)
                .containsExactly(
                        tuple("a_native", 1L, 1L),
                        tuple("k_java", 2L, 2L),
                        tuple("z_native", 4L, 3L),
                        tuple("b_only_later", 8L, 1L));
    }

    @Test
    void aJarAndASharedObjectWithTheSameNameShadowEachOther() throws IOException {
        Path jar = PluginJarBuilder.validPlugin(dir.resolve("m_same.jar"), EchoJavaPlugin.class, "1");
        Path so = fixtures.install(GOOD_V1, dir.resolve("m_same.so"));
        Path later = work.resolve("later");
        Path laterJar = PluginJarBuilder.validPlugin(later.resolve("z_native.jar"), EchoJavaPlugin.class, "1");

        ScanResult result = discovery().scan(dir + ";" + later);

        assertThat(result.rejected())
                .containsExactly(
                        new Rejection(so, so + ": shadowed by " + jar + " (same plugin name 'm_same')"),
                        new Rejection(
                                laterJar,
                                laterJar + ": shadowed by " + dir.resolve("z_native.so")
                                        + " (same plugin name 'z_native')"));
        assertThat(result.plugins())
                .extracting(DiscoveredPlugin::path)
                .containsExactly(
                        dir.resolve("a_native.so"), dir.resolve("k_java.jar"), jar, dir.resolve("z_native.so"));
    }

    @Test
    void aRejectedCandidateDoesNotClaimItsName() {
        Path broken = work.resolve("first");
        Path bad = fixtures.install(NOT_ELF, broken.resolve("echo.so"));
        Path good = fixtures.install(GOOD_V1, work.resolve("second").resolve("echo.so"));

        ScanResult result = discovery().scan(broken + ";" + work.resolve("second"));

        assertThat(result.plugins()).extracting(DiscoveredPlugin::path).containsExactly(good);
        assertThat(result.rejected()).extracting(Rejection::path).containsExactly(bad);
    }

    @Test
    void aMissingDirectoryIsAWarningAndEmptyEntriesAreIgnored() {
        Path missing = work.resolve("missing");

        ScanResult result = discovery().scan(";" + missing + ";;" + dir + ";");

        assertThat(result.warnings())
                .containsExactly("UROM_PLUGIN_PATH directory " + missing + " does not exist; skipped");
        assertThat(result.plugins()).isEqualTo(discovery().scan(dir.toString()).plugins());
    }

    @Test
    void aPathJoinedWithColonsIsOneMissingDirectoryAndTheWarningNamesTheSeparator() {
        String colonJoined = dir + ":" + work.resolve("other");

        ScanResult result = discovery().scan(colonJoined);

        assertThat(result.warnings())
                .containsExactly("UROM_PLUGIN_PATH directory " + colonJoined
                        + " does not exist; skipped (UROM_PLUGIN_PATH separates directories with ';', not ':')");
        assertThat(result.plugins()).isEmpty();
    }

    @Test
    void otherFilesAreIgnored() throws IOException {
        Files.writeString(dir.resolve("README.txt"), "not a plugin");
        fixtures.install(GOOD_V1, dir.resolve("libversioned.so.1"));
        Files.createDirectory(dir.resolve("subdir.so"));

        ScanResult result = discovery().scan(dir.toString());

        assertThat(result.rejected()).isEmpty();
        assertThat(result.plugins()).hasSize(3);
    }

    @Test
    void idsAreStableAcrossScansAndALeasedIdIsNotReused() throws IOException {
        PluginDiscovery discovery = discovery();
        ScanResult first = discovery.scan(dir.toString());
        long removedId = discovery.byName("a_native").orElseThrow().id();
        PluginIdRegistry.Lease lease = discovery.registry().lease(removedId);

        Files.delete(dir.resolve("a_native.so"));
        fixtures.install(GOOD_V1, dir.resolve("b_new.so"));
        ScanResult whileLeased = discovery.scan(dir.toString());
        lease.close();
        fixtures.install(GOOD_V1, dir.resolve("c_newer.so"));
        ScanResult afterRelease = discovery.scan(dir.toString());

        assertThat(removedId).isEqualTo(1L);
        assertThat(whileLeased.plugins())
                .extracting(DiscoveredPlugin::name, DiscoveredPlugin::id)
                .containsExactly(tuple("b_new", 8L), tuple("k_java", 2L), tuple("z_native", 4L));
        assertThat(afterRelease.plugins())
                .extracting(DiscoveredPlugin::name, DiscoveredPlugin::id)
                .containsExactly(tuple("b_new", 8L), tuple("c_newer", 1L), tuple("k_java", 2L), tuple("z_native", 4L));
        assertThat(first.plugins()).hasSize(3);
        assertThat(discovery.byId(1L)).map(DiscoveredPlugin::name).hasValue("c_newer");
    }

    @Test
    void aRebuiltFileGetsANewIdWhileTheOldOneIsLeased() throws IOException {
        PluginDiscovery discovery = discovery();
        discovery.scan(dir.toString());
        PluginIdRegistry.Lease lease = discovery.registry().lease(1L);
        Path rebuilt = dir.resolve("a_native.so");
        Files.setLastModifiedTime(
                rebuilt, FileTime.fromMillis(Files.getLastModifiedTime(rebuilt).toMillis() + 5_000));

        ScanResult result = discovery.scan(dir.toString());

        assertThat(discovery.byName("a_native").orElseThrow().id()).isEqualTo(8L);
        assertThat(result.plugins()).hasSize(3);
        lease.close();
    }

    @Test
    void unchangedFilesAreNotProbedAgain() throws IOException {
        PluginScanner scanner = new PluginScanner();
        PluginDiscovery discovery = new PluginDiscovery(scanner, new PluginIdRegistry());
        fixtures.install(NOT_ELF, dir.resolve("m_bad.so"));

        discovery.scan(dir.toString());
        long afterFirst = scanner.probeCount();
        ScanResult second = discovery.scan(dir.toString());
        long afterSecond = scanner.probeCount();
        long rejectionsAfterSecond = scanner.probeRejectionCount();
        Path touched = dir.resolve("z_native.so");
        Files.setLastModifiedTime(
                touched, FileTime.fromMillis(Files.getLastModifiedTime(touched).toMillis() + 5_000));
        fixtures.install(GOOD_V1, dir.resolve("b_new.so"));
        Path bad = dir.resolve("m_bad.so");
        Files.setLastModifiedTime(
                bad, FileTime.fromMillis(Files.getLastModifiedTime(bad).toMillis() + 5_000));
        discovery.scan(dir.toString());

        assertThat(afterFirst).isEqualTo(4);
        assertThat(afterSecond).isEqualTo(4);
        assertThat(second.rejected()).hasSize(1);
        assertThat(rejectionsAfterSecond)
                .as("the bad file's cached verdict is not a second rejection")
                .isEqualTo(1);
        assertThat(scanner.probeCount()).isEqualTo(7);
        assertThat(scanner.probeRejectionCount())
                .as("the changed bad file was probed and rejected again")
                .isEqualTo(2);
    }

    @Test
    void aPluginInADirectoryWritableByOthersIsNeverLoaded() throws IOException {
        Path marker = work.resolve("constructor-ran");
        Path built = NativeFixtures.compilePlugin(
                work.resolve("build"),
                "marker.so",
                "#include <fcntl.h>\n#include <unistd.h>\n"
                        + "__attribute__((constructor)) static void mark(void) { int fd = open(\"" + marker
                        + "\", O_CREAT | O_WRONLY, 0644); if (fd >= 0) close(fd); }\n"
                        + NativeFixtures.minimalPluginSource(1, "marker"));
        Path open = Files.createDirectory(work.resolve("open"));
        Path plugin = Files.copy(built, open.resolve("m_marker.so"));
        Files.setAttribute(open, "unix:mode", 0777);

        ScanResult result = discovery().scan(open.toString());
        boolean ranWhileOpen = Files.exists(marker);
        Files.setAttribute(open, "unix:mode", 0755);
        ScanResult trusted = discovery().scan(open.toString());

        assertThat(result.plugins()).isEmpty();
        assertThat(result.rejected()).singleElement().satisfies(rejection -> {
            assertThat(rejection.path()).isEqualTo(plugin);
            assertThat(rejection.reason())
                    .startsWith(plugin + ": not probed: " + open + " is mode 0777")
                    .endsWith("writable by others");
        });
        assertThat(ranWhileOpen)
                .as("the constructor of a plugin in a directory writable by others ran")
                .isFalse();
        assertThat(trusted.plugins()).extracting(DiscoveredPlugin::path).containsExactly(plugin);
        assertThat(marker)
                .as("the same plugin in a trusted directory is probed (its constructor runs)")
                .exists();
    }

    @Test
    void theSixtyFifthPluginGetsNoId() throws IOException {
        Path many = work.resolve("many");
        for (int i = 0; i < 65; i++) {
            fixtures.install(GOOD_V1, many.resolve(String.format("p%02d.so", i)));
        }

        ScanResult result = discovery().scan(many.toString());

        Path last = many.resolve("p64.so");
        assertThat(result.plugins()).hasSize(64);
        assertThat(result.idMask()).isEqualTo(-1L);
        assertThat(result.rejected())
                .containsExactly(new Rejection(last, last + ": no free plugin id (all 64 ids are in use)"));
    }

    /**
     * Scans with {@code bad} in place, then without it (fresh registries): {@code bad} alone is
     * rejected, with a one-line reason naming it, and every other plugin keeps its id.
     */
    private void assertRejectedAlone(Path bad, String reasonFragment, PluginDiscovery withBad) throws IOException {
        ScanResult with = withBad.scan(dir.toString());
        Files.delete(bad);
        ScanResult without = discovery().scan(dir.toString());

        assertThat(with.rejected()).singleElement().satisfies(rejection -> {
            assertThat(rejection.path()).isEqualTo(bad);
            assertThat(rejection.reason())
                    .contains(bad.toString())
                    .contains(reasonFragment)
                    .doesNotContain("\n");
        });
        assertThat(without.rejected()).isEmpty();
        assertThat(with.plugins()).hasSize(3).isEqualTo(without.plugins());
        assertThat(with.warnings()).isEmpty();
    }

    private static PluginDiscovery discovery() {
        return new PluginDiscovery();
    }

    private static Path write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            return Files.writeString(file, text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
