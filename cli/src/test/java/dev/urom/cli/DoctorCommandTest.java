// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.urom.service.logging.ServiceLogging;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code urom doctor} against a fabricated machine: a system root with {@code sys/...} and {@code
 * proc/mounts}, a plugin directory with the real graph plugins (system property {@code
 * urom.graph.build}), a log directory and a Unix socket path, all under a temporary directory.
 * Each test breaks one thing and checks that exactly that check is graded WARN (the daemon still
 * serves here) or FAIL (it would not), with its advice, and the exit status that follows: 1 only
 * when something FAILs.
 */
class DoctorCommandTest {
    @TempDir
    Path dir;

    private Path sysRoot;
    private Path nrHugepages;
    private Path mounts;
    private Path plugins;
    private Path logs;
    private Path socket;

    @BeforeEach
    void healthyMachine() throws IOException {
        sysRoot = Files.createDirectories(dir.resolve("root"));
        nrHugepages = sysRoot.resolve("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages");
        Files.createDirectories(nrHugepages.getParent());
        Files.writeString(nrHugepages, "2048\n");
        mounts = sysRoot.resolve("proc/mounts");
        Files.createDirectories(mounts.getParent());
        Files.writeString(
                mounts,
                "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
                        + "nodev /mnt/huge hugetlbfs rw,relatime,pagesize=2M 0 0\n"
                        + "tmpfs /run tmpfs rw,nosuid,nodev 0 0\n");
        plugins = Files.createDirectories(dir.resolve("plugins"));
        Path build = Path.of(System.getProperty("urom.graph.build", "../plugins/graph/target"));
        Files.copy(build.resolve("worker_graph.so"), plugins.resolve("worker_graph.so"));
        Files.copy(build.resolve("worker_graph_java.jar"), plugins.resolve("worker_graph_java.jar"));
        logs = Files.createDirectories(dir.resolve("logs"));
        socket = dir.resolve("run/urom.sock");
    }

    private CliRunner.Run doctor(String pluginPath, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "doctor",
                "--sys-root",
                sysRoot.toString(),
                "--log-dir",
                logs.toString(),
                "--listen",
                "unix:" + socket));
        args.addAll(List.of(extra));
        return CliRunner.run(pluginPath, args.toArray(String[]::new));
    }

    private JsonNode doctorJson(String pluginPath) throws IOException {
        CliRunner.Run run = doctor(pluginPath, "--json");
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(run.status())
                .as(run.out() + run.err())
                .isEqualTo(json.get("ok").asBoolean() ? 0 : 1);
        return json;
    }

    private static JsonNode check(JsonNode json, String name) {
        for (JsonNode check : json.get("checks")) {
            if (check.get("name").asText().equals(name)) {
                return check;
            }
        }
        throw new AssertionError("no check named '" + name + "' in " + json);
    }

    private static List<String> failedNames(JsonNode json) {
        return namesGraded(json, "fail");
    }

    private static List<String> warnedNames(JsonNode json) {
        return namesGraded(json, "warn");
    }

    private static List<String> namesGraded(JsonNode json, String grade) {
        List<String> names = new ArrayList<>();
        for (JsonNode check : json.get("checks")) {
            assertThat(check.get("ok").asBoolean())
                    .as(check.toString())
                    .isEqualTo(!check.get("grade").asText().equals("fail"));
            if (check.get("grade").asText().equals(grade)) {
                names.add(check.get("name").asText());
            }
        }
        return names;
    }

    @Test
    void aHealthyMachinePassesEveryCheck() {
        CliRunner.Run run = doctor(plugins.toString());

        assertThat(run.status()).as(run.out() + run.err()).isZero();
        assertThat(run.out())
                .doesNotContain("FAIL")
                .doesNotContain("WARN")
                .contains("all 7 checks passed")
                .contains("ok    hugepages: 2048 hugepages of 2 MiB allocated")
                .contains("ok    hugetlbfs: mounted at /mnt/huge")
                .contains("worker_graph (native)")
                .contains("worker_graph_java (java)")
                .contains("unix:" + socket + " is free")
                .contains(logs.resolve("urom_daemon_dev.log").toString());
        assertThat(run.err()).isEmpty();
        assertThat(logs).isEmptyDirectory();
    }

    @Test
    void jsonHasOneEntryPerCheckWithNameGradeOkDetailAndAdvice() throws IOException {
        Files.writeString(nrHugepages, "0\n");
        Files.delete(plugins.resolve("worker_graph.so"));
        Files.delete(plugins.resolve("worker_graph_java.jar"));

        JsonNode json = doctorJson(plugins.toString());

        assertThat(json.get("ok").isBoolean()).isTrue();
        assertThat(json.get("ok").asBoolean()).isFalse();
        List<String> names = new ArrayList<>();
        for (JsonNode check : json.get("checks")) {
            names.add(check.get("name").asText());
            assertThat(check.get("grade").asText()).isIn("ok", "warn", "fail");
            assertThat(check.get("ok").isBoolean()).isTrue();
            assertThat(check.get("detail").asText()).isNotBlank();
            assertThat(check.has("advice")).isTrue();
            assertThat(check.get("advice").isNull())
                    .isEqualTo(check.get("grade").asText().equals("ok"));
        }
        assertThat(names)
                .containsExactly(
                        "hugepages",
                        "hugetlbfs",
                        "plugin directories",
                        "plugins",
                        "log directory",
                        "listen address",
                        "java");
        assertThat(warnedNames(json)).containsExactly("hugepages");
        assertThat(failedNames(json)).containsExactly("plugins");
    }

    @Test
    void noHugepagesAllocatedIsAWarningWithTheAdviceAndExitStatusZero() throws IOException {
        Files.writeString(nrHugepages, "0\n");

        CliRunner.Run run = doctor(plugins.toString());

        assertThat(run.status()).as(run.out()).isZero();
        assertThat(run.out())
                .contains("WARN  hugepages: no 2 MiB hugepages are allocated")
                .contains("the daemon serves without them, only a device deployment needs them")
                .contains("echo 2048 | sudo tee /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages")
                .contains("journalctl -u kubelet")
                .contains("no check failed: the daemon can serve here; 1 of 7 checks warned")
                .doesNotContain("FAIL");
    }

    @Test
    void aDevelopersMachineWithoutDeviceSetUpExitsZeroWithThreeWarnings() throws IOException {
        Files.delete(nrHugepages);
        Files.writeString(mounts, "proc /proc proc rw 0 0\n");
        logs = Files.writeString(dir.resolve("a-file"), "x").resolve("urom");

        CliRunner.Run run = doctor(plugins.toString());

        assertThat(run.status()).as(run.out()).isZero();
        assertThat(run.out())
                .contains("WARN  hugepages: ")
                .contains("WARN  hugetlbfs: ")
                .contains("WARN  log directory: ")
                .contains("no check failed: the daemon can serve here; 3 of 7 checks warned")
                .doesNotContain("FAIL");
    }

    @Test
    void aFailureAmongWarningsExitsOneAndCountsBoth() throws IOException {
        Files.delete(nrHugepages);

        CliRunner.Run run = doctor(null);

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out())
                .contains("WARN  hugepages: ")
                .contains("FAIL  plugins: ")
                .contains("2 of 7 checks failed; 1 of 7 checks warned");
    }

    @Test
    void aTcpListenAddressWithoutKeysFailsAsTheDaemonWouldRefuseIt() throws IOException {
        CliRunner.Run run = doctor(plugins.toString(), "--listen", "tcp:127.0.0.1:0");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out())
                .contains("FAIL  listen address: the daemon refuses to listen on tcp:127.0.0.1:0 without keys")
                .contains("--auth-keys DIR")
                .contains("--insecure-tcp");
    }

    @Test
    void aTcpListenAddressWithTheDaemonsKeysPasses() throws IOException {
        Path keys = Files.createDirectories(dir.resolve("keys"));
        Files.setPosixFilePermissions(keys, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        assertThat(CliRunner.run(null, "keygen", keys.resolve("jobA.key").toString())
                        .status())
                .isZero();

        CliRunner.Run run = doctor(plugins.toString(), "--listen", "tcp:127.0.0.1:0", "--auth-keys", keys.toString());

        assertThat(run.status()).as(run.out()).isZero();
        assertThat(run.out())
                .contains("ok    listen address: tcp:127.0.0.1:0 is free")
                .contains("all 7 checks passed");
    }

    @Test
    void aTcpListenAddressWithInsecureTcpIsAWarning() throws IOException {
        CliRunner.Run run = doctor(plugins.toString(), "--listen", "tcp:127.0.0.1:0", "--insecure-tcp");

        assertThat(run.status()).as(run.out()).isZero();
        assertThat(run.out()).contains("WARN  listen address: tcp:127.0.0.1:0 is free; with --insecure-tcp");
    }

    @Test
    void aKernelWithoutHugepagesWarnsInTheHugepagesCheck() throws IOException {
        Files.delete(nrHugepages);

        JsonNode json = doctorJson(plugins.toString());

        assertThat(json.get("ok").asBoolean()).isTrue();
        assertThat(failedNames(json)).isEmpty();
        assertThat(warnedNames(json)).containsExactly("hugepages");
        assertThat(check(json, "hugepages").get("detail").asText())
                .contains(nrHugepages.toString())
                .contains("does not exist");
        assertThat(check(json, "hugepages").get("advice").asText())
                .contains("nr_hugepages")
                .contains("journalctl -u kubelet");
    }

    @Test
    void noHugetlbfsMountWarnsWithTheMountCommand() throws IOException {
        Files.writeString(mounts, "proc /proc proc rw 0 0\ntmpfs /run tmpfs rw 0 0\n");

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).isEmpty();
        assertThat(warnedNames(json)).containsExactly("hugetlbfs");
        assertThat(check(json, "hugetlbfs").get("advice").asText())
                .contains("mount -t hugetlbfs -o pagesize=2M nodev /mnt/huge");
    }

    @Test
    void aMissingPluginDirectoryBesideAGoodOneIsNamedInAWarning() throws IOException {
        Path missing = dir.resolve("no-such-plugins");

        JsonNode json = doctorJson(plugins + ";" + missing);

        assertThat(failedNames(json)).isEmpty();
        assertThat(warnedNames(json)).containsExactly("plugin directories");
        assertThat(check(json, "plugin directories").get("detail").asText())
                .isEqualTo(missing + " does not exist; the daemon scans the other 1");
        assertThat(check(json, "plugin directories").get("advice").asText())
                .contains("UROM_PLUGIN_PATH")
                .contains("hostPath");
        assertThat(check(json, "plugins").get("detail").asText())
                .isEqualTo("2 accepted: worker_graph (native), worker_graph_java (java)");
    }

    @Test
    void aPluginDirectoryWritableByOthersFailsBothPluginChecksWithItsMode() throws IOException {
        Files.setAttribute(plugins, "unix:mode", 0777);

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).containsExactly("plugin directories", "plugins");
        assertThat(check(json, "plugin directories").get("detail").asText())
                .startsWith(plugins + " is mode 0777, owner ")
                .endsWith(": writable by others");
        assertThat(check(json, "plugin directories").get("advice").asText())
                .contains("chmod go-w")
                .doesNotContain("hostPath");
        assertThat(check(json, "plugins").get("detail").asText())
                .contains("0 accepted")
                .contains("2 rejected")
                .contains("not probed");
    }

    @Test
    void anUnsetPluginPathFailsBothPluginChecks() throws IOException {
        JsonNode json = doctorJson(null);

        assertThat(failedNames(json)).containsExactly("plugin directories", "plugins");
        assertThat(check(json, "plugin directories").get("advice").asText()).contains("UROM_PLUGIN_PATH");
    }

    @Test
    void aRejectedPluginBesideAcceptedOnesIsAWarningWithItsReason() throws IOException {
        Files.writeString(plugins.resolve("not_a_plugin.so"), "this is text, not ELF\n");

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).isEmpty();
        assertThat(warnedNames(json)).containsExactly("plugins");
        JsonNode probe = check(json, "plugins");
        assertThat(probe.get("detail").asText())
                .contains("2 accepted: ")
                .contains("1 rejected: ")
                .contains("not_a_plugin.so");
        assertThat(probe.get("advice").asText()).contains("rejected");
    }

    @Test
    void aLogDirectoryUnderARegularFileIsAWarningNamingTheFallback() throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        logs = file.resolve("logs");

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).isEmpty();
        assertThat(warnedNames(json)).containsExactly("log directory");
        assertThat(check(json, "log directory").get("detail").asText())
                .contains(logs.toString())
                .contains(file + " is not a directory")
                .contains("the daemon logs to its fallback "
                        + ServiceLogging.fallbackDir().toAbsolutePath().resolve("urom_daemon_dev.log"));
        assertThat(check(json, "log directory").get("advice").asText()).contains("--log-dir");
    }

    @Test
    void aMissingLogDirectoryThatCanBeCreatedPassesAndIsNotCreated() throws IOException {
        logs = dir.resolve("var/log/doca/urom");

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).isEmpty();
        assertThat(check(json, "log directory").get("detail").asText()).contains("can be created");
        assertThat(dir.resolve("var")).doesNotExist();
    }

    @Test
    void aStaleSocketFileIsAWarningSinceTheDaemonRemovesIt() throws IOException {
        Files.createDirectories(socket.getParent());
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
        assertThat(socket).exists();

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).isEmpty();
        assertThat(warnedNames(json)).containsExactly("listen address");
        assertThat(check(json, "listen address").get("detail").asText())
                .contains(socket.toString())
                .contains("stale");
        assertThat(check(json, "listen address").get("advice").asText()).contains("rm " + socket);
        assertThat(socket).exists();
    }

    @Test
    void anInvalidListenAddressIsAUsageErrorWithTheHint() {
        CliRunner.Run run =
                CliRunner.run(plugins.toString(), "doctor", "--sys-root", sysRoot.toString(), "--listen", "udp:x");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.errLines()).hasSize(2);
        assertThat(run.err()).startsWith("urom doctor: --listen udp:x: ").contains("udp:x");
        assertThat(run.errLines().get(1)).isEqualTo("(see: urom doctor --help)");
    }
}
