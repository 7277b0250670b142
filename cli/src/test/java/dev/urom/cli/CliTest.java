// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.testkit.TestWorkers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line, run in-process against real plugins: the graph samples that the build
 * produced (system property {@code urom.graph.build}) copied into a temporary plugin directory.
 */
class CliTest {
    @TempDir
    Path plugins;

    @BeforeEach
    void copyGraphPlugins() throws IOException {
        Path build = Path.of(System.getProperty("urom.graph.build", "../plugins/graph/target"));
        Files.copy(build.resolve("worker_graph.so"), plugins.resolve("worker_graph.so"));
        Files.copy(build.resolve("worker_graph_java.jar"), plugins.resolve("worker_graph_java.jar"));
    }

    private CliRunner.Run run(String pluginPath, String... args) {
        return CliRunner.run(pluginPath, args);
    }

    @Test
    void everyCommandAnswersHelpWithItsOwnOptions() {
        CliRunner.Run daemon = run(plugins.toString(), "daemon", "--help");
        CliRunner.Run keygen = run(plugins.toString(), "keygen", "-h");

        assertThat(daemon.status()).as(daemon.err()).isZero();
        assertThat(daemon.out())
                .startsWith("Usage: urom daemon")
                .contains("--auth-keys")
                .contains("--worker-user")
                .contains("--insecure-tcp");
        assertThat(keygen.status()).as(keygen.err()).isZero();
        assertThat(keygen.out()).startsWith("Usage: urom keygen");
    }

    @Test
    void scanListsBothGraphPluginsAndTheRejectedFileAsJson() throws Exception {
        Files.writeString(plugins.resolve("not_a_plugin.so"), "this is text, not ELF\n");

        CliRunner.Run result = run(plugins.toString(), "plugins", "--scan", "--json");

        assertThat(result.status()).isZero();
        JsonNode json = new ObjectMapper().readTree(result.out());
        List<String> names = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        for (JsonNode plugin : json.get("plugins")) {
            names.add(plugin.get("name").asText() + "/" + plugin.get("kind").asText());
            ids.add(plugin.get("id").asLong());
            assertThat(plugin.get("version").asLong()).isEqualTo(1);
            assertThat(Path.of(plugin.get("path").asText())).exists();
        }
        assertThat(names).containsExactlyInAnyOrder("worker_graph/native", "worker_graph_java/java");
        assertThat(ids)
                .allSatisfy(id -> assertThat(Long.bitCount(id)).isEqualTo(1))
                .doesNotHaveDuplicates();
        assertThat(json.get("rejected")).hasSize(1);
        assertThat(json.get("rejected").get(0).get("path").asText()).endsWith("not_a_plugin.so");
        assertThat(json.get("rejected").get(0).get("reason").asText()).contains("not_a_plugin.so");
    }

    @Test
    void scanRejectsAPluginThatCallsUcxWithoutBeingLinkedWithItNamingTheSymbolAndKeepsTheOthers() throws Exception {
        String echoClose = "static void echo_close(struct urom_worker_ctx *ctx) { (void)ctx; }";
        String source = NativeFixtures.minimalPluginSource(1, "unlinked");
        assertThat(source).contains(echoClose);
        Path unlinked = NativeFixtures.compilePlugin(
                plugins,
                "worker_unlinked.so",
                source.replace(
                        echoClose,
                        "extern int ucp_config_read(void);\nstatic void echo_close(struct urom_worker_ctx *ctx) { (void)ctx; (void)ucp_config_read(); }"));

        CliRunner.Run result = run(plugins.toString(), "plugins", "--scan", "--json");

        assertThat(result.status()).as(result.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(result.out());
        assertThat(json.get("plugins"))
                .extracting(plugin -> plugin.get("name").asText())
                .containsExactlyInAnyOrder("worker_graph", "worker_graph_java");
        assertThat(json.get("rejected")).hasSize(1);
        assertThat(json.get("rejected").get(0).get("reason").asText())
                .isEqualTo(
                        unlinked + ": undefined symbol ucp_config_read:"
                                + " the plugin calls UCX but was not linked with it; add $(pkg-config --libs ucx) to its link line");
    }

    @Test
    void scanRejectsThePluginsOfADirectoryWritableByOthersUnlessInsecureDirectoriesAreAllowed() throws Exception {
        Files.setAttribute(plugins, "unix:mode", 0777);

        CliRunner.Run secure = run(plugins.toString(), "plugins", "--scan", "--json");
        CliRunner.Run allowed = run(plugins.toString(), "plugins", "--scan", "--allow-insecure-plugin-dirs");

        assertThat(secure.status()).as(secure.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(secure.out());
        assertThat(json.get("plugins")).isEmpty();
        assertThat(json.get("rejected"))
                .hasSize(2)
                .allSatisfy(rejected -> assertThat(rejected.get("reason").asText())
                        .contains(": not probed: " + plugins + " is mode 0777")
                        .endsWith("writable by others"));
        assertThat(allowed.status()).as(allowed.err()).isZero();
        assertThat(allowed.out())
                .contains("worker_graph ")
                .contains("worker_graph_java")
                .contains("warning: " + plugins + " is mode 0777")
                .contains("insecure plugin directories are allowed");
    }

    @Test
    void allowingInsecureDirectoriesIsAUsageErrorWithService() {
        CliRunner.Run result = run(
                plugins.toString(), "plugins", "--service", "unix:/nonexistent.sock", "--allow-insecure-plugin-dirs");

        assertThat(result.status()).isEqualTo(2);
        assertThat(result.errLines())
                .first()
                .isEqualTo("urom plugins: --allow-insecure-plugin-dirs goes with --scan, not --service");
    }

    @Test
    void aScanWarningOrRejectionIsPrintedOnceAndNothingGoesToStderr(@TempDir Path output) throws Exception {
        Path missing = output.resolve("missing");
        Files.writeString(plugins.resolve("not_a_plugin.so"), "this is text, not ELF\n");
        ProcessBuilder builder = new ProcessBuilder(
                        ProcessHandle.current().info().command().orElse("java"),
                        "-cp",
                        System.getProperty("java.class.path"),
                        "dev.urom.cli.Main",
                        "plugins",
                        "--scan")
                .redirectOutput(output.resolve("out.txt").toFile())
                .redirectError(output.resolve("err.txt").toFile());
        builder.environment().put("UROM_PLUGIN_PATH", missing + ";" + plugins);
        builder.environment().remove("UROM_LOG_LEVEL");
        Process process = builder.start();
        process.getOutputStream().close();
        boolean ended = process.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }

        String out = Files.readString(output.resolve("out.txt"));
        assertThat(ended).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        assertThat(Files.readString(output.resolve("err.txt"))).isEmpty();
        assertThat(out.split(Pattern.quote(missing + " does not exist"), -1))
                .as(out)
                .hasSize(2);
        assertThat(out.split(Pattern.quote("not_a_plugin.so"), -1)).as(out).hasSize(2);
    }

    @Test
    void scanPrintsATableByDefault() {
        CliRunner.Run result = run(plugins.toString(), "plugins", "--scan");

        assertThat(result.status()).isZero();
        assertThat(result.out())
                .contains("worker_graph ")
                .contains("worker_graph_java")
                .contains("native")
                .contains("java");
    }

    @Test
    void execLoopsAValueBackThroughEachGraphPlugin() {
        String command = "0000000000000000" + "2a00000000000000";
        for (String plugin : List.of("worker_graph", "worker_graph_java")) {
            CliRunner.Run result = run(plugins.toString(), "exec", "--plugin", plugin, "--payload-hex", command);

            assertThat(result.status()).as(plugin + ": " + result.err()).isZero();
            assertThat(result.out()).isEqualTo("status: SUCCESS (0)\npayload: " + command + "\n");
        }
    }

    @Test
    void execReportsThePluginsErrorStatusWithExitOne() {
        CliRunner.Run result = run(plugins.toString(), "exec", "--plugin", "worker_graph", "--payload-hex", "00");

        assertThat(result.status()).isEqualTo(1);
        assertThat(result.out()).startsWith("status: INVALID_VALUE (6)");
    }

    @Test
    void aDaemonWithAnHttpPortOutOfRangeIsAUsageErrorAndStartsNothing(@TempDir Path dir) {
        CliRunner.Run result = run(
                plugins.toString(),
                "daemon",
                "--listen",
                "unix:" + dir.resolve("d.sock"),
                "--log-dir",
                dir.resolve("log").toString(),
                "--http-port",
                "65536");

        assertThat(result.status()).isEqualTo(2);
        assertThat(result.errLines())
                .containsExactly(
                        "urom daemon: --http-port 65536 is not a port (0..65535)", "(see: urom daemon --help)");
        assertThat(dir.resolve("d.sock")).doesNotExist();
        assertThat(dir.resolve("log")).doesNotExist();
    }

    @Test
    void aDaemonWithABadLogFileCountIsAUsageErrorAndStartsNothing(@TempDir Path dir) {
        CliRunner.Run result = run(
                plugins.toString(),
                "daemon",
                "--listen",
                "unix:" + dir.resolve("d.sock"),
                "--log-dir",
                dir.resolve("log").toString(),
                "--log-file-count",
                "0");

        assertThat(result.status()).isEqualTo(2);
        assertThat(result.errLines())
                .containsExactly(
                        "urom daemon: --log-file-count 0 is not between 2 and 100 (the current file and the rolled ones)",
                        "(see: urom daemon --help)");
        assertThat(dir.resolve("d.sock")).doesNotExist();
        assertThat(dir.resolve("log")).doesNotExist();
    }

    @Test
    void execOfAnUnknownPluginIsOneLineNamingIt() {
        CliRunner.Run result = run(plugins.toString(), "exec", "--plugin", "nope", "--payload-hex", "00");

        assertThat(result.status()).isEqualTo(1);
        assertThat(result.errLines())
                .containsExactly(
                        "urom exec: no plugin named 'nope' in UROM_PLUGIN_PATH (found: worker_graph, worker_graph_java)");
    }

    @Test
    void execWithBadHexIsOneLineNamingTheOption() {
        CliRunner.Run odd = run(plugins.toString(), "exec", "--plugin", "worker_graph", "--payload-hex", "abc");
        CliRunner.Run notHex = run(plugins.toString(), "exec", "--plugin", "worker_graph", "--payload-hex", "zz");

        assertThat(odd.status()).isEqualTo(2);
        assertThat(odd.errLines())
                .containsExactly(
                        "urom exec: --payload-hex 'abc': odd number of hex digits (3)", "(see: urom exec --help)");
        assertThat(notHex.status()).isEqualTo(2);
        assertThat(notHex.errLines())
                .containsExactly("urom exec: --payload-hex 'zz': 'z' is not a hex digit", "(see: urom exec --help)");
    }

    @Test
    void execOfARejectedPluginGivesTheRejectionReason() throws IOException {
        Files.writeString(plugins.resolve("broken.so"), "not ELF");

        CliRunner.Run result = run(plugins.toString(), "exec", "--plugin", "broken", "--payload-hex", "00");

        assertThat(result.status()).isEqualTo(1);
        assertThat(result.errLines()).hasSize(1);
        assertThat(result.errLines().get(0))
                .startsWith("urom exec: plugin 'broken' was rejected: ")
                .contains("broken.so");
    }

    @Test
    void execOfAPluginThatFailsToLoadIsOneLine() throws IOException {
        // The scan checks the class without running it; loading runs its constructor, which throws.
        PluginJars.write(plugins.resolve("exploding.jar"), "exploding", ExplodingPlugin.class);
        assertThat(run(plugins.toString(), "plugins", "--scan").out()).contains("exploding");

        CliRunner.Run result = run(plugins.toString(), "exec", "--plugin", "exploding", "--payload-hex", "00");

        assertThat(result.status()).isEqualTo(1);
        assertThat(result.errLines()).hasSize(1);
        assertThat(result.errLines().get(0))
                .startsWith("urom exec: cannot load plugin 'exploding'")
                .contains("exploding.jar");
    }

    @Test
    void execOfAJavaPluginThatRefusesPrintsTheStatusAndItsMessage() throws IOException {
        PluginJars.write(plugins.resolve("refusing.jar"), "refusing", RefusingPlugin.class);

        CliRunner.Run refused = run(plugins.toString(), "exec", "--plugin", "refusing", "--payload-hex", "0102");
        CliRunner.Run threw = run(plugins.toString(), "exec", "--plugin", "refusing", "--payload-hex", "ff");

        assertThat(refused.status()).isEqualTo(1);
        assertThat(refused.out()).startsWith("status: INVALID_VALUE (6)\npayload: ");
        assertThat(refused.errLines())
                .containsExactly("urom exec: INVALID_VALUE: " + RefusingPlugin.message(new byte[] {1, 2}));
        assertThat(threw.status()).isEqualTo(1);
        assertThat(threw.errLines())
                .containsExactly(
                        "urom exec: UNEXPECTED: java.lang.IllegalStateException: refusing plugin: lost its state");
    }

    @Test
    void execOfANativePluginsFailurePrintsTheErrorItLogged() {
        CliRunner.Run result = run(plugins.toString(), "exec", "--plugin", "worker_graph", "--payload-hex", "00");

        assertThat(result.status()).isEqualTo(1);
        assertThat(result.errLines())
                .containsExactly(
                        "urom exec: INVALID_VALUE: graph command of 1 bytes refused: a graph command is exactly 16 bytes");
    }

    @Test
    void withoutAPluginPathCommandsSaySo() {
        CliRunner.Run result = run(null, "plugins", "--scan");

        assertThat(result.status()).isEqualTo(1);
        assertThat(result.errLines())
                .containsExactly(
                        "urom plugins: UROM_PLUGIN_PATH is not set: give the plugin directories, separated by ';'");
    }

    @Test
    void usageErrorsExitTwo() {
        CliRunner.Run result = run(plugins.toString(), "exec", "--plugin", "worker_graph");

        assertThat(result.status()).isEqualTo(2);
        assertThat(result.err()).contains("--payload-hex");
    }

    @Test
    void demoRefusesRoundsOutsideItsRangeWithOneLineNamingTheOption() {
        for (String rounds : List.of("0", "-1", "100000001")) {
            CliRunner.Run result = run(plugins.toString(), "demo", "--rounds", rounds);

            assertThat(result.status()).as(rounds).isEqualTo(2);
            assertThat(result.out()).as(rounds).isEmpty();
            assertThat(result.errLines())
                    .as(rounds)
                    .containsExactly(
                            "urom demo: --rounds " + rounds + " is not between 1 and 100000000",
                            "(see: urom demo --help)");
        }
    }

    @Test
    void aLoopbackValueThatIsNotAnUnsigned64BitNumberIsAUsageErrorNamingTheOption() {
        for (String value : List.of("-3", "18446744073709551616", "0x10000000000000000", "0xfg", "12a", "0x")) {
            CliRunner.Run result =
                    run(plugins.toString(), "loopback", "--service", "unix:/nonexistent/urom.sock", "--value", value);

            assertThat(result.status()).as(value).isEqualTo(2);
            assertThat(result.errLines()).as(value).hasSize(2);
            assertThat(result.errLines().get(0))
                    .as(value)
                    .startsWith("urom loopback: Invalid value for option '--value': '" + value + "'");
        }
    }

    @Test
    void demoRunsTheGraphPluginsInProcessAndThroughAPrivateDaemonAndThePingPong() throws IOException {
        Path sandbox = Path.of(System.getProperty("urom.sandbox.build", "../plugins/sandbox/target"));
        Files.copy(sandbox.resolve("worker_sandbox.so"), plugins.resolve("worker_sandbox.so"));
        Files.copy(sandbox.resolve("worker_sandbox_java.jar"), plugins.resolve("worker_sandbox_java.jar"));

        List<String> args = new java.util.ArrayList<>(List.of("demo", "--rounds", "200"));
        args.addAll(List.of(TestWorkers.options()));
        CliRunner.Run result = run(plugins.toString(), args.toArray(String[]::new));

        assertThat(result.status()).as(result.out() + result.err()).isZero();
        assertThat(result.out())
                .contains("Both graph plugins answered byte for byte alike.")
                .contains("workers in gid 0: [0, 2]")
                .contains("workers in gid 1: [1, 3]")
                .contains("rank 1: received 'hello from urom demo' (tag 0x5678); sent it to rank 0")
                .contains("ping-pong passed.")
                .contains("worker processes left: 0")
                .endsWith("The service demo passed.\n");
        assertThat(result.out())
                .doesNotContain("WRONG")
                .doesNotContain("FAILED")
                .doesNotContain("DIFFER");
    }
}
