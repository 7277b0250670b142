// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a plugin author gets it: {@code urom-VERSION.tar.gz} (system property
 * {@code urom.dist.archive}) unpacked with {@code tar} into a temporary folder, its layout and modes,
 * and plugins of each kind built with nothing but the unpacked copy (its pkg-config files, headers,
 * jars and Maven repository) and run by its own {@code bin/urom}, never the repository's.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DistributionIT {
    private static final Path REPO =
            Path.of(System.getProperty("urom.repo", "..")).toAbsolutePath().normalize();
    private static final long COMMAND_SECONDS = 120;
    /** The graph sample's LOOPBACK of 42, which a new plugin project answers with the same bytes. */
    private static final String LOOPBACK_42 = "0000000000000000" + "2a00000000000000";

    @TempDir
    static Path unpacked;

    private static Path dist;
    private static String version;

    @TempDir
    Path work;

    @BeforeAll
    static void unpack() throws Exception {
        String archiveProperty = System.getProperty("urom.dist.archive");
        String name = System.getProperty("urom.dist.name");
        assertThat(archiveProperty)
                .as("system property urom.dist.archive: failsafe sets it after package "
                        + "(mvn verify -Dit.test=DistributionIT; surefire's -Dtest runs before the archive exists)")
                .isNotNull();
        Path archive = Path.of(archiveProperty);
        assertThat(archive)
                .as("the distribution's archive; build it with package")
                .isRegularFile();
        String listing = run(unpacked, Map.of(), "tar", "-tzf", archive.toString());
        assertThat(listing.lines())
                .as("every entry under the single top folder")
                .allMatch(entry -> entry.startsWith(name + "/"));
        // -p: the modes as the archive has them, whatever the umask of whoever runs the test.
        run(unpacked, Map.of(), "tar", "-xpzf", archive.toString());
        dist = unpacked.resolve(name);
        version = name.substring("urom-".length());
    }

    @Test
    void theArchiveIsLaidOutAsAnSdkWithItsOwnModes() throws IOException {
        assertThat(mode(dist.resolve("bin/urom"))).isEqualTo("rwxr-xr-x");
        assertThat(mode(dist.resolve("lib/native/urom-probe"))).isEqualTo("rwxr-xr-x");
        assertThat(mode(dist.resolve("lib/native/urom-launch"))).isEqualTo("rwxr-xr-x");
        assertThat(filesUnder(dist.resolve("lib"))
                        .filter(file -> file.toString().endsWith(".so")))
                .extracting(Path::getFileName)
                .extracting(Path::toString)
                .contains(
                        "libdoca_urom.so",
                        "libdoca_common.so",
                        "libdoca_argp.so",
                        "liburom_bridge.so",
                        "liburom_mpi.so");
        assertThat(filesUnder(dist).filter(file -> file.toString().endsWith(".so")))
                .allSatisfy(
                        library -> assertThat(mode(library)).as("%s", library).isEqualTo("rwxr-xr-x"));
        assertThat(dist.resolve("lib/urom-spi-" + version + ".jar")).isRegularFile();
        assertThat(dist.resolve("lib/pkgconfig"))
                .isDirectoryContaining("glob:**/urom-plugin.pc")
                .isDirectoryContaining("glob:**/doca-urom.pc")
                .isDirectoryContaining("glob:**/doca-common.pc")
                .isDirectoryContaining("glob:**/doca-argp.pc");
        assertThat(dist.resolve("plugins/worker_graph/worker_graph.so")).isRegularFile();
        assertThat(dist.resolve("plugins/worker_sandbox/worker_sandbox_java.jar"))
                .isRegularFile();
        assertThat(dist.resolve("plugins/worker_coll/worker_coll.so")).isRegularFile();
        assertThat(dist.resolve("plugins/worker_coll/worker_coll_java.jar")).isRegularFile();
        assertThat(dist.resolve("share/urom/host/coll"))
                .isDirectoryContaining("glob:**/urom_coll_host.h")
                .isDirectoryContaining("glob:**/urom_coll_host.c")
                .isDirectoryContaining("glob:**/urom_coll.h");
        try (Stream<Path> pluginDirs = Files.walk(dist.resolve("plugins"))) {
            assertThat(pluginDirs.filter(Files::isDirectory))
                    .allSatisfy(dir -> assertThat(mode(dir)).as("%s", dir).isEqualTo("rwxr-xr-x"));
        }
        try (Stream<Path> everything = Files.walk(dist)) {
            assertThat(everything)
                    .as("nothing writable by group or others")
                    .allSatisfy(path -> assertThat(Files.getPosixFilePermissions(path))
                            .as("%s", path)
                            .doesNotContain(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE));
        }
        assertThat(dist.resolve("share/doc/urom/README.md")).isRegularFile();
        assertThat(names(dist.resolve("share/doc/urom/docs"), "*.md")).containsAll(names(REPO.resolve("docs"), "*.md"));
        assertThat(dist.resolve("share/doc/urom/SDK.md")).isRegularFile();
        assertThat(dist.resolve("share/doc/urom/CHANGELOG.md")).hasSameTextualContentAs(REPO.resolve("CHANGELOG.md"));
        assertThat(dist.resolve("LICENSE"))
                .as("the licence, at the top")
                .hasSameTextualContentAs(REPO.resolve("LICENSE"));
        assertThat(dist.resolve("NOTICE")).as("the notice, at the top").hasSameTextualContentAs(REPO.resolve("NOTICE"));
        assertThat(dist.resolve("share/urom/systemd/urom.service"))
                .hasSameTextualContentAs(REPO.resolve("deploy/systemd/urom.service"));
        assertThat(dist.resolve("share/urom/systemd/urom.env"))
                .hasSameTextualContentAs(REPO.resolve("deploy/systemd/urom.env"));
    }

    @Test
    void includeHoldsEveryCHeaderOfOurs() throws IOException {
        Set<String> ours = new TreeSet<>();
        ours.addAll(names(REPO.resolve("spi/src/main/c/include"), "*.h"));
        ours.addAll(names(REPO.resolve("spi/src/main/c/include/compat"), "*.h"));
        ours.addAll(names(REPO.resolve("host-c/src/main/c/include"), "*.h"));
        Path testkitHeaders = REPO.resolve("testkit/src/main/c/include");
        if (Files.isDirectory(testkitHeaders)) {
            try (Stream<Path> headers = filesUnder(testkitHeaders)) {
                headers.filter(file -> file.toString().endsWith(".h"))
                        .forEach(
                                file -> ours.add(testkitHeaders.relativize(file).toString()));
            }
        }

        assertThat(ours)
                .contains(
                        "urom_plugin.h",
                        "urom_status.h",
                        "urom_log.h",
                        "urom_version.h",
                        "doca_urom_plugin.h",
                        "doca_urom.h");
        assertThat(ours)
                .allSatisfy(header ->
                        assertThat(dist.resolve("include").resolve(header)).isRegularFile());
        assertThat(dist.resolve("include/ucx-fallback/ucs/datastruct/list.h")).isRegularFile();
        // Made from its template by host-c's build: the DOCA API level and this release.
        assertThat(dist.resolve("include/doca_version.h"))
                .content()
                .contains("#define UROM_VERSION_STRING \"" + version + "\"")
                .doesNotContain("@");
    }

    @Test
    void aCPluginBuiltWithUromPluginFlagsAndHiddenSymbolsRunsUnderTheUnpackedLauncher() throws Exception {
        assertThat(pkgConfig("--libs", "urom-plugin"))
                .as("a plugin links against nothing of ours")
                .isEmpty();
        Path plugins = pluginDir("c");
        List<String> cc = new ArrayList<>(List.of("cc", "-shared", "-fPIC", "-fvisibility=hidden", "-Wall", "-Werror"));
        cc.addAll(pkgConfig("--cflags", "urom-plugin"));
        cc.addAll(List.of(
                "-o",
                plugins.resolve("sdk_graph.so").toString(),
                REPO.resolve("plugins/graph/src/main/c/worker_graph.c").toString()));
        run(work, Map.of(), cc.toArray(String[]::new));

        String out = exec(dist.resolve("bin/urom"), plugins, "sdk_graph", "00000000000000002a00000000000000");

        assertThat(exportedSymbols(plugins.resolve("sdk_graph.so")))
                .containsExactly("urom_plugin_get_iface", "urom_plugin_get_version");
        assertThat(out).contains("status: SUCCESS (0)", "payload: 00000000000000002a00000000000000");
    }

    @Test
    void aPluginNamedInUtf8RunsFromAShellWithoutALocale() throws Exception {
        Path plugins = Files.createDirectories(work.resolve("plügins"));
        Files.copy(dist.resolve("plugins/worker_graph/worker_graph.so"), plugins.resolve("wörker_graph.so"));

        String scan = run(work, pluginEnv(plugins), dist.resolve("bin/urom").toString(), "plugins", "--scan");
        String out = exec(dist.resolve("bin/urom"), plugins, "wörker_graph", LOOPBACK_42);

        assertThat(scan)
                .contains("wörker_graph", plugins.resolve("wörker_graph.so").toString());
        assertThat(out).contains("status: SUCCESS (0)", "payload: " + LOOPBACK_42);
    }

    @Test
    void aDocaStylePluginBuildsWithTheDocaUromFlagsAloneAndRunsThroughALinkToTheLauncher() throws Exception {
        // DOCA's samples define the two entry points without any attribute: the headers must export them.
        String fixture = Files.readString(REPO.resolve("plugins/graph/src/test/c/doca_style_counter.c"));
        String asDocaWritesIt =
                fixture.replace("DOCA_EXPORTED doca_error_t urom_plugin_get_", "doca_error_t urom_plugin_get_");
        assertThat(asDocaWritesIt).isNotEqualTo(fixture).doesNotContain("DOCA_EXPORTED doca_error_t urom_plugin_get_");
        Path source = Files.writeString(work.resolve("counter.c"), asDocaWritesIt);
        Path plugins = pluginDir("doca");
        List<String> cc = new ArrayList<>(List.of("cc", "-shared", "-fPIC", "-fvisibility=hidden"));
        cc.addAll(pkgConfig("--cflags", "doca-urom"));
        cc.addAll(List.of("-o", plugins.resolve("sdk_counter.so").toString(), source.toString()));
        run(work, Map.of(), cc.toArray(String[]::new));
        Path link = Files.createSymbolicLink(
                Files.createDirectories(work.resolve("elsewhere/bin")).resolve("urom"), dist.resolve("bin/urom"));

        String added = exec(link, plugins, "sdk_counter", "00000000000000000500000000000000");

        assertThat(exportedSymbols(plugins.resolve("sdk_counter.so")))
                .containsExactly("urom_plugin_get_iface", "urom_plugin_get_version");
        assertThat(added).contains("status: SUCCESS (0)", "payload: 00000000000000000500000000000000");
        ProcessResult unknownOp = runForStatus(
                work,
                pluginEnv(plugins),
                link.toString(),
                "exec",
                "--plugin",
                "sdk_counter",
                "--payload-hex",
                "01000000000000000500000000000000");
        assertThat(unknownOp.status()).as(unknownOp.output()).isEqualTo(1);
        assertThat(unknownOp.output()).contains("status: NOT_SUPPORTED (4)");
    }

    @Test
    void theDocaListHeaderIsUcxsWhenInstalledAndTheShippedCopyOtherwise() throws Exception {
        Path probe = Files.writeString(work.resolve("probe.c"), """
                #include <ucs/datastruct/list.h>
                #if defined(UCS_LIST_H_)
                const char *list_header = "ucx";
                #elif defined(UROM_UCS_LIST_FALLBACK_H_)
                const char *list_header = "fallback";
                #endif
                """);
        List<String> flags = pkgConfig("--cflags", "doca-urom");
        String gccHeaders =
                run(work, Map.of(), "cc", "-print-file-name=include").strip();

        List<String> installed = new ArrayList<>(List.of("cc", "-E", "-P"));
        installed.addAll(flags);
        installed.add(probe.toString());
        // Without the system's headers (UCX's among them), as on a machine without libucx-dev.
        List<String> withoutUcx = new ArrayList<>(List.of("cc", "-E", "-P", "-nostdinc", "-isystem", gccHeaders));
        withoutUcx.addAll(flags);
        withoutUcx.add(probe.toString());

        assertThat(run(work, Map.of(), installed.toArray(String[]::new)))
                .as("libucx-dev is installed: its header wins")
                .contains("list_header = \"ucx\"");
        assertThat(run(work, Map.of(), withoutUcx.toArray(String[]::new))).contains("list_header = \"fallback\"");
    }

    @Test
    void aJavaPluginCompiledAgainstTheUnpackedSpiJarRunsUnderTheUnpackedLauncher() throws Exception {
        Path classes = Files.createDirectories(work.resolve("classes"));
        int compiled = ToolProvider.getSystemJavaCompiler()
                .run(
                        null,
                        null,
                        null,
                        "--release",
                        "17",
                        "-d",
                        classes.toString(),
                        "-classpath",
                        dist.resolve("lib/urom-spi-" + version + ".jar").toString(),
                        resource("sdk/java/sdk/example/ReversePlugin.java").toString());
        assertThat(compiled).as("javac's exit status").isZero();
        Path plugins = pluginDir("java");
        writePluginJar(plugins.resolve("sdk_reverse.jar"), "sdk_reverse", "sdk.example.ReversePlugin", classes);

        String out = exec(dist.resolve("bin/urom"), plugins, "sdk_reverse", "0102030405");

        assertThat(out).contains("status: SUCCESS (0)", "payload: 0504030201");
    }

    @Test
    void theRepositoryLauncherRunsTheDistributionThatUromHomeNames() throws Exception {
        Map<String, String> env = Map.of("UROM_HOME", dist.toString());

        String scan = run(work, env, REPO.resolve("bin/urom").toString(), "plugins", "--scan", "--json");

        assertThat(scan)
                .contains(
                        dist.resolve("plugins/worker_graph/worker_graph.so").toString(),
                        dist.resolve("plugins/worker_sandbox/worker_sandbox_java.jar")
                                .toString());
    }

    @Test
    void aPluginThatCallsUcxBuiltWithTheLineOfPluginAuthorsMdIsListedAndWithoutItsLibrariesIsRefusedNamingTheSymbol()
            throws Exception {
        String doc = Files.readString(REPO.resolve("docs/plugin-authors.md"));
        String section = doc.substring(doc.indexOf("## A plugin written for DOCA UROM"));
        int start = section.indexOf("```\n") + 4;
        String block = section.substring(start, section.indexOf("\n```", start));
        assertThat(block.lines().findFirst()).hasValue("export PKG_CONFIG_PATH=<sdk>/lib/pkgconfig");
        String documented = block.substring(block.indexOf('\n') + 1);
        assertThat(documented).startsWith("cc ").contains("my_plugin.c", "my_plugin.so", "$(pkg-config --libs ucx)");
        Path sources = REPO.resolve("plugins/sandbox/src/main/c");
        for (String file : List.of("worker_sandbox.c", "sandbox_files.c", "sandbox_files.h")) {
            Files.copy(sources.resolve(file), work.resolve(file));
        }
        String linked = documented
                .replace("my_plugin.c", "worker_sandbox.c sandbox_files.c")
                .replace("my_plugin.so", "worker_doca_ucx.so");
        String unlinked = linked.replace("-Wl,-z,defs ", "")
                .replace("$(pkg-config --libs ucx)", "")
                .replace("worker_doca_ucx.so", "worker_unlinked.so");
        Map<String, String> env =
                Map.of("PKG_CONFIG_PATH", dist.resolve("lib/pkgconfig").toString());

        run(work, env, "sh", "-c", linked);
        run(work, env, "sh", "-c", unlinked);
        Path plugins = pluginDir("doca_ucx");
        Files.copy(work.resolve("worker_doca_ucx.so"), plugins.resolve("worker_doca_ucx.so"));
        Files.copy(work.resolve("worker_unlinked.so"), plugins.resolve("worker_unlinked.so"));
        String scan = run(work, pluginEnv(plugins), dist.resolve("bin/urom").toString(), "plugins", "--scan");

        assertThat(scan)
                .containsPattern("native +worker_doca_ucx +"
                        + java.util.regex.Pattern.quote(
                                plugins.resolve("worker_doca_ucx.so").toString()))
                .contains(plugins.resolve("worker_unlinked.so") + ": undefined symbol ")
                .contains(
                        ": the plugin calls UCX but was not linked with it; add $(pkg-config --libs ucx) to its link line");
    }

    @Test
    void newPluginWritesACProjectThatBuildsAndTestsItselfAgainstTheUnpackedSdkAndRunsInAWorker() throws Exception {
        Path launcher = dist.resolve("bin/urom");

        String wrote = run(work, Map.of(), launcher.toString(), "new-plugin", "demo_c", "--lang", "c");

        Path project = work.resolve("demo_c");
        assertThat(wrote)
                .contains(
                        "wrote " + project + ", plugin worker_demo_c in c",
                        "build and test it: cd " + project + " && make test");
        // Moved one folder deeper, the project no longer finds its SDK by its relative path: one line says so, and
        // UROM_HOME names it.
        Path moved = Files.createDirectories(work.resolve("moved")).resolve("demo_c");
        run(work, Map.of(), "cp", "-R", project.toString(), moved.toString());
        ProcessResult lost = runForStatus(moved, Map.of(), "make", "--no-print-directory", "test");
        assertThat(lost.status()).isNotZero();
        assertThat(lost.output().strip())
                .endsWith("the urom SDK is not found (pkg-config knows no urom-plugin):"
                        + " export UROM_HOME=DIR, the folder with bin/urom and lib/pkgconfig.  Stop.")
                .doesNotContain("\n");
        assertThat(run(moved, Map.of("UROM_HOME", dist.toString()), "make", "--no-print-directory", "test"))
                .containsPattern("test_worker_demo_c: [1-9][0-9]* passed, 0 failed");
        String test = run(project, Map.of(), "make", "--no-print-directory", "test");
        assertThat(test).containsPattern("test_worker_demo_c: [1-9][0-9]* passed, 0 failed");
        Path plugins = pluginDir("demo_c");
        Files.copy(project.resolve("worker_demo_c.so"), plugins.resolve("worker_demo_c.so"));
        assertThat(exec(launcher, plugins, "worker_demo_c", LOOPBACK_42))
                .contains("status: SUCCESS (0)", "payload: " + LOOPBACK_42);
    }

    @Test
    void newPluginWritesAJavaProjectThatBuildsAndTestsItselfOfflineAgainstShareMavenAndRunsInAWorker()
            throws Exception {
        Path launcher = dist.resolve("bin/urom");

        run(work, Map.of(), launcher.toString(), "new-plugin", "demo_java", "--lang", "java");

        Path project = work.resolve("demo_java");
        // Third-party artifacts from the local repository of the build that runs this test, through a profile
        // of the test's own settings: the generated pom is built as it was written.
        Path buildRepo = Path.of(System.getProperty("urom.maven.repo.local"));
        Path settings = Files.writeString(work.resolve("settings.xml"), """
                <settings><profiles><profile><id>build</id>
                  <activation><activeByDefault>true</activeByDefault></activation>
                  <repositories><repository><id>build</id><url>%1$s</url></repository></repositories>
                  <pluginRepositories><pluginRepository><id>build</id><url>%1$s</url></pluginRepository></pluginRepositories>
                </profile></profiles></settings>
                """.formatted(buildRepo.toUri()));
        // A local repository of its own: what comes from share/maven is told apart from what the outer build installed.
        Path localRepo = work.resolve("m2");
        Path mvn = Path.of(System.getProperty("urom.maven.home"), "bin", "mvn");

        // UROM_HOME wins over the SDK the project found from its own folder: naming a folder that is no SDK fails the
        // build.
        ProcessResult elsewhere = runForStatus(
                project,
                Map.of("UROM_HOME", work.resolve("no-sdk").toString()),
                mvn.toString(),
                "-o",
                "-B",
                "-q",
                "-s",
                settings.toString(),
                "-Dmaven.repo.local=" + work.resolve("m2-elsewhere"),
                "package");
        assertThat(elsewhere.status()).as(elsewhere.output()).isNotZero();
        assertThat(elsewhere.output()).contains("dev.urom:urom-spi:jar:" + version);

        run(
                project,
                Map.of(),
                mvn.toString(),
                "-o",
                "-B",
                "-q",
                "-s",
                settings.toString(),
                "-Dmaven.repo.local=" + localRepo,
                "package");

        String report = Files.readString(
                project.resolve("target/surefire-reports/TEST-com.example.demo_java.DemoJavaPluginTest.xml"));
        assertThat(report).containsPattern("tests=\"[1-9][0-9]*\"").contains("failures=\"0\"", "errors=\"0\"");
        for (String artifact :
                List.of("urom-spi", "urom-testkit", "urom-framework", "urom-native-bridge", "urom-wire")) {
            assertThat(Files.readString(localRepo
                            .resolve("dev/urom")
                            .resolve(artifact)
                            .resolve(version)
                            .resolve("_remote.repositories")))
                    .as("%s came from the distribution's repository", artifact)
                    .contains(">urom-sdk=");
        }
        Path plugins = pluginDir("demo_java");
        Files.copy(project.resolve("target/worker_demo_java.jar"), plugins.resolve("worker_demo_java.jar"));
        assertThat(exec(launcher, plugins, "worker_demo_java", LOOPBACK_42))
                .contains("status: SUCCESS (0)", "payload: " + LOOPBACK_42);
    }

    @Test
    void newPluginRefusesAFolderThatExistsWithOneLineAndWritesNothing() throws Exception {
        Path existing = Files.createDirectory(work.resolve("taken"));

        ProcessResult result = runForStatus(
                work, Map.of(), dist.resolve("bin/urom").toString(), "new-plugin", "taken", "--lang", "java");

        assertThat(result.status()).isEqualTo(1);
        assertThat(result.output().strip())
                .isEqualTo("urom new-plugin: " + existing
                        + " already exists; name a new folder (another plugin name or --dir)");
        assertThat(Files.list(existing)).isEmpty();
    }

    /** The names of the functions and data a shared object defines in its dynamic symbol table, sorted. */
    private List<String> exportedSymbols(Path library) throws Exception {
        return run(work, Map.of(), "nm", "-D", "--defined-only", library.toString())
                .lines()
                .map(line -> line.substring(line.lastIndexOf(' ') + 1))
                .sorted()
                .toList();
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static Stream<Path> filesUnder(Path dir) throws IOException {
        return Files.walk(dir).filter(Files::isRegularFile);
    }

    private static Set<String> names(Path dir, String glob) throws IOException {
        Set<String> found = new TreeSet<>();
        try (var entries = Files.newDirectoryStream(dir, glob)) {
            entries.forEach(entry -> found.add(entry.getFileName().toString()));
        }
        return found;
    }

    private Path pluginDir(String name) throws IOException {
        Path dir = Files.createDirectories(work.resolve("plugins-" + name));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(DistributionIT.class.getClassLoader().getResource(name).toURI());
    }

    private static void writePluginJar(Path jar, String id, String pluginClass, Path classes) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Plugin-Id", id);
        manifest.getMainAttributes().putValue("Plugin-Version", "1");
        manifest.getMainAttributes().putValue("Plugin-Class", pluginClass);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
                Stream<Path> files = filesUnder(classes)) {
            for (Path file : files.toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(file).toString()));
                Files.copy(file, out);
                out.closeEntry();
            }
        }
    }

    /** The words of {@code pkg-config ARGS} against the unpacked distribution's pkgconfig folder only. */
    private List<String> pkgConfig(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("pkg-config"));
        command.addAll(Arrays.asList(args));
        Map<String, String> env =
                Map.of("PKG_CONFIG_PATH", dist.resolve("lib/pkgconfig").toString(), "PKG_CONFIG_LIBDIR", "");
        String out = run(work, env, command.toArray(String[]::new)).strip();
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }

    private static Map<String, String> pluginEnv(Path plugins) {
        return Map.of("UROM_PLUGIN_PATH", plugins.toString());
    }

    /** {@code LAUNCHER exec --plugin NAME --payload-hex HEX} with only that plugin folder; it must succeed. */
    private String exec(Path launcher, Path plugins, String plugin, String payloadHex) throws Exception {
        return run(
                work, pluginEnv(plugins), launcher.toString(), "exec", "--plugin", plugin, "--payload-hex", payloadHex);
    }

    private record ProcessResult(int status, String output) {}

    /**
     * Runs the command in {@code dir} (UROM_HOME, UROM_PLUGIN_PATH and the locale unset unless {@code
     * env} sets them); fails unless it exits 0.
     */
    private static String run(Path dir, Map<String, String> env, String... command) throws Exception {
        ProcessResult result = runForStatus(dir, env, command);
        assertThat(result.status())
                .as("%s exits 0; it printed:%n%s", String.join(" ", command), result.output())
                .isZero();
        return result.output();
    }

    private static ProcessResult runForStatus(Path dir, Map<String, String> env, String... command) throws Exception {
        Path output = Files.createTempFile(dir, "out", ".txt");
        try {
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            builder.environment()
                    .keySet()
                    .removeAll(List.of("UROM_HOME", "UROM_PLUGIN_PATH", "PKG_CONFIG_PATH", "LANG", "LANGUAGE"));
            // No locale, as in a plain login shell: the launcher must choose a character set itself.
            builder.environment().keySet().removeIf(name -> name.startsWith("LC_"));
            builder.environment().putAll(env);
            Process process = builder.start();
            if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(String.join(" ", command) + " did not end within " + COMMAND_SECONDS
                        + " s; it printed:\n" + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new ProcessResult(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            Files.delete(output);
        }
    }
}
