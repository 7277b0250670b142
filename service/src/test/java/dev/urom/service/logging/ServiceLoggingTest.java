// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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
                .containsPattern(
                        "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO .* dev\\.urom\\.service\\.daemon\\.Probe - hello 42");
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
        assertThat(text)
                .contains("program-debug", "plugin-info", "sdk-error", "pf4j-error")
                .doesNotContain("program-trace", "sdk-warn", "bridge-warn");
    }

    @Test
    void theHostLibrarysSystemLoggerLinesLandInTheLogAtTheSdkLevel() throws Exception {
        Path file = ServiceLogging.configure(dir, "host.log", 60, 30);

        System.getLogger("dev.urom.host.Worker").log(System.Logger.Level.ERROR, "host-error {0}", "seven");
        System.getLogger("dev.urom.host.Worker").log(System.Logger.Level.WARNING, "host-warn");
        System.getLogger("dev.urom.wire.FrameChannel").log(System.Logger.Level.WARNING, "wire-warn");

        assertThat(Files.readString(file))
                .contains("ERROR [" + Thread.currentThread().getName() + "] dev.urom.host.Worker - host-error seven")
                .doesNotContain("host-warn", "wire-warn");
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

        Path expected = dir.resolve("tmp")
                .resolve("urom-" + System.getProperty("user.name"))
                .resolve("log")
                .resolve("urom_daemon_dev.log");
        assertThat(file).isEqualTo(expected);
        assertThat(Files.readString(expected)).contains("after fallback");
        String line = err.toString(StandardCharsets.UTF_8);
        assertThat(line.lines()).hasSize(1);
        assertThat(line)
                .startsWith("urom: log directory " + wanted + " is not writable (")
                .contains("Not a directory")
                .endsWith("); logging to " + expected + System.lineSeparator());
    }

    @Test
    void warningsAlsoGoToStderrWhenAsked() throws Exception {
        PrintStream savedErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            Path file = ServiceLogging.configure(dir, "daemon.log", 50, 40, true, LogRolling.DEFAULT);
            LogManager.getLogger("dev.urom.service.daemon.Daemon").info("quiet info");
            LogManager.getLogger("dev.urom.service.daemon.Daemon").warn("loud warning");
            LogManager.getLogger("dev.urom.framework.discovery.PluginDiscovery").warn("sdk warning");
            assertThat(Files.readString(file)).contains("quiet info", "loud warning", "sdk warning");
        } finally {
            Configurator.reconfigure();
            System.setErr(savedErr);
        }
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("loud warning", "sdk warning")
                .doesNotContain("quiet info");
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
    void theFileRollsAtItsSizeAndKeepsAtMostTheCountOfFiles() throws Exception {
        Path logs = dir.resolve("rolling");
        Path file = ServiceLogging.configure(logs, "urom_daemon_dev.log", 50, 40, false, new LogRolling(4096, 3));
        var logger = LogManager.getLogger("dev.urom.service.daemon.Daemon");
        String padding = "x".repeat(100);

        for (int i = 0; i < 500; i++) {
            logger.info("line {} {}", i, padding);
        }

        try (Stream<Path> files = Files.list(logs)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("urom_daemon_dev.log", "urom_daemon_dev.log.1", "urom_daemon_dev.log.2");
        }
        String current = Files.readString(file);
        String newestRolled = Files.readString(logs.resolve("urom_daemon_dev.log.1"));
        String oldestRolled = Files.readString(logs.resolve("urom_daemon_dev.log.2"));
        assertThat(current).as("the current file ends with the last line").contains("line 499 ");
        for (String text : List.of(current, newestRolled, oldestRolled)) {
            assertThat(text.length())
                    .as("a file passes the size by one line at most")
                    .isLessThan(4096 + 300);
        }
        assertThat(firstLineNumber(oldestRolled)).isLessThan(firstLineNumber(newestRolled));
        assertThat(firstLineNumber(newestRolled)).isLessThan(firstLineNumber(current));
        assertThat(firstLineNumber(newestRolled))
                .as("the files hold consecutive lines")
                .isEqualTo(lastLineNumber(oldestRolled) + 1);
        assertThat(oldestRolled).as("the first lines are gone").doesNotContain("line 0 ");
    }

    private static int firstLineNumber(String text) {
        return lineNumber(text.lines().findFirst().orElseThrow());
    }

    private static int lastLineNumber(String text) {
        return lineNumber(text.lines().reduce((a, b) -> b).orElseThrow());
    }

    private static int lineNumber(String line) {
        Matcher matcher = Pattern.compile(" - line (\\d+) ").matcher(line);
        assertThat(matcher.find()).as(line).isTrue();
        return Integer.parseInt(matcher.group(1));
    }

    @Test
    void aDirectoryWithPatternCharactersRollsIntoItself() throws Exception {
        Path logs = dir.resolve("100% ${env:HOME} $${x} %d");
        Path file = ServiceLogging.configure(logs, "odd.log", 50, 40, false, new LogRolling(4096, 2));

        for (int i = 0; i < 100; i++) {
            LogManager.getLogger("dev.urom.service.X").info("line {} {}", i, "y".repeat(100));
        }

        assertThat(file).isEqualTo(logs.resolve("odd.log"));
        try (Stream<Path> files = Files.list(logs)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("odd.log", "odd.log.1");
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("100% ${env:HOME} $${x} %d");
        }
    }

    @Test
    void workerFileNameCarriesThePid() {
        assertThat(ServiceLogging.workerLogFile(1234)).isEqualTo("urom_worker_1234_dev.log");
    }
}
