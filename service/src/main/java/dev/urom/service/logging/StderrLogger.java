// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.Marker;
import org.apache.logging.log4j.message.Message;
import org.apache.logging.log4j.message.MessageFactory;
import org.apache.logging.log4j.spi.AbstractLogger;

/**
 * A logger of {@link StderrLoggerContext}: enabled at its context's level for the SDK's loggers or
 * the program's, it writes each event as {@code yyyy-MM-dd HH:mm:ss.SSS LEVEL [thread] logger -
 * message}, then the throwable's stack trace, in one write to {@code System.err} (as it is at the
 * time). Thread-safe.
 */
final class StderrLogger extends AbstractLogger {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    private final transient StderrLoggerContext context;
    private final boolean sdkLogger;

    StderrLogger(StderrLoggerContext context, String name, MessageFactory messageFactory) {
        super(name, messageFactory);
        this.context = context;
        this.sdkLogger =
                LogLevels.SDK_LOGGERS.stream().anyMatch(prefix -> name.equals(prefix) || name.startsWith(prefix + "."));
    }

    @Override
    public Level getLevel() {
        return context.level(sdkLogger);
    }

    private boolean enabled(Level level) {
        Level threshold = context.level(sdkLogger);
        return threshold != Level.OFF && level.isMoreSpecificThan(threshold);
    }

    @Override
    public void logMessage(String fqcn, Level level, Marker marker, Message message, Throwable t) {
        StringBuilder line =
                new StringBuilder(128).append(TIME.format(LocalDateTime.now())).append(' ');
        String levelName = level.name();
        line.append(levelName).append(" ".repeat(Math.max(0, 5 - levelName.length())));
        line.append(" [")
                .append(Thread.currentThread().getName())
                .append("] ")
                .append(getName())
                .append(" - ");
        line.append(message == null ? "" : message.getFormattedMessage()).append(System.lineSeparator());
        Throwable thrown = t != null ? t : message == null ? null : message.getThrowable();
        if (thrown != null) {
            StringWriter trace = new StringWriter();
            thrown.printStackTrace(new PrintWriter(trace));
            line.append(trace);
        }
        System.err.print(line);
        System.err.flush();
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, Message message, Throwable t) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, CharSequence message, Throwable t) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, Object message, Throwable t) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, String message, Throwable t) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, String message) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, String message, Object... params) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, String message, Object p0) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(Level level, Marker marker, String message, Object p0, Object p1, Object p2, Object p3) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(
            Level level, Marker marker, String message, Object p0, Object p1, Object p2, Object p3, Object p4) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(
            Level level,
            Marker marker,
            String message,
            Object p0,
            Object p1,
            Object p2,
            Object p3,
            Object p4,
            Object p5) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(
            Level level,
            Marker marker,
            String message,
            Object p0,
            Object p1,
            Object p2,
            Object p3,
            Object p4,
            Object p5,
            Object p6) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(
            Level level,
            Marker marker,
            String message,
            Object p0,
            Object p1,
            Object p2,
            Object p3,
            Object p4,
            Object p5,
            Object p6,
            Object p7) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(
            Level level,
            Marker marker,
            String message,
            Object p0,
            Object p1,
            Object p2,
            Object p3,
            Object p4,
            Object p5,
            Object p6,
            Object p7,
            Object p8) {
        return enabled(level);
    }

    @Override
    public boolean isEnabled(
            Level level,
            Marker marker,
            String message,
            Object p0,
            Object p1,
            Object p2,
            Object p3,
            Object p4,
            Object p5,
            Object p6,
            Object p7,
            Object p8,
            Object p9) {
        return enabled(level);
    }
}
