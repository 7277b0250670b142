// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.scaffold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.cli.scaffold.PluginScaffold.Language;
import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Projects written from the graph sample's own folder, which is a templates folder as the distribution ships it. */
class PluginScaffoldTest {
    private static final Path SAMPLE =
            Path.of(System.getProperty("urom.graph.build")).getParent();
    private static final Path REPOSITORY = SAMPLE.getParent().getParent();
    private static final PluginScaffold.Sdk SDK = new PluginScaffold.Sdk(Path.of("/opt/urom-sdk"), "9.8.7");

    private static PluginScaffold graph() throws ScaffoldException {
        return PluginScaffold.load(SAMPLE);
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /** Every file of the project that still names the sample, with the line. */
    private static List<String> sampleNamesLeftIn(Path project) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(project)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                for (String line : read(file).split("\n")) {
                    if (line.toLowerCase(Locale.ROOT).contains("graph") && !line.contains("graph sample")) {
                        found.add(project.relativize(file) + ": " + line);
                    }
                }
            }
        }
        return found;
    }

    @Test
    void theGraphTemplatesWriteBothLanguages() throws Exception {
        assertThat(graph().sample()).isEqualTo("graph");
        assertThat(graph().languages()).containsExactly(Language.C, Language.JAVA);
    }

    @Test
    void aCProjectIsTheSamplesPluginAndTestUnderTheNewNameAndItsTestPasses(@TempDir Path dir) throws Exception {
        Path project = dir.resolve("demo_c");

        List<Path> written = graph().write(ScaffoldNames.of("demo_c"), Language.C, project, SDK);

        assertThat(written)
                .containsExactly(
                        Path.of("Makefile"),
                        Path.of("urom-sdk.mk"),
                        Path.of("worker_demo_c.c"),
                        Path.of("test_worker_demo_c.c"),
                        Path.of("README.md"));
        assertThat(sampleNamesLeftIn(project)).isEmpty();
        assertThat(read(project.resolve("worker_demo_c.c")))
                .contains("UROM_LOG_SOURCE(worker_demo_c);", "demo_c_open", "DEMO_C_EXPORT");
        String sdkFromProject = project.relativize(SDK.home()).toString();
        assertThat(read(project.resolve("README.md")))
                .contains(sdkFromProject + "/bin/urom exec --plugin worker_demo_c", "of urom-java\n9.8.7");
        assertThat(read(project.resolve("urom-sdk.mk")))
                .contains("UROM_HOME ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))" + sdkFromProject + ")");
        String flags = "UROM_CFLAGS=-I" + NativeFixtures.includeDir() + " -I"
                + REPOSITORY.resolve("testkit/src/main/c/include");
        Process make = new ProcessBuilder("make", "--no-print-directory", flags, "test")
                .directory(project.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(make.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(make.exitValue()).as("make test:\n%s", output).isZero();
        assertThat(output).containsPattern("test_worker_demo_c: [1-9][0-9]* passed, 0 failed");
        assertThat(project.resolve("worker_demo_c.so")).isRegularFile();
        // The refusals the test provokes are the plugin's errors, marked as expected; no other line reads as a failure.
        assertThat(output).contains("expected: [worker_demo_c] ERROR demo_c command of 15 bytes refused");
        assertThat(output.lines().filter(PluginScaffoldTest::readsAsAFailure))
                .as("make test:\n%s", output)
                .isEmpty();
    }

    /** A line of a test's output that a reader takes for a failure: an error, a raw log level, a failed check. */
    private static boolean readsAsAFailure(String line) {
        if (line.startsWith("expected: ") || line.matches(".*: [0-9]+ passed, 0 failed")) {
            return false;
        }
        return line.matches("(?i).*\\b(error|errors|crit|fail|failed|failure|fatal)\\b.*")
                || line.matches(".*\\[[^]]*] [0-9]+ .*");
    }

    @Test
    void aLineThatReadsAsAFailureIsToldFromAnExpectedRefusal() {
        assertThat(readsAsAFailure("[worker_demo] 30 demo command of 15 bytes refused"))
                .isTrue();
        assertThat(readsAsAFailure("[worker_demo] ERROR demo command of 15 bytes refused"))
                .isTrue();
        assertThat(readsAsAFailure("FAILED test.c:80: answer != NULL")).isTrue();
        assertThat(readsAsAFailure("test_worker_demo: 40 passed, 1 failed")).isTrue();
        assertThat(readsAsAFailure("expected: [worker_demo] ERROR demo command of 15 bytes refused"))
                .isFalse();
        assertThat(readsAsAFailure("test_worker_demo: 41 passed, 0 failed")).isFalse();
        assertThat(readsAsAFailure(
                        "cc -O1 -g -rdynamic -Wall -Wextra -Werror -o test_worker_demo test_worker_demo.c -ldl"))
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"C", "JAVA"})
    void aProjectHoldsNoAbsolutePathOfTheSdkOrOfItself(String language, @TempDir Path dir) throws Exception {
        Path project = dir.resolve("demo");

        List<Path> written = graph().write(ScaffoldNames.of("demo"), Language.valueOf(language), project, SDK);

        String sdkFromProject = project.relativize(SDK.home()).toString();
        assertThat(sdkFromProject).startsWith("../");
        for (Path file : written) {
            // The SDK's folder relative to the project's is the one path a project holds.
            assertThat(read(project.resolve(file)).replace(sdkFromProject, "SDK_FROM_PROJECT"))
                    .as("%s", file)
                    .doesNotContain(SDK.home().toString())
                    .doesNotContain(dir.toString())
                    .doesNotContain("file:///");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"my sdk", "a&b", "x$y", "q\"uote", "tab\tbed", "new\nline", "é"})
    void anSdkFolderThatAMakefileOrAPomCannotCarryIsRefusedInOneLineBeforeAnythingIsWritten(
            String folder, @TempDir Path dir) {
        PluginScaffold.Sdk sdk = new PluginScaffold.Sdk(dir.resolve(folder).resolve("urom-1.0"), "1.0");
        Path project = dir.resolve("demo");

        assertThatThrownBy(() -> graph().write(ScaffoldNames.of("demo"), Language.C, project, sdk))
                .isInstanceOf(ScaffoldException.class)
                .hasMessageStartingWith("the SDK's folder seen from the project, ../")
                .hasMessageEndingWith(
                        "which its Makefile or pom.xml cannot carry; write the project (--dir) or unpack the SDK"
                                + " where the path between them has only letters, digits and . _ - + /")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\t"));
        assertThat(project).doesNotExist();
    }

    @ParameterizedTest
    @ValueSource(strings = {"C", "JAVA"})
    void pluginAuthorsMdNamesEveryFileAProjectHolds(String language, @TempDir Path dir) throws Exception {
        String doc = read(REPOSITORY.resolve("docs/plugin-authors.md"));
        Path project = dir.resolve("demo");

        List<Path> written = graph().write(ScaffoldNames.of("demo"), Language.valueOf(language), project, SDK);

        assertThat(written).isNotEmpty().allSatisfy(file -> {
            String documented = file.toString()
                    .replace("com/example/demo", "PKG")
                    .replace("Demo", "Name")
                    .replace("demo", "NAME");
            assertThat(doc)
                    .as("docs/plugin-authors.md names %s as `%s`", file, documented)
                    .contains("`" + documented + "`");
        });
    }

    @Test
    void aJavaProjectIsTheSamplesPluginAndTestInItsPackageAndCompiles(@TempDir Path dir) throws Exception {
        Path project = dir.resolve("demo_java");

        List<Path> written =
                graph().write(new ScaffoldNames("demo_java", "org.acme.plugins"), Language.JAVA, project, SDK);

        assertThat(written)
                .containsExactly(
                        Path.of("pom.xml"),
                        Path.of(".mvn/maven.config"),
                        Path.of("src/main/java/org/acme/plugins/DemoJavaPlugin.java"),
                        Path.of("src/main/java/org/acme/plugins/DemoJavaMessage.java"),
                        Path.of("src/test/java/org/acme/plugins/DemoJavaPluginTest.java"),
                        Path.of("README.md"));
        assertThat(sampleNamesLeftIn(project)).isEmpty();
        String pom = read(project.resolve("pom.xml"));
        assertThat(pom)
                .contains(
                        "<artifactId>worker_demo_java</artifactId>",
                        "<Plugin-Class>org.acme.plugins.DemoJavaPlugin</Plugin-Class>",
                        "<urom.version>9.8.7</urom.version>",
                        "<urom.home.from.project>" + project.relativize(SDK.home()) + "</urom.home.from.project>",
                        "<urom.home>${env.UROM_HOME}</urom.home>",
                        "<url>file://${urom.home}/share/maven</url>");
        List<String> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(project.resolve("src"))) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> sources.add(f.toString()));
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> arguments = new ArrayList<>(
                List.of("-d", dir.resolve("classes").toString(), "-cp", System.getProperty("java.class.path")));
        arguments.addAll(sources);
        assertThat(javac.run(null, null, null, arguments.toArray(String[]::new)))
                .as("javac of the generated sources")
                .isZero();
        assertThat(dir.resolve("classes/org/acme/plugins/DemoJavaPluginTest.class"))
                .isRegularFile();
    }

    @Test
    void aNameThatHoldsTheSamplesNameIsReplacedInOnePass(@TempDir Path dir) throws Exception {
        Path project = dir.resolve("graph_two");

        graph().write(ScaffoldNames.of("graph_two"), Language.JAVA, project, SDK);

        String plugin = read(project.resolve("src/main/java/com/example/graph_two/GraphTwoPlugin.java"));
        assertThat(plugin)
                .contains("package com.example.graph_two;", "public final class GraphTwoPlugin implements PluginIface")
                .doesNotContain("GraphTwoTwo", "graph_two_two");
    }

    @Test
    void anExistingProjectFolderIsRefusedAndKept(@TempDir Path dir) throws Exception {
        Path project = Files.createDirectory(dir.resolve("demo"));
        Files.writeString(project.resolve("mine.txt"), "kept");

        assertThatThrownBy(() -> graph().write(ScaffoldNames.of("demo"), Language.C, project, SDK))
                .isInstanceOf(ScaffoldException.class)
                .hasMessage(project + " already exists; name a new folder (another plugin name or --dir)");
        assertThat(read(project.resolve("mine.txt"))).isEqualTo("kept");
        assertThat(Files.list(project)).hasSize(1);
    }

    @Test
    void aLinkWhereTheProjectWouldGoIsRefusedAndNotFollowed(@TempDir Path dir) throws Exception {
        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        Path project = Files.createSymbolicLink(dir.resolve("demo"), elsewhere);

        assertThatThrownBy(() -> graph().write(ScaffoldNames.of("demo"), Language.C, project, SDK))
                .hasMessageContaining("already exists");
        assertThat(Files.list(elsewhere)).isEmpty();
    }

    @Test
    void aMissingParentFolderIsNamed(@TempDir Path dir) {
        Path project = dir.resolve("absent/demo");

        assertThatThrownBy(() -> graph().write(ScaffoldNames.of("demo"), Language.C, project, SDK))
                .hasMessage("cannot create " + project + ": its parent folder does not exist");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Demo", "9lives", "demo-c", "demo c", "", "demo_", "de__mo", "a\u0007b", "é"})
    void aNameThatIsNotLowerCaseWordsIsRefusedNamingIt(String name) {
        assertThatThrownBy(() -> ScaffoldNames.of(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("plugin name '")
                .satisfies(
                        e -> assertThat(e.getMessage()).doesNotContain("\u0007").doesNotContain("\n"));
    }

    @Test
    void aNameLongerThanAPluginNameHoldsIsRefused() {
        assertThat(ScaffoldNames.of("a".repeat(40)).pluginName()).hasSize(47);
        assertThatThrownBy(() -> ScaffoldNames.of("a".repeat(41)))
                .hasMessage("plugin name '" + "a".repeat(41) + "' has 41 characters; it needs 1 to 40");
    }

    @ParameterizedTest
    @ValueSource(strings = {"com.example.int", "Com.Example", "com..example", "1com", "com.example."})
    void aJavaPackageThatIsNotOneIsRefusedNamingIt(String javaPackage) {
        ScaffoldNames names = new ScaffoldNames("demo", javaPackage);

        assertThatThrownBy(names::checkJavaPackage)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Java package '" + javaPackage + "' is not a lower-case Java package name");
    }

    @Test
    void theNamesOfAProject() {
        ScaffoldNames names = ScaffoldNames.of("demo_c2");

        assertThat(names.pluginName()).isEqualTo("worker_demo_c2");
        assertThat(names.javaPrefix()).isEqualTo("DemoC2");
        assertThat(names.macroPrefix()).isEqualTo("DEMO_C2");
        assertThat(names.javaPackage()).isEqualTo("com.example.demo_c2");
        assertThat(names.packagePath()).isEqualTo("com/example/demo_c2");
    }

    @Test
    void missingTemplatesAreNamed(@TempDir Path dir) {
        assertThatThrownBy(() -> PluginScaffold.load(dir))
                .hasMessage("no project templates at " + dir + " (scaffold/scaffold.json is missing)");
    }

    @Test
    void aBrokenManifestIsNamed(@TempDir Path dir) throws Exception {
        Files.createDirectory(dir.resolve("scaffold"));
        Files.writeString(dir.resolve("scaffold/scaffold.json"), "{\"sample\": \"x\", \"replace\": {");

        assertThatThrownBy(() -> PluginScaffold.load(dir))
                .hasMessageStartingWith("template manifest " + dir.resolve("scaffold/scaffold.json") + " is not valid");
    }

    @Test
    void anUnknownPlaceholderOrAPathOutsideTheFolderFailsBeforeAnythingIsWritten(@TempDir Path dir) throws Exception {
        Files.createDirectory(dir.resolve("scaffold"));
        Files.writeString(dir.resolve("scaffold/note.txt"), "hello @nmae@");
        Files.writeString(
                dir.resolve("scaffold/scaffold.json"),
                "{\"sample\": \"x\", \"replace\": {}, \"languages\": {\"c\": {\"note.txt\": \"scaffold/note.txt\"},"
                        + " \"java\": {\"../escape.txt\": \"scaffold/note.txt\"}}}");
        PluginScaffold templates = PluginScaffold.load(dir);

        assertThatThrownBy(() -> templates.write(ScaffoldNames.of("demo"), Language.C, dir.resolve("p1"), SDK))
                .hasMessage("template " + dir.resolve("scaffold/note.txt") + " has the unknown placeholder @nmae@");
        assertThatThrownBy(() -> templates.write(ScaffoldNames.of("demo"), Language.JAVA, dir.resolve("p2"), SDK))
                .hasMessage("template manifest: project path ../escape.txt is not a relative path inside its folder");
        assertThat(dir.resolve("p1")).doesNotExist();
        assertThat(dir.resolve("p2")).doesNotExist();
    }

    @Test
    void theJavaProjectsPluginVersionsAreTheBuildsOwnSoItBuildsOfflineAfterOneBuild() throws Exception {
        String rootPom = read(REPOSITORY.resolve("pom.xml"));
        String template = read(SAMPLE.resolve("scaffold/java/pom.xml"));
        Matcher plugins = Pattern.compile(
                        "<artifactId>(maven-[a-z]+-plugin)</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(template);
        int checked = 0;
        while (plugins.find()) {
            assertThat(rootPom)
                    .as("the build's version of %s", plugins.group(1))
                    .contains("<artifactId>" + plugins.group(1) + "</artifactId><version>" + plugins.group(2)
                            + "</version>");
            checked++;
        }
        assertThat(checked).isEqualTo(4);
        Matcher junit =
                Pattern.compile("<junit.version>([^<]+)</junit.version>").matcher(template);
        assertThat(junit.find()).isTrue();
        assertThat(rootPom).contains("<junit.version>" + junit.group(1) + "</junit.version>");
    }

    /** The project is its author's: our licence line, in each comment syntax, is not written into it; other lines stay. */
    @Test
    void ourLicenceLineIsLeftOutOfTheProject(@TempDir Path dir) throws Exception {
        String licence = "SPDX-License-Identifier: Apache-2.0";
        Files.createDirectories(dir.resolve("scaffold"));
        Files.createDirectories(dir.resolve("src"));
        Files.writeString(dir.resolve("src/worker_x.c"), "/* " + licence + " */\n/* worker_x */\nint x;\n");
        Files.writeString(
                dir.resolve("src/X.java"),
                "// " + licence + "\npackage x;\n// " + licence + " (a second line stays)\n");
        Files.writeString(dir.resolve("scaffold/Makefile"), "# " + licence + "\nall:\n");
        Files.writeString(
                dir.resolve("scaffold/pom.xml"), "<?xml version=\"1.0\"?>\n<!-- " + licence + " -->\n<project/>\n");
        Files.writeString(dir.resolve("scaffold/NOTES"), "# SPDX-License-Identifier: MIT\n");
        Files.writeString(
                dir.resolve("scaffold/scaffold.json"),
                "{\"sample\": \"x\", \"replace\": {\"worker_x\": \"worker_@name@\"}, \"languages\": {\"c\": {"
                        + "\"worker_@name@.c\": \"src/worker_x.c\", \"X.java\": \"src/X.java\", \"Makefile\": \"scaffold/Makefile\","
                        + " \"pom.xml\": \"scaffold/pom.xml\", \"NOTES\": \"scaffold/NOTES\"}}}");
        Path project = dir.resolve("p");

        PluginScaffold.load(dir).write(ScaffoldNames.of("demo"), Language.C, project, SDK);

        assertThat(read(project.resolve("worker_demo.c"))).isEqualTo("/* worker_demo */\nint x;\n");
        assertThat(read(project.resolve("X.java"))).isEqualTo("package x;\n// " + licence + " (a second line stays)\n");
        assertThat(read(project.resolve("Makefile"))).isEqualTo("all:\n");
        assertThat(read(project.resolve("pom.xml"))).isEqualTo("<?xml version=\"1.0\"?>\n<project/>\n");
        assertThat(read(project.resolve("NOTES")))
                .as("another licence is not ours to drop")
                .isEqualTo("# SPDX-License-Identifier: MIT\n");
    }

    @Test
    void theGraphProjectsCarryNoLicenceLineOfOurs(@TempDir Path dir) throws Exception {
        graph().write(ScaffoldNames.of("demo_c"), Language.C, dir.resolve("c"), SDK);
        graph().write(new ScaffoldNames("demo_java", "org.acme.plugins"), Language.JAVA, dir.resolve("java"), SDK);
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(Files::isRegularFile).toList())
                    .allSatisfy(
                            file -> assertThat(read(file)).as("%s", file).doesNotContain("SPDX-License-Identifier"));
        }
    }
}
