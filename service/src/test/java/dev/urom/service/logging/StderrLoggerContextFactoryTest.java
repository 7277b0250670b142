// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.spi.LoggerContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StderrLoggerContextFactoryTest {
    private static final String LINE_START = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} ";
    private final LoggerContext context =
            new StderrLoggerContextFactory().getContext(getClass().getName(), null, null, false);

    @TempDir
    Path dir;

    @AfterEach
    void warnAgain() {
        StderrLoggerContextFactory.configure(40, 40);
    }

    @Test
    void eachLevelGoesToStderrInTheFileLayoutWhenItsLoggerTakesIt() {
        List<String> lines = stderrOf(() -> {
            StderrLoggerContextFactory.configure(60, 30);
            context.getLogger("dev.urom.service.worker.WorkerMain").debug("program debug é {}", 7);
            context.getLogger("dev.urom.service.worker.WorkerMain").trace("program trace");
            context.getLogger("dev.urom.framework.worker.WorkerHost").error("sdk error");
            context.getLogger("dev.urom.framework.worker.WorkerHost").warn("sdk warning");
            context.getLogger("dev.urom.frameworks.Other").debug("not under an SDK prefix");
        });

        assertThat(lines).hasSize(3);
        assertThat(lines.get(0))
                .matches(LINE_START + "DEBUG \\[.*\\] dev\\.urom\\.service\\.worker\\.WorkerMain - program debug é 7");
        assertThat(lines.get(1))
                .endsWith(" ERROR [" + Thread.currentThread().getName()
                        + "] dev.urom.framework.worker.WorkerHost - sdk error");
        assertThat(lines.get(2))
                .matches(LINE_START + "DEBUG .* dev\\.urom\\.frameworks\\.Other - not under an SDK prefix");
    }

    @Test
    void aLoggerMadeBeforeTheLevelsAreSetFollowsThem() {
        Logger early = context.getLogger("plugin.Early");
        List<String> lines = stderrOf(() -> {
            early.info("before");
            StderrLoggerContextFactory.configure(50, 40);
            early.info("after");
            StderrLoggerContextFactory.configure(10, 10);
            early.fatal("disabled");
        });

        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).matches(LINE_START + "INFO  \\[.*\\] plugin\\.Early - after");
        assertThat(early.isInfoEnabled()).isFalse();
    }

    @Test
    void aThrowableFollowsItsLineWithItsStackTrace() {
        List<String> lines = stderrOf(() -> {
            StderrLoggerContextFactory.configure(50, 40);
            context.getLogger("plugin.Failing").warn("it failed", new IllegalStateException("the reason"));
        });

        assertThat(lines.get(0))
                .endsWith(" WARN  [" + Thread.currentThread().getName() + "] plugin.Failing - it failed");
        assertThat(lines.get(1)).isEqualTo("java.lang.IllegalStateException: the reason");
        assertThat(lines.get(2)).startsWith("\tat dev.urom.service.logging.StderrLoggerContextFactoryTest");
    }

    @Test
    void theContextKeepsOneLoggerPerName() {
        assertThat(context.getLogger("a.b")).isSameAs(context.getLogger("a.b"));
        assertThat(context.hasLogger("a.b")).isTrue();
        assertThat(context.hasLogger("never.made")).isFalse();
    }

    @Test
    void aBadLevelIsOneLine() {
        assertThatThrownBy(() -> StderrLoggerContextFactory.configure(50, 41))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("log level 41 is not one of " + LogLevels.ACCEPTED);
    }

    /** A JVM whose Log4j2 back end is this one, as a worker's: SLF4J and System.Logger reach it too, and log4j-core does not start. */
    @Test
    void aJvmSelectingItLogsThroughEveryBridgeWithoutLog4jCore() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xlog:class+load=info:file=" + dir.resolve("classes.log"),
                "-cp",
                System.getProperty("java.class.path"),
                StderrLoggingProbe.class.getName()));
        Process probe = new ProcessBuilder(command).redirectErrorStream(false).start();
        String err = new String(probe.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(probe.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(probe.exitValue()).as(err).isZero();
        assertThat(err.lines()).hasSize(3).allMatch(line -> line.matches(LINE_START + "INFO  \\[main\\] .*"));
        assertThat(err)
                .contains(
                        "probe.log4j - through the Log4j2 API",
                        "probe.slf4j - through SLF4J",
                        "probe.jpl - through System.Logger");
        List<String> coreClasses = Files.readAllLines(dir.resolve("classes.log")).stream()
                .filter(line -> line.contains(" org.apache.logging.log4j.core."))
                .toList();
        assertThat(coreClasses)
                .as("log4j-core's provider is looked at, but no context, configuration or appender is made")
                .hasSizeLessThan(20)
                .noneMatch(line -> line.contains(" org.apache.logging.log4j.core.LoggerContext ")
                        || line.contains(" org.apache.logging.log4j.core.appender.")
                        || line.contains(" org.apache.logging.log4j.core.layout."));
    }

    private static List<String> stderrOf(Runnable logging) {
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            logging.run();
        } finally {
            System.setErr(saved);
        }
        return err.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
