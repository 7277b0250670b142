// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.UromException;
import java.nio.file.Path;
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
import org.junit.jupiter.api.io.TempDir;

class NativeLogBridgeTest {
    private static final String SOURCE = "UROM::TEST::LOG";

    @TempDir
    Path dir;

    private final CapturingAppender appender = new CapturingAppender();

    /** Keeps copies of the events it receives. */
    static final class CapturingAppender extends AbstractAppender {
        final List<LogEvent> events = new CopyOnWriteArrayList<>();

        CapturingAppender() {
            super("capture", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            events.add(event.toImmutable());
        }
    }

    @BeforeEach
    void captureTheTestSource() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        appender.start();
        config.addAppender(appender);
        LoggerConfig logger = LoggerConfig.newBuilder()
                .withLoggerName(SOURCE)
                .withLevel(Level.INFO)
                .withAdditivity(false)
                .withConfig(config)
                .build();
        logger.addAppender(appender, null, null);
        config.addLogger(SOURCE, logger);
        context.updateLoggers();
    }

    @AfterEach
    void stopCapturing() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().removeLogger(SOURCE);
        context.updateLoggers();
        appender.stop();
    }

    @Test
    void aDocaStylePluginLogsIntoLog4j() throws UromException {
        Path so = TestPlugins.build(dir, "doca_logging.c", "logging.so", NativeFixtures.docaCompatFlags());
        NativePlugin plugin = NativePlugin.load(so);
        assertThat(NativeLogBridge.installed()).isTrue();
        plugin.open(TestContext.withoutDomain());
        plugin.close();

        assertThat(appender.events).hasSize(1);
        LogEvent event = appender.events.get(0);
        assertThat(event.getLoggerName()).isEqualTo(SOURCE);
        assertThat(event.getLevel()).isEqualTo(Level.WARN);
        assertThat(event.getMessage().getFormattedMessage()).isEqualTo("opened with 4 look-ups, status DOCA_SUCCESS");
        assertThat(event.getSource().getFileName()).endsWith(".c");
        assertThat(event.getSource().getMethodName()).isEqualTo("l_open");
        assertThat(event.getSource().getLineNumber()).isPositive();
    }

    @Test
    void installingTwiceIsHarmless() {
        NativeLogBridge.install();
        NativeLogBridge.install();
        assertThat(NativeLogBridge.installed()).isTrue();
    }

    @Test
    void mapsTheNumericLevels() {
        assertThat(NativeLogBridge.level(10)).isNull();
        assertThat(NativeLogBridge.level(20)).isEqualTo(Level.FATAL);
        assertThat(NativeLogBridge.level(30)).isEqualTo(Level.ERROR);
        assertThat(NativeLogBridge.level(40)).isEqualTo(Level.WARN);
        assertThat(NativeLogBridge.level(50)).isEqualTo(Level.INFO);
        assertThat(NativeLogBridge.level(60)).isEqualTo(Level.DEBUG);
        assertThat(NativeLogBridge.level(70)).isEqualTo(Level.TRACE);
    }
}
