// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the worker host logs when a plugin refuses a command: Log4j's events of its logger, captured at INFO and above. */
class WorkerHostLoggingTest {
    private static final String LOGGER = WorkerHost.class.getName();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Capture capture = new Capture();
    private final EchoPlugin plugin = new EchoPlugin("a");
    private WorkerHost host;

    /** Keeps the level and formatted message of every event it receives. */
    static final class Capture extends AbstractAppender {
        final List<LogEvent> events = new CopyOnWriteArrayList<>();

        Capture() {
            super("worker-host-capture", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            events.add(event.toImmutable());
        }

        List<String> at(Level level) {
            return events.stream()
                    .filter(e -> e.getLevel() == level)
                    .map(e -> e.getMessage().getFormattedMessage())
                    .toList();
        }
    }

    @BeforeEach
    void captureTheWorkerHostLogger() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        capture.start();
        config.addAppender(capture);
        LoggerConfig logger = LoggerConfig.newBuilder()
                .withLoggerName(LOGGER)
                .withLevel(Level.INFO)
                .withAdditivity(false)
                .withConfig(config)
                .build();
        logger.addAppender(capture, null, null);
        config.addLogger(LOGGER, logger);
        context.updateLoggers();
        host = WorkerHost.open(
                7, PluginSpec.parseAll(List.of("/plugins/a.jar:1")), path -> plugin, WorkerHostConfig.defaults());
    }

    @AfterEach
    void stopCapturing() {
        host.close();
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().removeLogger(LOGGER);
        context.updateLoggers();
        capture.stop();
    }

    @Test
    void aRefusalIsOneWarnLineWithThePluginTheStatusAndTheMessage() {
        plugin.failCommand = new UromException(UromStatus.INVALID_VALUE, "no such graph node 12");

        host.call(new WorkerCommand(1, 1, 42, new byte[1]), TIMEOUT);

        assertThat(capture.at(Level.WARN))
                .containsExactly(
                        "worker 7: plugin 'a' refused a command (context 42): INVALID_VALUE: no such graph node 12");
    }

    @Test
    void aHugeMultiLineMessageIsLoggedOnOneBoundedLine() {
        plugin.failCommand = new UromException(UromStatus.INVALID_VALUE, ("line\n").repeat(10_000));

        host.call(new WorkerCommand(1, 1, 42, new byte[1]), TIMEOUT);

        assertThat(capture.at(Level.WARN)).singleElement().satisfies(line -> {
            assertThat(line).doesNotContain("\n").endsWith("…");
            assertThat(line.length()).isLessThan(FailureText.MAX_CHARS + 100);
        });
    }

    @Test
    void anyOtherExceptionIsOneErrorLineWithItsClassAndMessage() {
        plugin.failCommand = new IllegalStateException("lost\nits state");

        host.call(new WorkerCommand(1, 1, 43, new byte[1]), TIMEOUT);

        assertThat(capture.at(Level.ERROR))
                .containsExactly(
                        "worker 7: plugin 'a' threw on a command (context 43): java.lang.IllegalStateException: lost its state");
        assertThat(capture.events)
                .allSatisfy(e -> assertThat(e.getThrown())
                        .as("no stack trace above DEBUG")
                        .isNull());
    }
}
