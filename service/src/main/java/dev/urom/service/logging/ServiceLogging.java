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
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;

/**
 * Configures Log4j2 for a service process (daemon or worker), programmatically: one file appender
 * ({@code <logDir>/<fileName>}, appended to, each line with time, level, thread, logger and
 * message), optionally WARN and above to stderr as well.
 *
 * <p>Two levels: the program level is the root logger's (the service's own messages, native
 * plugins' log sources, Java plugins' loggers); the SDK level applies to the framework internals
 * ({@link #SDK_LOGGERS}).
 *
 * <p>When the log directory cannot be created or written, one line goes to stderr and the file
 * goes to {@code ${java.io.tmpdir}/urom-<user>/log} instead. Each call replaces the whole Log4j2
 * configuration of the process; calls are serialised.
 */
public final class ServiceLogging {
    /** The daemon's log file name. */
    public static final String DAEMON_LOG_FILE = "urom_daemon_dev.log";
    /** Logger name prefixes that follow the SDK level. */
    public static final List<String> SDK_LOGGERS = List.of("dev.urom.framework", "dev.urom.nativebridge", "org.pf4j");
    /** The layout of every line. */
    public static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%t] %logger - %msg%n";

    private static final String FILE_APPENDER = "file";
    private static final String STDERR_APPENDER = "stderr";

    private ServiceLogging() {}

    /** The log file name of the worker with process id {@code pid}. */
    public static String workerLogFile(long pid) {
        return "urom_worker_" + pid + "_dev.log";
    }

    /**
     * Logs to {@code <logDir>/<fileName>} only. See {@link #configure(Path, String, int, int,
     * boolean)}.
     */
    public static Path configure(Path logDir, String fileName, int programLevel, int sdkLevel) {
        return configure(logDir, fileName, programLevel, sdkLevel, false);
    }

    /**
     * Replaces the process's Log4j2 configuration.
     *
     * @param logDir the directory of the log file, created when missing
     * @param fileName the log file's name
     * @param programLevel numeric level of the program's own messages
     * @param sdkLevel numeric level of the framework internals
     * @param warningsToStderr whether WARN and above also go to stderr
     * @return the log file actually used (the fallback when {@code logDir} is not writable)
     * @throws IllegalArgumentException one line when a level is not a valid numeric level or the
     *     file name is not a plain name
     * @throws IllegalStateException one line when neither {@code logDir} nor the fallback directory
     *     can be written
     */
    public static synchronized Path configure(Path logDir, String fileName, int programLevel, int sdkLevel, boolean warningsToStderr) {
        requireNonNull(logDir, "logDir is null");
        requireNonNull(fileName, "fileName is null");
        Level program = LogLevels.fromNumeric(programLevel);
        Level sdk = LogLevels.fromNumeric(sdkLevel);
        if (fileName.isEmpty() || fileName.contains("/")) {
            throw new IllegalArgumentException("log file name '" + fileName + "' is not a plain file name");
        }
        Path file = writableFile(logDir.toAbsolutePath(), fileName);
        BuiltConfiguration configuration = build(file, program, sdk, warningsToStderr);
        // The first configuration of a process starts Log4j2 with it directly (no default
        // configuration is looked for and built first); later ones replace the running one.
        LoggerContext context = Configurator.initialize(ServiceLogging.class.getClassLoader(), configuration);
        if (context == null || context.getConfiguration() != configuration) {
            Configurator.reconfigure(configuration);
        }
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
        System.err.println("urom: log directory " + logDir + " is not writable (" + failure + "); logging to " + fallback);
        return fallback;
    }

    /** Creates the directory and opens the file for appending; the reason it failed, or null. */
    private static String tryOpen(Path dir, Path file) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
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

    private static BuiltConfiguration build(Path file, Level program, Level sdk, boolean warningsToStderr) {
        ConfigurationBuilder<BuiltConfiguration> builder = ConfigurationBuilderFactory.newConfigurationBuilder();
        builder.setConfigurationName("urom-service");
        builder.setStatusLevel(Level.ERROR);
        AppenderComponentBuilder fileAppender = builder.newAppender(FILE_APPENDER, "File")
                .addAttribute("fileName", file.toString())
                .addAttribute("append", true)
                .addAttribute("immediateFlush", true)
                .add(builder.newLayout("PatternLayout").addAttribute("pattern", PATTERN));
        builder.add(fileAppender);
        if (warningsToStderr) {
            builder.add(builder.newAppender(STDERR_APPENDER, "Console")
                    .addAttribute("target", ConsoleAppender.Target.SYSTEM_ERR)
                    .add(builder.newLayout("PatternLayout").addAttribute("pattern", PATTERN))
                    .add(builder.newFilter("ThresholdFilter", "ACCEPT", "DENY").addAttribute("level", Level.WARN)));
        }
        for (String name : SDK_LOGGERS) {
            var logger = builder.newLogger(name, sdk)
                    .add(builder.newAppenderRef(FILE_APPENDER))
                    .addAttribute("additivity", false);
            if (warningsToStderr) {
                logger.add(builder.newAppenderRef(STDERR_APPENDER));
            }
            builder.add(logger);
        }
        var root = builder.newRootLogger(program).add(builder.newAppenderRef(FILE_APPENDER));
        if (warningsToStderr) {
            root.add(builder.newAppenderRef(STDERR_APPENDER));
        }
        builder.add(root);
        return builder.build(false);
    }

}
