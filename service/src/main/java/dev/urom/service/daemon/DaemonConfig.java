// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.framework.discovery.PluginPath;
import dev.urom.framework.worker.FailureText;
import dev.urom.service.logging.LogLevels;
import dev.urom.service.logging.LogRolling;
import dev.urom.service.logging.WorkerLogRetention;
import dev.urom.wire.Message;
import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Everything the daemon is started with. Validated in the constructor: every refusal is an
 * {@link IllegalArgumentException} with one line naming the setting (by its command-line option
 * where it has one) and the reason. Immutable.
 *
 * @param listen where the daemon accepts hosts
 * @param logLevel numeric level of the service's own messages ({@code -l/--log-level})
 * @param sdkLogLevel numeric level of the framework internals ({@code --sdk-log-level})
 * @param maxMessageSize largest command or notification, its 24-byte header included ({@code
 *     -m/--max-msg-size})
 * @param maxWorkers most workers at a time, a power of two ({@code --max-workers})
 * @param logDir where the daemon and its workers write their logs
 * @param pluginPath the {@code UROM_PLUGIN_PATH} value ({@code ;}-separated directories)
 * @param workerIdleTimeout how long a worker waits for its first host after READY
 * @param workerStartTimeout how long the daemon waits for a worker's READY or FAILED line
 * @param workerJvmOptions JVM options of every worker process
 * @param workerMainClass the worker's main class (tests put a stand-in here)
 * @param logRolling when the daemon's and the workers' log files roll and how many are kept
 *     ({@code --log-file-size}, {@code --log-file-count})
 * @param workerLogRetention how many ended workers' logs are kept, and how long ({@code
 *     --worker-log-count}, {@code --worker-log-max-age})
 * @param security who may use the daemon, and what its workers run as and may be given
 */
public record DaemonConfig(
        ServiceAddress listen,
        int logLevel,
        int sdkLogLevel,
        int maxMessageSize,
        int maxWorkers,
        Path logDir,
        String pluginPath,
        Duration workerIdleTimeout,
        Duration workerStartTimeout,
        List<String> workerJvmOptions,
        String workerMainClass,
        LogRolling logRolling,
        WorkerLogRetention workerLogRetention,
        DaemonSecurity security) {

    public static final int DEFAULT_LOG_LEVEL = 50;
    public static final int DEFAULT_SDK_LOG_LEVEL = 40;
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 4096;
    /** The smallest max message size: the command header plus 64 bytes of payload. */
    public static final int MIN_MAX_MESSAGE_SIZE = 64 + Message.Command.HEADER_BYTES;
    public static final int MAX_MAX_MESSAGE_SIZE = 16 << 20;
    public static final int DEFAULT_MAX_WORKERS = 64;
    public static final int MAX_MAX_WORKERS = 1 << 16;
    public static final Path DEFAULT_LOG_DIR = Path.of("/var/log/doca/urom");
    public static final Duration DEFAULT_WORKER_IDLE_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_WORKER_START_TIMEOUT = Duration.ofSeconds(20);
    /**
     * The workers' JVM options by default, separated by spaces (a constant, so that {@code urom daemon
     * --help} can show it), each measured with FootprintBench: the serial collector and C1 alone (the
     * least memory and threads); class-data archives mapped where they were dumped
     * ({@code ArchiveRelocationMode=0}: relocating them, the default since JDK 17.0.x, writes to every
     * page and so makes the archives private to each worker, some 6 MiB of the JDK's and 7 of the
     * worker class path's); a heap that starts at 8 MiB with a 4 MiB young generation (the
     * start-up's garbage otherwise spreads over a 100 MiB eden that it all touches) and is bounded at
     * 512 MiB, above which {@code --worker-jvm-option=-Xmx...} raises it.
     */
    public static final String DEFAULT_WORKER_JVM_OPTIONS_TEXT = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto"
            + " -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0 -Xms8m -Xmn4m -Xmx512m";
    public static final List<String> DEFAULT_WORKER_JVM_OPTIONS = List.of(DEFAULT_WORKER_JVM_OPTIONS_TEXT.split(" "));
    public static final int MAX_WORKER_JVM_OPTION_LENGTH = 256;
    /** A worker JVM option: {@code -X...} (including {@code -XX:}) or {@code -D...}, printable ASCII without spaces. */
    private static final Pattern WORKER_JVM_OPTION = Pattern.compile("-[XD][\\x21-\\x7e]{1," + (MAX_WORKER_JVM_OPTION_LENGTH - 2) + "}");
    public static final String DEFAULT_WORKER_MAIN_CLASS = "dev.urom.service.worker.WorkerMain";

    public DaemonConfig {
        if (listen == null) {
            throw new IllegalArgumentException("listen address is missing");
        }
        checkLevel("--log-level", logLevel);
        checkLevel("--sdk-log-level", sdkLogLevel);
        if (maxMessageSize < MIN_MAX_MESSAGE_SIZE) {
            throw new IllegalArgumentException("--max-msg-size " + maxMessageSize + " is below the minimum of " + MIN_MAX_MESSAGE_SIZE
                    + " bytes (64 bytes of payload + the " + Message.Command.HEADER_BYTES + "-byte command header)");
        }
        if (maxMessageSize > MAX_MAX_MESSAGE_SIZE) {
            throw new IllegalArgumentException("--max-msg-size " + maxMessageSize + " is over the maximum of " + MAX_MAX_MESSAGE_SIZE + " bytes");
        }
        if (maxWorkers <= 0 || Integer.bitCount(maxWorkers) != 1) {
            throw new IllegalArgumentException("--max-workers " + maxWorkers + " is not a power of two");
        }
        if (maxWorkers > MAX_MAX_WORKERS) {
            throw new IllegalArgumentException("--max-workers " + maxWorkers + " is over the maximum of " + MAX_MAX_WORKERS);
        }
        if (logDir == null) {
            throw new IllegalArgumentException("log directory is missing");
        }
        logDir = logDir.toAbsolutePath().normalize();
        pluginPath = pluginPath == null ? "" : pluginPath;
        PluginPath.parse(pluginPath);
        checkPositive("worker idle timeout", workerIdleTimeout);
        checkPositive("worker start timeout", workerStartTimeout);
        if (workerJvmOptions == null) {
            throw new IllegalArgumentException("worker JVM options are missing");
        }
        for (String option : workerJvmOptions) {
            if (option == null || option.isBlank()) {
                throw new IllegalArgumentException("worker JVM options " + workerJvmOptions + " hold an empty option");
            }
            if (!WORKER_JVM_OPTION.matcher(option).matches()) {
                throw new IllegalArgumentException("worker JVM option '" + FailureText.oneLine(option)
                        + "' is not one a worker takes: only -X... and -D... options, at most " + MAX_WORKER_JVM_OPTION_LENGTH + " characters, no spaces");
            }
        }
        workerJvmOptions = List.copyOf(workerJvmOptions);
        if (workerMainClass == null || workerMainClass.isBlank() || workerMainClass.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("worker main class '" + workerMainClass + "' is not a class name");
        }
        if (logRolling == null) {
            throw new IllegalArgumentException("log rolling is missing");
        }
        if (workerLogRetention == null) {
            throw new IllegalArgumentException("worker log retention is missing");
        }
        if (security == null) {
            throw new IllegalArgumentException("security settings are missing");
        }
    }

    /**
     * The defaults: listen on {@link ServiceAddress#defaultListen()}, levels 50 and 40, 4096-byte
     * messages, 64 workers, logs in {@code /var/log/doca/urom} rolled as {@link
     * LogRolling#DEFAULT}, ended workers' logs kept as {@link WorkerLogRetention#DEFAULT}, the plugin path of the environment ({@code UROM_PLUGIN_PATH}, empty when
     * unset).
     */
    public static DaemonConfig defaults() {
        return new DaemonConfig(ServiceAddress.defaultListen(), DEFAULT_LOG_LEVEL, DEFAULT_SDK_LOG_LEVEL, DEFAULT_MAX_MESSAGE_SIZE,
                DEFAULT_MAX_WORKERS, DEFAULT_LOG_DIR, System.getenv(PluginPath.ENVIRONMENT_VARIABLE), DEFAULT_WORKER_IDLE_TIMEOUT,
                DEFAULT_WORKER_START_TIMEOUT, DEFAULT_WORKER_JVM_OPTIONS, DEFAULT_WORKER_MAIN_CLASS, LogRolling.DEFAULT,
                WorkerLogRetention.DEFAULT, DaemonSecurity.defaults());
    }

    /**
     * The command line the daemon parses: the words of {@code SERVICE_ARGS} (split on white space)
     * first, then {@code args}, so an option given on the command line wins over the same option
     * in {@code SERVICE_ARGS} when the parser keeps the last one.
     *
     * @param serviceArgs the {@code SERVICE_ARGS} value; null or blank adds nothing
     */
    public static List<String> withServiceArgs(String serviceArgs, List<String> args) {
        List<String> all = new ArrayList<>();
        if (serviceArgs != null && !serviceArgs.isBlank()) {
            all.addAll(Arrays.asList(serviceArgs.strip().split("\\s+")));
        }
        all.addAll(args);
        return List.copyOf(all);
    }

    public DaemonConfig withListen(ServiceAddress value) {
        return new DaemonConfig(value, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withLogLevel(int value) {
        return new DaemonConfig(listen, value, sdkLogLevel, maxMessageSize, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withSdkLogLevel(int value) {
        return new DaemonConfig(listen, logLevel, value, maxMessageSize, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withMaxMessageSize(int value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, value, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withMaxWorkers(int value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, value, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withLogDir(Path value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, value, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withPluginPath(String value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, logDir, value, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withWorkerIdleTimeout(Duration value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, logDir, pluginPath, value,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withWorkerStartTimeout(Duration value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                value, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withWorkerJvmOptions(List<String> value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, value, workerMainClass, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withWorkerMainClass(String value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, value, logRolling, workerLogRetention, security);
    }

    public DaemonConfig withLogRolling(LogRolling value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, value, workerLogRetention, security);
    }

    public DaemonConfig withWorkerLogRetention(WorkerLogRetention value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, value, security);
    }

    public DaemonConfig withSecurity(DaemonSecurity value) {
        return new DaemonConfig(listen, logLevel, sdkLogLevel, maxMessageSize, maxWorkers, logDir, pluginPath, workerIdleTimeout,
                workerStartTimeout, workerJvmOptions, workerMainClass, logRolling, workerLogRetention, value);
    }

    /** The most workers one principal may have: {@code --max-workers-per-principal}, or {@code --max-workers} when that is 0. */
    public int maxWorkersPerPrincipal() {
        int perPrincipal = security.maxWorkersPerPrincipal();
        return perPrincipal == 0 ? maxWorkers : Math.min(perPrincipal, maxWorkers);
    }

    private static void checkLevel(String option, int level) {
        try {
            LogLevels.fromNumeric(level);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " " + level + " is not one of " + LogLevels.ACCEPTED);
        }
    }

    private static void checkPositive(String what, Duration value) {
        if (value == null) {
            throw new IllegalArgumentException(what + " is missing");
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " " + value.toMillis() + " ms is not positive");
        }
    }
}
