// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.AppenderComponentBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.api.LayoutComponentBuilder;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;

/**
 * Configures log4j-core for the daemon (and any process that logs to its own files),
 * programmatically: one rolling file ({@code <logDir>/<fileName>}, appended to, rolled by size as
 * {@link LogRolling} says: {@code <fileName>.1} the newest rolled file), optionally with WARN and
 * above on stderr as well. Each line holds time, level, thread, logger and message ({@link
 * #PATTERN}), in UTF-8. Workers log to stderr without log4j-core ({@link StderrLoggerContextFactory}).
 *
 * <p>Two levels: the program level is the root logger's (the service's own messages, native
 * plugins' log sources, Java plugins' loggers); the SDK level applies to the framework internals
 * ({@link LogLevels#SDK_LOGGERS}).
 *
 * <p>When the log directory cannot be created or written, one line goes to stderr and the file
 * goes to {@code ${java.io.tmpdir}/urom-<user>/log} instead. Each call replaces the whole Log4j2
 * configuration of the process; calls are serialised.
 */
public final class ServiceLogging {
    /** The daemon's log file name. */
    public static final String DAEMON_LOG_FILE = "urom_daemon_dev.log";
    /** The layout of every line. */
    public static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%t] %logger - %msg%n";

    private static final String FILE_APPENDER = "file";
    private static final String STDERR_APPENDER = "stderr";
    private static final String CHARSET = "UTF-8";

    private ServiceLogging() {}

    /** The log file name of the worker with process id {@code pid}. */
    public static String workerLogFile(long pid) {
        return "urom_worker_" + pid + "_dev.log";
    }

    /**
     * Logs to {@code <logDir>/<fileName>} only, rolled as {@link LogRolling#DEFAULT}. See {@link
     * #configure(Path, String, int, int, boolean, LogRolling)}.
     */
    public static Path configure(Path logDir, String fileName, int programLevel, int sdkLevel) {
        return configure(logDir, fileName, programLevel, sdkLevel, false, LogRolling.DEFAULT);
    }

    /**
     * Replaces the process's Log4j2 configuration.
     *
     * @param logDir the directory of the log file, created when missing
     * @param fileName the log file's name
     * @param programLevel numeric level of the program's own messages
     * @param sdkLevel numeric level of the framework internals
     * @param warningsToStderr whether WARN and above also go to stderr
     * @param rolling when the file rolls and how many files are kept
     * @return the log file actually used (the fallback when {@code logDir} is not writable)
     * @throws IllegalArgumentException one line when a level is not a valid numeric level or the
     *     file name is not a plain name
     * @throws IllegalStateException one line when neither {@code logDir} nor the fallback directory
     *     can be written
     */
    public static synchronized Path configure(
            Path logDir,
            String fileName,
            int programLevel,
            int sdkLevel,
            boolean warningsToStderr,
            LogRolling rolling) {
        requireNonNull(logDir, "logDir is null");
        requireNonNull(fileName, "fileName is null");
        requireNonNull(rolling, "rolling is null");
        Level program = LogLevels.fromNumeric(programLevel);
        Level sdk = LogLevels.fromNumeric(sdkLevel);
        if (fileName.isEmpty() || fileName.contains("/")) {
            throw new IllegalArgumentException("log file name '" + fileName + "' is not a plain file name");
        }
        Path file = writableFile(logDir.toAbsolutePath(), fileName);
        ConfigurationBuilder<BuiltConfiguration> builder = newBuilder();
        builder.add(builder.newAppender(FILE_APPENDER, "RollingFile")
                .addAttribute("fileName", literal(file.toString()))
                .addAttribute("filePattern", literalPattern(file.toString()) + ".%i")
                .addAttribute("append", true)
                .addAttribute("immediateFlush", true)
                .add(layout(builder))
                .addComponent(builder.newComponent("Policies")
                        .addComponent(builder.newComponent("SizeBasedTriggeringPolicy")
                                .addAttribute("size", rolling.maxFileBytes())))
                .addComponent(builder.newComponent("DefaultRolloverStrategy")
                        .addAttribute("min", 1)
                        .addAttribute("max", rolling.maxFiles() - 1)
                        .addAttribute("fileIndex", "min")));
        if (warningsToStderr) {
            builder.add(stderrAppender(builder)
                    .add(builder.newFilter("ThresholdFilter", "ACCEPT", "DENY").addAttribute("level", Level.WARN)));
        }
        start(routeAll(
                builder,
                program,
                sdk,
                warningsToStderr ? List.of(FILE_APPENDER, STDERR_APPENDER) : List.of(FILE_APPENDER)));
        return file;
    }

    /** The fallback log directory: {@code ${java.io.tmpdir}/urom-<user>/log}. */
    public static Path fallbackDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "urom-" + System.getProperty("user.name"), "log");
    }

    private static Path writableFile(Path logDir, String fileName) {
        Path file = logDir.resolve(fileName);
        String failure = tryOpen(logDir, file);
        if (failure == null) {
            return file;
        }
        Path fallbackDir = fallbackDir().toAbsolutePath();
        Path fallback = fallbackDir.resolve(fileName);
        String fallbackFailure = tryOpen(fallbackDir, fallback);
        if (fallbackFailure != null) {
            throw new IllegalStateException("log directory " + logDir + " is not writable (" + failure
                    + ") and neither is the fallback " + fallbackDir + " (" + fallbackFailure + ")");
        }
        System.err.println(
                "urom: log directory " + logDir + " is not writable (" + failure + "); logging to " + fallback);
        return fallback;
    }

    /** Creates the directory and opens the file for appending; the reason it failed, or null. */
    private static String tryOpen(Path dir, Path file) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
            }
            try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                return null;
            }
        } catch (IOException | UnsupportedOperationException e) {
            return reason(e);
        }
    }

    private static String reason(Exception e) {
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        if (e instanceof FileSystemException) {
            FileSystemException fs = (FileSystemException) e;
            if (fs.getReason() != null) {
                return fs.getReason();
            }
            if (e instanceof java.nio.file.FileAlreadyExistsException) {
                return fs.getFile() + " exists and is not a directory";
            }
            return e.getClass().getSimpleName() + " on " + fs.getFile();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static ConfigurationBuilder<BuiltConfiguration> newBuilder() {
        ConfigurationBuilder<BuiltConfiguration> builder = ConfigurationBuilderFactory.newConfigurationBuilder();
        builder.setConfigurationName("urom-service");
        builder.setStatusLevel(Level.ERROR);
        return builder;
    }

    private static LayoutComponentBuilder layout(ConfigurationBuilder<BuiltConfiguration> builder) {
        return builder.newLayout("PatternLayout")
                .addAttribute("pattern", PATTERN)
                .addAttribute("charset", CHARSET);
    }

    private static AppenderComponentBuilder stderrAppender(ConfigurationBuilder<BuiltConfiguration> builder) {
        return builder.newAppender(STDERR_APPENDER, "Console")
                .addAttribute("target", ConsoleAppender.Target.SYSTEM_ERR)
                .add(layout(builder));
    }

    /** The root logger at the program level and the SDK loggers at theirs, all to {@code appenders}. */
    private static BuiltConfiguration routeAll(
            ConfigurationBuilder<BuiltConfiguration> builder, Level program, Level sdk, List<String> appenders) {
        for (String name : LogLevels.SDK_LOGGERS) {
            var logger = builder.newLogger(name, sdk).addAttribute("additivity", false);
            appenders.forEach(appender -> logger.add(builder.newAppenderRef(appender)));
            builder.add(logger);
        }
        var root = builder.newRootLogger(program);
        appenders.forEach(appender -> root.add(builder.newAppenderRef(appender)));
        builder.add(root);
        return builder.build(false);
    }

    private static void start(BuiltConfiguration configuration) {
        // The first configuration of a process starts Log4j2 with it directly (no default
        // configuration is looked for and built first); later ones replace the running one.
        LoggerContext context = Configurator.initialize(ServiceLogging.class.getClassLoader(), configuration);
        if (context == null || context.getConfiguration() != configuration) {
            Configurator.reconfigure(configuration);
        }
    }

    /** {@code text} kept literal in a Log4j2 attribute, where {@code ${...}} is a lookup. */
    private static String literal(String text) {
        return text.replace("${", "$${");
    }

    /**
     * {@code text} kept literal in a rolled-file pattern: {@code %} starts a converter, and
     * lookups are resolved twice (when the configuration is built and again at each roll).
     */
    private static String literalPattern(String text) {
        return text.replace("%", "%%").replace("${", "$$${");
    }
}
