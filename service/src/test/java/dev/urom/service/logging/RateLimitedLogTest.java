// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The limiter in front of a real Log4j2 logger (a context of its own, writing level and message to a file), on a clock moved by hand. */
class RateLimitedLogTest {
    private static final Duration MINUTE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(123_456_789L);
    private LoggerContext context;
    private Logger logger;
    private Path file;

    @BeforeEach
    void startLogger() {
        file = dir.resolve("limited.log");
        ConfigurationBuilder<BuiltConfiguration> builder = ConfigurationBuilderFactory.newConfigurationBuilder();
        builder.add(builder.newAppender("file", "File")
                .addAttribute("fileName", file.toString())
                .add(builder.newLayout("PatternLayout").addAttribute("pattern", "%level %m%n")));
        builder.add(builder.newRootLogger(Level.INFO).add(builder.newAppenderRef("file")));
        context = new LoggerContext("RateLimitedLogTest");
        context.start(builder.build(false));
        logger = context.getLogger("limited");
    }

    @AfterEach
    void stopLogger() {
        context.stop();
    }

    private List<String> lines() throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private void advance(Duration by) {
        now.addAndGet(by.toNanos());
    }

    @Test
    void theBurstIsLoggedThenLinesAreCountedUntilTheWindowEnds() throws Exception {
        RateLimitedLog log = new RateLimitedLog(logger, 3, MINUTE, now::get);

        for (int i = 1; i <= 10; i++) {
            log.warn("refused WORKER_START", "refusal {}", i);
            advance(Duration.ofSeconds(1));
        }
        assertThat(lines()).containsExactly("WARN refusal 1", "WARN refusal 2", "WARN refusal 3");

        advance(Duration.ofSeconds(49));
        log.warn("refused WORKER_START", "refusal {}", 11);
        assertThat(lines()).as("59 s after the window opened").hasSize(3);

        advance(Duration.ofSeconds(1));
        log.log("refused WORKER_START", Level.ERROR, "refusal {}", 12);
        log.warn("refused WORKER_START", "refusal {}", 13);
        assertThat(lines())
                .containsExactly(
                        "WARN refusal 1",
                        "WARN refusal 2",
                        "WARN refusal 3",
                        "ERROR refused WORKER_START: 8 more lines were not logged (at most 3 per 60 s)",
                        "ERROR refusal 12",
                        "WARN refusal 13");
    }

    @Test
    void oneDroppedLineIsReportedInTheSingular() throws Exception {
        RateLimitedLog log = new RateLimitedLog(logger, 1, Duration.ofMillis(1500), now::get);

        log.warn("c", "first");
        log.warn("c", "second");
        advance(Duration.ofMillis(1500));
        log.warn("c", "third");

        assertThat(lines())
                .containsExactly(
                        "WARN first", "WARN c: 1 more line was not logged (at most 1 per 1500 ms)", "WARN third");
    }

    @Test
    void categoriesHaveTheirOwnWindows() throws Exception {
        RateLimitedLog log = new RateLimitedLog(logger, 1, MINUTE, now::get);

        log.warn("a", "a1");
        log.warn("a", "a2");
        log.warn("b", "b1");
        log.warn("b", "b2");
        log.warn("b", "b3");
        advance(MINUTE);
        log.warn("b", "b4");
        log.warn("a", "a3");

        assertThat(lines())
                .containsExactly(
                        "WARN a1",
                        "WARN b1",
                        "WARN b: 2 more lines were not logged (at most 1 per 60 s)",
                        "WARN b4",
                        "WARN a: 1 more line was not logged (at most 1 per 60 s)",
                        "WARN a3");
    }

    @Test
    void linesWithinTheBurstOfEachWindowAreAllLoggedWithoutAReport() throws Exception {
        RateLimitedLog log = new RateLimitedLog(logger, 2, MINUTE, now::get);

        for (int i = 0; i < 20; i++) {
            log.warn("steady", "line {}", i);
            advance(Duration.ofSeconds(30));
        }

        assertThat(lines()).hasSize(20).allMatch(line -> line.startsWith("WARN line "));
    }

    @Test
    void aLineTheLoggerDoesNotLogIsNotCounted() throws Exception {
        RateLimitedLog log = new RateLimitedLog(logger, 1, MINUTE, now::get);

        log.log("c", Level.DEBUG, "quiet");
        log.log("c", Level.INFO, "shown");

        assertThat(lines()).containsExactly("INFO shown");
    }

    @Test
    void aThrowableLastArgumentIsTheLinesException() throws Exception {
        RateLimitedLog log = new RateLimitedLog(logger, 1, MINUTE, now::get);

        log.warn("c", "failed: {}", "why", new IllegalStateException("boom"));

        assertThat(lines().get(0)).isEqualTo("WARN failed: why");
        assertThat(lines()).anyMatch(line -> line.contains("IllegalStateException: boom"));
    }

    @Test
    void manyThreadsInOneWindowLogTheBurstAndTheRestIsCountedExactly() throws Exception {
        RateLimitedLog log = new RateLimitedLog(logger, 5, MINUTE, now::get);
        int threads = 8;
        int perThread = 500;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    log.warn("busy", "line");
                }
            });
            thread.start();
            started.add(thread);
        }
        start.countDown();
        for (Thread thread : started) {
            thread.join(60_000);
            assertThat(thread.isAlive()).isFalse();
        }
        assertThat(lines()).hasSize(5);

        advance(MINUTE);
        log.warn("busy", "after");

        assertThat(lines())
                .hasSize(7)
                .endsWith(
                        "WARN busy: " + (threads * perThread - 5) + " more lines were not logged (at most 5 per 60 s)",
                        "WARN after");
    }

    @Test
    void aBadBurstOrWindowIsOneLine() {
        assertThatThrownBy(() -> new RateLimitedLog(logger, 0, MINUTE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rate limit burst 0 is not positive");
        assertThatThrownBy(() -> new RateLimitedLog(logger, 1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rate limit window 0 ms is not positive");
    }
}
