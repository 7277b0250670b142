// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
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

/**
 * What discovery logs when the same path is scanned again and again (as a daemon does for every
 * PLUGINS request): each warning and rejection once, again only when it changes. Log4j's events
 * of the discovery logger are captured; the prober is a stand-in.
 */
class PluginDiscoveryLoggingTest {
    private static final String LOGGER = PluginDiscovery.class.getName();

    @TempDir
    Path work;

    private final CapturingAppender appender = new CapturingAppender();

    /** Keeps the formatted message of every event it receives. */
    static final class CapturingAppender extends AbstractAppender {
        final List<String> warnings = new CopyOnWriteArrayList<>();

        CapturingAppender() {
            super("discovery-capture", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            warnings.add(event.getMessage().getFormattedMessage());
        }
    }

    @BeforeEach
    void captureTheDiscoveryLogger() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        appender.start();
        config.addAppender(appender);
        LoggerConfig logger = LoggerConfig.newBuilder()
                .withLoggerName(LOGGER)
                .withLevel(Level.WARN)
                .withAdditivity(false)
                .withConfig(config)
                .build();
        logger.addAppender(appender, null, null);
        config.addLogger(LOGGER, logger);
        context.updateLoggers();
    }

    @AfterEach
    void stopCapturing() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().removeLogger(LOGGER);
        context.updateLoggers();
        appender.stop();
    }

    @Test
    void repeatedScansOfABadDirectoryLogEachRejectionOnceAndAgainWhenItChanges() throws IOException {
        Path bad = Files.createDirectory(work.resolve("bad"));
        Files.writeString(bad.resolve("a.so"), "a");
        Files.writeString(bad.resolve("b.jar"), "b");
        Files.setAttribute(bad, "unix:mode", 0777);
        PluginDiscovery discovery = discovery(ScanPolicy.secure());

        ScanResult first = discovery.scan(bad.toString());
        discovery.scan(bad.toString());
        discovery.scan(bad.toString());
        List<String> afterThree = List.copyOf(appender.warnings);
        Files.setAttribute(bad, "unix:mode", 0757);
        ScanResult changed = discovery.scan(bad.toString());
        discovery.scan(bad.toString());

        assertThat(first.rejected()).hasSize(2);
        assertThat(afterThree)
                .containsExactly(
                        "plugin rejected: " + first.rejected().get(0).reason(),
                        "plugin rejected: " + first.rejected().get(1).reason());
        assertThat(appender.warnings)
                .hasSize(4)
                .endsWith(
                        "plugin rejected: " + changed.rejected().get(0).reason(),
                        "plugin rejected: " + changed.rejected().get(1).reason());
        assertThat(changed.rejected().get(0).reason()).contains("mode 0757");
    }

    @Test
    void aWarningIsLoggedOnceWhileItLastsAndAgainAfterItWasGone() throws IOException {
        Path missing = work.resolve("missing");
        Path open = Files.createDirectory(work.resolve("open"));
        Files.writeString(open.resolve("a.so"), "a");
        Files.setAttribute(open, "unix:mode", 0777);
        PluginDiscovery discovery = discovery(ScanPolicy.secure().withAllowInsecure(true));

        ScanResult first = discovery.scan(missing + ";" + open);
        for (int i = 0; i < 3; i++) {
            discovery.scan(missing + ";" + open);
        }
        List<String> afterFour = List.copyOf(appender.warnings);
        discovery.scan(open.toString());
        discovery.scan(missing + ";" + open);

        assertThat(first.warnings()).hasSize(2);
        assertThat(first.rejected()).isEmpty();
        assertThat(afterFour).containsExactlyElementsOf(first.warnings());
        assertThat(appender.warnings)
                .containsExactly(
                        first.warnings().get(0),
                        first.warnings().get(1),
                        first.warnings().get(0));
    }

    private static PluginDiscovery discovery(ScanPolicy policy) {
        return new PluginDiscovery(
                new PluginScanner((file, kind) -> ProbeVerdict.accepted(1), policy), new PluginIdRegistry());
    }
}
