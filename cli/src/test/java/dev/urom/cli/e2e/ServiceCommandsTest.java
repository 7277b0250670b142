// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.urom.cli.CliRunner;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.plugins.graph.host.GraphClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The commands that talk to a running daemon, in-process, against a real daemon process. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServiceCommandsTest {
    private static final String LOOPBACK_42 = "0000000000000000" + "2a00000000000000";

    @TempDir
    static Path shared;

    private ServiceHarness daemon;

    @BeforeAll
    void startDaemon() throws Exception {
        daemon = ServiceHarness.start(shared, Map.of());
    }

    @AfterEach
    void noWorkerLeft() throws Exception {
        ServiceHarness.awaitExit(daemon.workers());
    }

    @AfterAll
    void stopDaemon() throws Exception {
        daemon.close();
    }

    private CliRunner.Run urom(String... args) {
        return CliRunner.run(null, args);
    }

    @Test
    void pluginsFromTheServiceAsJson() throws Exception {
        CliRunner.Run run = urom("plugins", "--service", daemon.address, "--json");

        assertThat(run.status()).as(run.err()).isZero();
        JsonNode plugins = new ObjectMapper().readTree(run.out()).get("plugins");
        assertThat(plugins)
                .extracting(p -> p.get("name").asText() + "/" + p.get("kind").asText())
                .containsExactlyInAnyOrder("worker_graph/native", "worker_graph_java/java", "service_fixture/native");
    }

    @Test
    void cmdStartsAWorkerSendsOneCommandAndPrintsTheAnswer() {
        CliRunner.Run byName =
                urom("cmd", "--service", daemon.address, "--plugin", "worker_graph", "--payload-hex", LOOPBACK_42);
        CliRunner.Run byId = urom(
                "cmd",
                "--service",
                daemon.address,
                "--plugin",
                "0x" + Long.toHexString(graphId("worker_graph_java")),
                "--payload-hex",
                LOOPBACK_42,
                "--worker-id",
                "9");

        assertThat(byName.status()).as(byName.err()).isZero();
        assertThat(byName.out()).contains("status: SUCCESS (0)\npayload: " + LOOPBACK_42 + "\n");
        assertThat(byId.status()).as(byId.err()).isZero();
        assertThat(byId.out()).startsWith("worker: 9\n").contains("payload: " + LOOPBACK_42);
    }

    @Test
    void cmdReportsAPluginErrorStatusWithExitOne() {
        CliRunner.Run run = urom("cmd", "--service", daemon.address, "--plugin", "worker_graph", "--payload-hex", "00");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out()).contains("status: INVALID_VALUE (6)");
    }

    @Test
    void cmdOfAnOversizedPayloadNamesItsSizeAndTheDaemonsLimit() {
        String payload = "00".repeat(4096);

        CliRunner.Run run =
                urom("cmd", "--service", daemon.address, "--plugin", "worker_graph", "--payload-hex", payload);

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out()).contains("status: TOO_BIG (27)");
        assertThat(run.errLines())
                .containsExactly("urom cmd: TOO_BIG: a command of 4120 bytes (24-byte header + 4096 bytes of payload)"
                        + " is over the daemon's max message size of 4096 bytes (urom daemon -m, --max-msg-size)");
    }

    @Test
    void cmdOfAnUnknownPluginIsOneLine() {
        CliRunner.Run run = urom("cmd", "--service", daemon.address, "--plugin", "nope", "--payload-hex", "00");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.errLines()).hasSize(1);
        assertThat(run.errLines().get(0))
                .startsWith("urom cmd: the service has no plugin 'nope' (it has: ")
                .contains("worker_graph");
    }

    @Test
    void loopbackThroughEitherGraphPlugin() {
        CliRunner.Run c = urom("loopback", "--service", daemon.address, "--value", "7");
        CliRunner.Run java = urom(
                "loopback",
                "--service",
                daemon.address,
                "--value",
                "0xfffffffffffffffd",
                "--plugin",
                "worker_graph_java");

        assertThat(c.status()).as(c.err()).isZero();
        assertThat(c.out()).startsWith("loopback 7 -> 7 via worker_graph on worker ");
        assertThat(java.status()).as(java.err()).isZero();
        assertThat(java.out())
                .startsWith("loopback 0xfffffffffffffffd -> 0xfffffffffffffffd via worker_graph_java on worker ");
    }

    @Test
    void loopbackOfTheLargestUnsignedValuePrintsItUnsignedInTheBaseItWasGivenIn() {
        for (String plugin : List.of("worker_graph", "worker_graph_java")) {
            CliRunner.Run decimal = urom(
                    "loopback", "--service", daemon.address, "--value", "18446744073709551615", "--plugin", plugin);
            CliRunner.Run hex =
                    urom("loopback", "--service", daemon.address, "--value", "0xffffffffffffffff", "--plugin", plugin);

            assertThat(decimal.status()).as(decimal.err()).isZero();
            assertThat(decimal.out())
                    .startsWith("loopback 18446744073709551615 -> 18446744073709551615 via " + plugin + " on worker ");
            assertThat(hex.status()).as(hex.err()).isZero();
            assertThat(hex.out())
                    .startsWith("loopback 0xffffffffffffffff -> 0xffffffffffffffff via " + plugin + " on worker ");
        }
    }

    @Test
    void workersDescribesTheCallersRunningWorkersAsJsonAndAsATable() throws Exception {
        try (UromService service = UromService.connect(daemon.address)) {
            long graph = graphId("worker_graph");
            try (Worker even = service.newWorker().id(40).gid(0).plugins(graph).build();
                    Worker odd =
                            service.newWorker().id(41).gid(1).plugins(graph).build()) {
                even.start().get(60, TimeUnit.SECONDS);
                odd.start().get(60, TimeUnit.SECONDS);
                for (int i = 0; i < 3; i++) {
                    assertThat(GraphClient.loopback(even, graph, i).get(60, TimeUnit.SECONDS))
                            .isEqualTo(i);
                }
                List<Long> pids =
                        daemon.workers().stream().map(ProcessHandle::pid).toList();

                // The daemon waits at most 1 s for a worker's fresh counts; a slow answer shows the last ones, so ask
                // again.
                CliRunner.Run all = urom("workers", "--service", daemon.address, "--json");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!all.out().contains("\"commands\":3") && System.nanoTime() < deadline) {
                    all = urom("workers", "--service", daemon.address, "--json");
                }
                CliRunner.Run table = urom("workers", "--service", daemon.address);
                CliRunner.Run group = urom("workers", "--service", daemon.address, "--gid", "1");

                assertThat(all.status()).as(all.err()).isZero();
                JsonNode workers = new ObjectMapper().readTree(all.out());
                assertThat(workers.isArray()).isTrue();
                assertThat(workers).extracting(w -> w.get("id").asLong()).containsExactly(40L, 41L);
                assertThat(workers).extracting(w -> w.get("gid").asLong()).containsExactly(0L, 1L);
                assertThat(workers).extracting(w -> w.get("state").asText()).containsOnly("running");
                assertThat(workers).extracting(w -> w.get("plugins").toString()).containsOnly("[\"worker_graph\"]");
                assertThat(workers).extracting(w -> w.get("pid").asLong()).containsExactlyInAnyOrderElementsOf(pids);
                assertThat(workers)
                        .extracting(w -> w.get("uptime_ms").asLong())
                        .allSatisfy(ms -> assertThat(ms).isNotNegative());
                assertThat(workers).extracting(w -> w.get("commands").asLong()).containsExactly(3L, 0L);

                List<String> lines = List.of(table.out().split("\n"));
                assertThat(table.status()).as(table.err()).isZero();
                assertThat(lines).hasSize(3);
                assertThat(lines.get(0)).matches("ID +GID +STATE +PLUGINS +PID +UPTIME +COMMANDS");
                for (String column : List.of("GID", "STATE", "PLUGINS", "PID", "UPTIME", "COMMANDS")) {
                    int at = lines.get(0).indexOf(column);
                    assertThat(lines.subList(1, 3))
                            .as(column + " starts at " + at)
                            .allSatisfy(row -> {
                                assertThat(row.charAt(at - 1)).isEqualTo(' ');
                                assertThat(row.charAt(at)).isNotEqualTo(' ');
                            });
                }
                assertThat(lines.get(1))
                        .startsWith("40")
                        .contains(" running ")
                        .contains(" worker_graph ")
                        .endsWith(" 3");
                assertThat(lines.get(2)).startsWith("41").endsWith(" 0");
                assertThat(group.out()).startsWith("ID ").contains("\n41 ").doesNotContain("\n40 ");
            }
        }
    }

    @Test
    void workersOfAGroupWithoutWorkersSaysSo() {
        CliRunner.Run none = urom("workers", "--service", daemon.address, "--gid", "7");
        CliRunner.Run json = urom("workers", "--service", daemon.address, "--json");

        assertThat(none.out()).isEqualTo("(no workers in gid 7)\n");
        assertThat(json.out()).isEqualTo("[]\n");
    }

    @Test
    void anUnreachableServiceIsOneLine() {
        CliRunner.Run missing = urom("plugins", "--service", "unix:" + shared.resolve("nobody.sock"));
        CliRunner.Run malformed = urom("workers", "--service", "carrier-pigeon:7");

        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.errLines()).hasSize(1);
        assertThat(missing.errLines().get(0)).startsWith("urom plugins: ").contains("nobody.sock");
        assertThat(malformed.status()).isEqualTo(2);
        assertThat(malformed.errLines()).hasSize(2);
        assertThat(malformed.errLines().get(0))
                .startsWith("urom workers: --service: ")
                .contains("carrier-pigeon:7");
        assertThat(malformed.errLines().get(1)).isEqualTo("(see: urom workers --help)");
    }

    @Test
    void badDaemonOptionsAreUsageErrorsOfOneLineAndTheHint() {
        CliRunner.Run workers = urom("daemon", "--max-workers", "3");
        CliRunner.Run level = urom("daemon", "-l", "55");

        assertThat(workers.status()).isEqualTo(2);
        assertThat(workers.errLines())
                .containsExactly("urom daemon: --max-workers 3 is not a power of two", "(see: urom daemon --help)");
        assertThat(level.status()).isEqualTo(2);
        assertThat(level.errLines()).hasSize(2);
        assertThat(level.errLines().get(0))
                .startsWith("urom daemon: --log-level: ")
                .contains("55");
    }

    @Test
    void anUnwritableLogDirectoryIsOneLineAndTheDaemonAndItsWorkersLogToTheFallback(@TempDir Path own)
            throws Exception {
        Path notADirectory = Files.writeString(own.resolve("file"), "x");
        Path tmp = Files.createDirectories(own.resolve("tmp"));
        ProcessBuilder builder = new ProcessBuilder(ServiceHarness.daemonCommand(
                        List.of("-Djava.io.tmpdir=" + tmp),
                        "--listen",
                        "unix:" + own.resolve("d.sock"),
                        "--log-dir",
                        notADirectory.resolve("log").toString()))
                .redirectErrorStream(true);
        builder.environment()
                .put("UROM_PLUGIN_PATH", ServiceHarness.pluginFolder(own).toString());
        builder.environment().remove("SERVICE_ARGS");
        Process process = builder.start();
        try {
            BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            List<String> output = new ArrayList<>();
            String line;
            while ((line = lines.readLine()) != null && output.size() < 10) {
                output.add(line);
                if (line.contains("listening on")) {
                    break;
                }
            }
            assertThat(output)
                    .anySatisfy(text -> assertThat(text)
                            .startsWith("urom: log directory " + notADirectory.resolve("log")
                                    + " is not writable (Not a directory); logging to "));
            assertThat(output).last().asString().contains("listening on unix:");
            Path fallback =
                    tmp.resolve("urom-" + System.getProperty("user.name")).resolve("log");
            assertThat(fallback.resolve("urom_daemon_dev.log")).exists();
            try (UromService service = UromService.connect("unix:" + own.resolve("d.sock"));
                    Worker worker = service.newWorker()
                            .plugins(service.plugins().stream()
                                    .filter(p -> p.info().name().equals("worker_graph"))
                                    .findFirst()
                                    .orElseThrow()
                                    .info()
                                    .id())
                            .build()) {
                worker.start().get(60, TimeUnit.SECONDS);
                long pid =
                        process.toHandle().children().findFirst().orElseThrow().pid();
                assertThat(fallback.resolve("urom_worker_" + pid + "_dev.log"))
                        .as("the worker logs where the daemon does")
                        .exists();
                assertThat(ServiceHarness.commandLine(
                                process.toHandle().children().findFirst().orElseThrow()))
                        .as(
                                "a crash report goes to the worker's own directory first (the daemon copies it into the log directory)")
                        .containsPattern("-XX:ErrorFile=" + tmp
                                + "/urom-workers-[0-9]+-[0-9]+/worker-0-1/urom_worker_%p_crash.log");
            }
        } finally {
            process.destroy();
            process.waitFor(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void theDaemonServesHealthWhenGivenAnHttpPort(@TempDir Path own) throws Exception {
        Process process = new ProcessBuilder(ServiceHarness.daemonCommand(
                        List.of(),
                        "--listen",
                        "unix:" + own.resolve("d.sock"),
                        "--log-dir",
                        own.resolve("log").toString(),
                        "--http-port",
                        "0"))
                .redirectErrorStream(true)
                .start();
        try {
            BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line;
            String listening = null;
            while ((line = lines.readLine()) != null) {
                if (line.contains("listening on")) {
                    listening = line;
                    break;
                }
            }
            assertThat(listening)
                    .matches("urom daemon: listening on unix:"
                            + java.util.regex.Pattern.quote(
                                    own.resolve("d.sock").toString())
                            + " \\(log: "
                            + java.util.regex.Pattern.quote(
                                    own.resolve("log/urom_daemon_dev.log").toString())
                            + "; health and metrics: http://127\\.0\\.0\\.1:[0-9]+\\)");
            String url = listening.substring(listening.indexOf("http://"), listening.lastIndexOf(')')) + "/healthz";
            java.net.http.HttpResponse<String> health = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).isEqualTo("ok\n");
        } finally {
            process.destroy();
            process.waitFor(60, TimeUnit.SECONDS);
        }
    }

    private long graphId(String name) {
        try (UromService service = UromService.connect(daemon.address)) {
            return service.plugins().stream()
                    .filter(p -> p.info().name().equals(name))
                    .map(Plugin::info)
                    .findFirst()
                    .orElseThrow()
                    .id();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
