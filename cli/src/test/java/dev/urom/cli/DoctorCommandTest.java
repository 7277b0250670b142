// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * Each test breaks one thing and checks that exactly that check fails, with its advice.
 */
class DoctorCommandTest {
    @TempDir Path dir;

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
        Files.writeString(mounts, "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
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
        List<String> args = new ArrayList<>(List.of("doctor", "--sys-root", sysRoot.toString(), "--log-dir", logs.toString(),
                "--listen", "unix:" + socket));
        args.addAll(List.of(extra));
        return CliRunner.run(pluginPath, args.toArray(String[]::new));
    }

    private JsonNode doctorJson(String pluginPath) throws IOException {
        CliRunner.Run run = doctor(pluginPath, "--json");
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(run.status()).as(run.out() + run.err()).isEqualTo(json.get("ok").asBoolean() ? 0 : 1);
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
        List<String> failed = new ArrayList<>();
        for (JsonNode check : json.get("checks")) {
            if (!check.get("ok").asBoolean()) {
                failed.add(check.get("name").asText());
            }
        }
        return failed;
    }

    @Test
    void aHealthyMachinePassesEveryCheck() {
        CliRunner.Run run = doctor(plugins.toString());

        assertThat(run.status()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).doesNotContain("FAIL").contains("all 7 checks passed")
                .contains("ok    hugepages: 2048 hugepages of 2 MiB allocated")
                .contains("ok    hugetlbfs: mounted at /mnt/huge")
                .contains("worker_graph (native)").contains("worker_graph_java (java)")
                .contains("unix:" + socket + " is free")
                .contains(logs.resolve("urom_daemon_dev.log").toString());
        assertThat(run.err()).isEmpty();
        assertThat(logs).isEmptyDirectory();
    }

    @Test
    void jsonHasOneEntryPerCheckWithNameOkDetailAndAdvice() throws IOException {
        Files.writeString(nrHugepages, "0\n");

        JsonNode json = doctorJson(plugins.toString());

        assertThat(json.get("ok").isBoolean()).isTrue();
        assertThat(json.get("ok").asBoolean()).isFalse();
        List<String> names = new ArrayList<>();
        for (JsonNode check : json.get("checks")) {
            names.add(check.get("name").asText());
            assertThat(check.get("ok").isBoolean()).isTrue();
            assertThat(check.get("detail").asText()).isNotBlank();
            assertThat(check.has("advice")).isTrue();
            assertThat(check.get("advice").isNull()).isEqualTo(check.get("ok").asBoolean());
        }
        assertThat(names).containsExactly("hugepages", "hugetlbfs", "plugin directories", "plugins", "log directory", "listen address", "java");
        assertThat(failedNames(json)).containsExactly("hugepages");
    }

    @Test
    void noHugepagesAllocatedFailsWithTheAdviceAndExitStatusOne() throws IOException {
        Files.writeString(nrHugepages, "0\n");

        CliRunner.Run run = doctor(plugins.toString());

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out()).contains("FAIL  hugepages: no 2 MiB hugepages are allocated")
                .contains("echo 2048 | sudo tee /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages")
                .contains("journalctl -u kubelet")
                .contains("1 of 7 checks failed");
    }

    @Test
    void aKernelWithoutHugepagesFailsTheHugepagesCheck() throws IOException {
        Files.delete(nrHugepages);

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).containsExactly("hugepages");
        assertThat(check(json, "hugepages").get("detail").asText()).contains(nrHugepages.toString()).contains("does not exist");
        assertThat(check(json, "hugepages").get("advice").asText()).contains("nr_hugepages").contains("journalctl -u kubelet");
    }

    @Test
    void noHugetlbfsMountFailsWithTheMountCommand() throws IOException {
        Files.writeString(mounts, "proc /proc proc rw 0 0\ntmpfs /run tmpfs rw 0 0\n");

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).containsExactly("hugetlbfs");
        assertThat(check(json, "hugetlbfs").get("advice").asText()).contains("mount -t hugetlbfs -o pagesize=2M nodev /mnt/huge");
    }

    @Test
    void aMissingPluginDirectoryIsNamed() throws IOException {
        Path missing = dir.resolve("no-such-plugins");

        JsonNode json = doctorJson(plugins + ";" + missing);

        assertThat(failedNames(json)).containsExactly("plugin directories");
        assertThat(check(json, "plugin directories").get("detail").asText()).isEqualTo(missing + " does not exist");
        assertThat(check(json, "plugin directories").get("advice").asText()).contains("UROM_PLUGIN_PATH").contains("hostPath");
        assertThat(check(json, "plugins").get("detail").asText()).isEqualTo("2 accepted: worker_graph (native), worker_graph_java (java)");
    }

    @Test
    void aPluginDirectoryWritableByOthersFailsBothPluginChecksWithItsMode() throws IOException {
        Files.setAttribute(plugins, "unix:mode", 0777);

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).containsExactly("plugin directories", "plugins");
        assertThat(check(json, "plugin directories").get("detail").asText()).startsWith(plugins + " is mode 0777, owner ")
                .endsWith(": writable by others");
        assertThat(check(json, "plugin directories").get("advice").asText()).contains("chmod go-w").doesNotContain("hostPath");
        assertThat(check(json, "plugins").get("detail").asText()).contains("0 accepted").contains("2 rejected").contains("not probed");
    }

    @Test
    void anUnsetPluginPathFailsBothPluginChecks() throws IOException {
        JsonNode json = doctorJson(null);

        assertThat(failedNames(json)).containsExactly("plugin directories", "plugins");
        assertThat(check(json, "plugin directories").get("advice").asText()).contains("UROM_PLUGIN_PATH");
    }

    @Test
    void aRejectedPluginIsReportedWithItsReason() throws IOException {
        Files.writeString(plugins.resolve("not_a_plugin.so"), "this is text, not ELF\n");

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).containsExactly("plugins");
        JsonNode probe = check(json, "plugins");
        assertThat(probe.get("detail").asText()).contains("2 accepted: ").contains("1 rejected: ").contains("not_a_plugin.so");
        assertThat(probe.get("advice").asText()).contains("rejected");
    }

    @Test
    void aLogDirectoryUnderARegularFileIsNotWritable() throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        logs = file.resolve("logs");

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).containsExactly("log directory");
        assertThat(check(json, "log directory").get("detail").asText()).contains(logs.toString()).contains(file + " is not a directory");
        assertThat(check(json, "log directory").get("advice").asText()).contains("--log-dir").contains("fallback");
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
    void aStaleSocketFileFailsWithAdviceToRemoveIt() throws IOException {
        Files.createDirectories(socket.getParent());
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
        assertThat(socket).exists();

        JsonNode json = doctorJson(plugins.toString());

        assertThat(failedNames(json)).containsExactly("listen address");
        assertThat(check(json, "listen address").get("detail").asText()).contains(socket.toString()).contains("stale");
        assertThat(check(json, "listen address").get("advice").asText()).contains("rm " + socket);
        assertThat(socket).exists();
    }

    @Test
    void anInvalidListenAddressIsOneLineOnStderr() {
        CliRunner.Run run = CliRunner.run(plugins.toString(), "doctor", "--sys-root", sysRoot.toString(), "--listen", "udp:x");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.errLines()).hasSize(1);
        assertThat(run.err()).startsWith("urom doctor: --listen udp:x: ").contains("udp:x");
    }
}
