// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.cli.CliRunner;
import dev.urom.cli.PluginJars;
import dev.urom.cli.RefusingPlugin;
import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.spi.UromStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Java plugin that refuses a command, in a real daemon's worker process: the host sees the status
 * and the plugin's message, and the worker's log has it on one WARN line.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PluginFailureEndToEndTest {
    @TempDir
    static Path shared;

    private ServiceHarness daemon;

    @BeforeAll
    void startDaemon() throws Exception {
        Path plugins = ServiceHarness.pluginFolder(shared);
        PluginJars.write(plugins.resolve("refusing.jar"), "refusing", RefusingPlugin.class);
        daemon = ServiceHarness.start(shared, plugins, Map.of());
    }

    @AfterAll
    void stopDaemon() throws Exception {
        daemon.close();
    }

    @Test
    void cmdPrintsTheStatusAndTheJavaPluginsMessage() throws Exception {
        CliRunner.Run run = CliRunner.run(
                null, "cmd", "--service", daemon.address, "--plugin", "refusing", "--payload-hex", "0a0b");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out()).contains("status: INVALID_VALUE (6)\n");
        assertThat(run.errLines())
                .containsExactly("urom cmd: INVALID_VALUE: " + RefusingPlugin.message(new byte[] {10, 11}));
        ServiceHarness.awaitExit(daemon.workers());
    }

    @Test
    void cmdOfANativePluginsFailurePrintsTheErrorThePluginLoggedInTheWorker() throws Exception {
        CliRunner.Run run = CliRunner.run(
                null, "cmd", "--service", daemon.address, "--plugin", "worker_graph", "--payload-hex", "00");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out()).contains("status: INVALID_VALUE (6)");
        assertThat(run.errLines())
                .containsExactly(
                        "urom cmd: INVALID_VALUE: graph command of 1 bytes refused: a graph command is exactly 16 bytes");
        ServiceHarness.awaitExit(daemon.workers());
    }

    @Test
    void theNotificationCarriesTheReasonBesideAnEmptyPayloadAndTheWorkersLogHasItOnOneWarnLine() throws Exception {
        byte[] command = {1, 2, 3};
        List<ProcessHandle> processes;
        try (UromService service = UromService.connect(daemon.address)) {
            long id = service.plugins().stream()
                    .filter(p -> p.info().name().equals("refusing"))
                    .map(Plugin::info)
                    .findFirst()
                    .orElseThrow()
                    .id();
            try (Worker worker = service.newWorker().plugins(id).build()) {
                worker.start().get(60, TimeUnit.SECONDS);
                processes = daemon.workers();
                Notification answer = worker.submit(id, command).get(60, TimeUnit.SECONDS);

                assertThat(answer.status()).isEqualTo(UromStatus.INVALID_VALUE);
                assertThat(answer.payload()).isEmpty();
                assertThat(answer.reason()).isEqualTo(RefusingPlugin.message(command));
            }
        }
        assertThat(processes).hasSize(1);
        ServiceHarness.awaitExit(processes);
        Path log = daemon.logDir.resolve("urom_worker_" + processes.get(0).pid() + "_dev.log");
        assertThat(Files.readAllLines(log))
                .filteredOn(line -> line.contains("refused a command"))
                .singleElement()
                .asString()
                .contains("WARN")
                .endsWith("INVALID_VALUE: " + RefusingPlugin.message(command));
    }
}
