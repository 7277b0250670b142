package dev.urom.service.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceLoggingTest {
    @TempDir
    Path dir;

    @AfterEach
    void restoreDefaultConfiguration() {
        Configurator.reconfigure();
    }

    @Test
    void writesTheFileInTheDirectoryWithTimeLevelLoggerAndMessage() throws Exception {
        Path file = ServiceLogging.configure(dir.resolve("logs"), "urom_test_dev.log", 50, 40);

        LogManager.getLogger("dev.urom.service.daemon.Probe").info("hello {}", 42);

        assertThat(file).isEqualTo(dir.resolve("logs").resolve("urom_test_dev.log"));
        assertThat(Files.readString(file))
                .containsPattern("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO .* dev\\.urom\\.service\\.daemon\\.Probe - hello 42");
    }

    @Test
    void programAndSdkLoggersFollowTheirOwnLevels() throws Exception {
        Path file = ServiceLogging.configure(dir, "levels.log", 60, 30);

        LogManager.getLogger("dev.urom.service.worker.X").debug("program-debug");
        LogManager.getLogger("dev.urom.service.worker.X").trace("program-trace");
        LogManager.getLogger("my_native_plugin").info("plugin-info");
        LogManager.getLogger("dev.urom.framework.worker.WorkerHost").warn("sdk-warn");
        LogManager.getLogger("dev.urom.framework.worker.WorkerHost").error("sdk-error");
        LogManager.getLogger("dev.urom.nativebridge.NativePlugin").warn("bridge-warn");
        LogManager.getLogger("org.pf4j.PluginManager").error("pf4j-error");

        String text = Files.readString(file);
        assertThat(text).contains("program-debug", "plugin-info", "sdk-error", "pf4j-error")
                .doesNotContain("program-trace", "sdk-warn", "bridge-warn");
    }

    @Test
    void disableSilencesTheProgramButNotTheSdk() throws Exception {
        Path file = ServiceLogging.configure(dir, "off.log", 10, 70);

        LogManager.getLogger("dev.urom.service.daemon.Daemon").fatal("program-fatal");
        LogManager.getLogger("dev.urom.framework.discovery.PluginDiscovery").trace("sdk-trace");

        assertThat(Files.readString(file)).contains("sdk-trace").doesNotContain("program-fatal");
    }

    @Test
    void appendsToAnExistingFile() throws Exception {
        Files.writeString(dir.resolve("kept.log"), "earlier line\n");
        Path file = ServiceLogging.configure(dir, "kept.log", 50, 50);

        LogManager.getLogger("dev.urom.service.X").info("later line");

        assertThat(Files.readString(file)).startsWith("earlier line\n").contains("later line");
    }

    @Test
    void anUnwritableDirectoryFallsBackWithOneLineOnStderr() throws Exception {
        Path regularFile = Files.writeString(dir.resolve("not-a-directory"), "");
        Path wanted = regularFile.resolve("log");
        String savedTmp = System.getProperty("java.io.tmpdir");
        PrintStream savedErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path file;
        try {
            System.setProperty("java.io.tmpdir", dir.resolve("tmp").toString());
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            file = ServiceLogging.configure(wanted, "urom_daemon_dev.log", 50, 40);
        } finally {
            System.setErr(savedErr);
            System.setProperty("java.io.tmpdir", savedTmp);
        }
        LogManager.getLogger("dev.urom.service.X").info("after fallback");

        Path expected = dir.resolve("tmp").resolve("urom-" + System.getProperty("user.name")).resolve("log").resolve("urom_daemon_dev.log");
        assertThat(file).isEqualTo(expected);
        assertThat(Files.readString(expected)).contains("after fallback");
        String line = err.toString(StandardCharsets.UTF_8);
        assertThat(line.lines()).hasSize(1);
        assertThat(line).startsWith("urom: log directory " + wanted + " is not writable (")
                .contains("Not a directory")
                .endsWith("); logging to " + expected + System.lineSeparator());
    }

    @Test
    void warningsAlsoGoToStderrWhenAsked() throws Exception {
        PrintStream savedErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            Path file = ServiceLogging.configure(dir, "daemon.log", 50, 40, true);
            LogManager.getLogger("dev.urom.service.daemon.Daemon").info("quiet info");
            LogManager.getLogger("dev.urom.service.daemon.Daemon").warn("loud warning");
            LogManager.getLogger("dev.urom.framework.discovery.PluginDiscovery").warn("sdk warning");
            assertThat(Files.readString(file)).contains("quiet info", "loud warning", "sdk warning");
        } finally {
            Configurator.reconfigure();
            System.setErr(savedErr);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("loud warning", "sdk warning").doesNotContain("quiet info");
    }

    @Test
    void badLevelsAreRefusedWithOneLine() {
        assertThatThrownBy(() -> ServiceLogging.configure(dir, "x.log", 45, 40))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("log level 45 is not one of " + LogLevels.ACCEPTED);
        assertThatThrownBy(() -> ServiceLogging.configure(dir, "x.log", 50, 0))
                .hasMessage("log level 0 is not one of " + LogLevels.ACCEPTED);
        assertThat(dir.resolve("x.log")).doesNotExist();
    }

    @Test
    void workerFileNameCarriesThePid() {
        assertThat(ServiceLogging.workerLogFile(1234)).isEqualTo("urom_worker_1234_dev.log");
    }
}
