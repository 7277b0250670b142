// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.daemon.testing.Await;
import dev.urom.service.logging.ServiceLogging;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real daemon and real worker processes running a native plugin that writes to stdout and
 * stderr from C and then dies: what it wrote, glibc's own abort message, and a last line saying
 * which signal ended the worker all land in the worker's log ({@code urom_worker_<pid>_dev.log}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WorkerNativeOutputLogTest {
    @TempDir
    static Path pluginDir;

    @TempDir
    Path dir;

    private Daemon daemon;

    @BeforeAll
    static void compilePlugin() {
        NativeFixtures.compileDocaStyle(pluginDir, "doca_style.so", false);
    }

    @AfterEach
    void tearDown() {
        if (daemon != null) {
            daemon.close();
        }
        Configurator.reconfigure();
    }

    private Path logDir() {
        return dir.resolve("log");
    }

    /** Starts a worker of the plugin, runs {@code op} after the SAY command, and returns its log once the worker has gone. */
    private String runUntilTheWorkerDies(long op) throws Exception {
        DaemonConfig config = DaemonConfig.builder()
                .listen(ServiceAddress.unix(dir.resolve("urom.sock")))
                .logDir(logDir())
                .pluginPath(pluginDir.toString())
                .security(TestWorkers.security())
                .build();
        daemon = Daemon.start(Daemon.configureLogging(config));
        try (UromService service = UromService.connect(daemon.address().toString())) {
            Plugin plugin = service.plugins().get(0);
            try (Worker worker = service.newWorker().plugins(plugin.id()).build()) {
                worker.start().get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                long pid = daemon.workers().get(0).pid();
                Notification said = worker.submit(
                                plugin.id(), NativeFixtures.docaStyleCommand(NativeFixtures.DOCA_STYLE_SAY, 41, 0))
                        .get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(said.status()).isEqualTo(UromStatus.SUCCESS);
                worker.submit(plugin.id(), NativeFixtures.docaStyleCommand(op, 42, 0));
                Await.until(
                        "worker pid " + pid + " has been reaped",
                        () -> daemon.workers().isEmpty());
                Path log = logDir().resolve(ServiceLogging.workerLogFile(pid));
                Await.until(
                        "the worker's log ends with how it ended",
                        () -> read(log).contains("worker process " + pid + " was killed"));
                return read(log);
            }
        }
    }

    private static String read(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static String lastLine(String log) {
        List<String> lines = log.lines().toList();
        return lines.get(lines.size() - 1);
    }

    @Test
    void aPluginsStdoutAndStderrAndGlibcsDoubleFreeMessageAndTheSignalAreInTheWorkersLog() throws Exception {
        String log = runUntilTheWorkerDies(NativeFixtures.DOCA_STYLE_ABORT);

        assertThat(log)
                .contains("doca_style printf to stdout, context 41")
                .contains("doca_style fprintf to stderr, context 41")
                .contains("doca_style write(2) to fd 2")
                .contains("free(): double free detected");
        assertThat(lastLine(log)).contains("WARN").contains("was killed by signal 6 (SIGABRT)");
    }

    @Test
    void aPluginThatCrashesLeavesItsOutputAndTheSignalInTheWorkersLog() throws Exception {
        String log = runUntilTheWorkerDies(NativeFixtures.DOCA_STYLE_CRASH);

        assertThat(log).contains("doca_style printf to stdout, context 41").contains("SIGSEGV");
        assertThat(lastLine(log)).contains("was killed by signal 6 (SIGABRT)").contains("fatal error: SIGSEGV");
    }
}
