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
 * Everything the daemon is started with, immutable and thread-safe.
 *
 * <p>A {@link Builder} makes it:
 *
 * <ul>
 *   <li>its fields hold the defaults, one field per daemon option;
 *   <li>each setter is named after the accessor that reads its option back, or after the option of
 *       {@code urom daemon} that it stands for ({@code --log-file-size} is {@link
 *       Builder#logFileSize});
 *   <li>{@link Builder#build()} checks every option and throws an {@link IllegalArgumentException}
 *       of one line that names it (by its command-line option where it has one) and the reason.
 * </ul>
 */
public final class DaemonConfig {
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
     * --help} can show it), each measured with FootprintBench:
     *
     * <ul>
     *   <li>the serial collector and C1 alone: the least memory and threads;
     *   <li>class-data archives mapped where they were dumped ({@code ArchiveRelocationMode=0}):
     *       relocating them, the default since JDK 17.0.x, writes to every page and so makes the
     *       archives private to each worker, some 6 MiB of the JDK's and 7 of the worker class path's;
     *   <li>a heap that starts at 8 MiB with a 4 MiB young generation (the start-up's garbage
     *       otherwise spreads over a 100 MiB eden that it all touches) and is bounded at 512 MiB,
     *       above which {@code --worker-jvm-option=-Xmx...} raises it.
     * </ul>
     */
    public static final String DEFAULT_WORKER_JVM_OPTIONS_TEXT = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto"
            + " -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0 -Xms8m -Xmn4m -Xmx512m";

    public static final List<String> DEFAULT_WORKER_JVM_OPTIONS = List.of(DEFAULT_WORKER_JVM_OPTIONS_TEXT.split(" "));
    public static final int MAX_WORKER_JVM_OPTION_LENGTH = 256;
    /** A worker JVM option: {@code -X...} (including {@code -XX:}) or {@code -D...}, printable ASCII without spaces. */
    private static final Pattern WORKER_JVM_OPTION =
            Pattern.compile("-[XD][\\x21-\\x7e]{1," + (MAX_WORKER_JVM_OPTION_LENGTH - 2) + "}");

    public static final String DEFAULT_WORKER_MAIN_CLASS = "dev.urom.service.worker.WorkerMain";

    /** The checked options: a copy that {@link Builder#build()} made and nothing else holds. */
    private final Builder options;

    private DaemonConfig(Builder options) {
        this.options = options;
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The defaults: listen on {@link ServiceAddress#defaultListen()}, levels 50 and 40, 4096-byte
     * messages, 64 workers, logs in {@code /var/log/doca/urom} rolled as {@link
     * LogRolling#DEFAULT}, ended workers' logs kept as {@link WorkerLogRetention#DEFAULT}, the plugin
     * path of the environment ({@code UROM_PLUGIN_PATH}, empty when unset).
     */
    public static DaemonConfig defaults() {
        return builder().build();
    }

    /** A builder holding this configuration, to change some of it. */
    public Builder toBuilder() {
        return options.copy();
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

    /** Where the daemon accepts hosts ({@code --listen}). */
    public ServiceAddress listen() {
        return options.listen;
    }

    /** The numeric level of the service's own messages ({@code -l/--log-level}). */
    public int logLevel() {
        return options.logLevel;
    }

    /** The numeric level of the framework internals ({@code --sdk-log-level}). */
    public int sdkLogLevel() {
        return options.sdkLogLevel;
    }

    /** The largest command or notification, its 24-byte header included ({@code -m/--max-msg-size}). */
    public int maxMessageSize() {
        return options.maxMessageSize;
    }

    /** The most workers at a time, a power of two ({@code --max-workers}). */
    public int maxWorkers() {
        return options.maxWorkers;
    }

    /** Where the daemon and its workers write their logs ({@code --log-dir}), absolute. */
    public Path logDir() {
        return options.logDir;
    }

    /** The {@code UROM_PLUGIN_PATH} value ({@code ;}-separated directories); empty for none. */
    public String pluginPath() {
        return options.pluginPath;
    }

    /** How long a worker waits for its first host after READY. */
    public Duration workerIdleTimeout() {
        return options.workerIdleTimeout;
    }

    /** How long the daemon waits for a worker's READY or FAILED line. */
    public Duration workerStartTimeout() {
        return options.workerStartTimeout;
    }

    /** The JVM options of every worker process: the defaults, then each {@code --worker-jvm-option}. */
    public List<String> workerJvmOptions() {
        return options.workerJvmOptions;
    }

    /** The worker's main class (tests put a stand-in here). */
    public String workerMainClass() {
        return options.workerMainClass;
    }

    /** When the daemon's and the workers' log files roll and how many are kept ({@code --log-file-size}, {@code --log-file-count}). */
    public LogRolling logRolling() {
        return new LogRolling(options.logFileSize, options.logFileCount);
    }

    /** How many ended workers' logs are kept, and how long ({@code --worker-log-count}, {@code --worker-log-max-age}). */
    public WorkerLogRetention workerLogRetention() {
        return new WorkerLogRetention(options.workerLogCount, options.workerLogMaxAge);
    }

    /** Who may use the daemon, and what its workers run as and may be given. */
    public DaemonSecurity security() {
        return options.security;
    }

    /** The most workers one principal may have: {@code --max-workers-per-principal}, or {@code --max-workers} when that is 0. */
    public int maxWorkersPerPrincipal() {
        int perPrincipal = security().maxWorkersPerPrincipal();
        return perPrincipal == 0 ? maxWorkers() : Math.min(perPrincipal, maxWorkers());
    }

    /**
     * The configuration being made; not thread-safe. A setter stores its value as given and {@link
     * #build()} checks them all, except where a setter says otherwise.
     */
    public static final class Builder implements Cloneable {
        private ServiceAddress listen = ServiceAddress.defaultListen();
        private int logLevel = DEFAULT_LOG_LEVEL;
        private int sdkLogLevel = DEFAULT_SDK_LOG_LEVEL;
        private int maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
        private int maxWorkers = DEFAULT_MAX_WORKERS;
        private Path logDir = DEFAULT_LOG_DIR;
        private String pluginPath = System.getenv(PluginPath.ENVIRONMENT_VARIABLE);
        private Duration workerIdleTimeout = DEFAULT_WORKER_IDLE_TIMEOUT;
        private Duration workerStartTimeout = DEFAULT_WORKER_START_TIMEOUT;
        private List<String> workerJvmOptions = DEFAULT_WORKER_JVM_OPTIONS;
        private String workerMainClass = DEFAULT_WORKER_MAIN_CLASS;
        private long logFileSize = LogRolling.DEFAULT_MAX_FILE_BYTES;
        private int logFileCount = LogRolling.DEFAULT_MAX_FILES;
        private int workerLogCount = WorkerLogRetention.DEFAULT_MAX_ENDED_WORKERS;
        private Duration workerLogMaxAge = WorkerLogRetention.DEFAULT_MAX_AGE;
        private DaemonSecurity security = DaemonSecurity.defaults();

        private Builder() {}

        public Builder listen(ServiceAddress address) {
            this.listen = address;
            return this;
        }

        public Builder logLevel(int level) {
            this.logLevel = level;
            return this;
        }

        public Builder sdkLogLevel(int level) {
            this.sdkLogLevel = level;
            return this;
        }

        public Builder maxMessageSize(int bytes) {
            this.maxMessageSize = bytes;
            return this;
        }

        public Builder maxWorkers(int workers) {
            this.maxWorkers = workers;
            return this;
        }

        public Builder logDir(Path directory) {
            this.logDir = directory;
            return this;
        }

        /** The plugin path; null is taken as empty. */
        public Builder pluginPath(String path) {
            this.pluginPath = path;
            return this;
        }

        public Builder workerIdleTimeout(Duration timeout) {
            this.workerIdleTimeout = timeout;
            return this;
        }

        public Builder workerStartTimeout(Duration timeout) {
            this.workerStartTimeout = timeout;
            return this;
        }

        /** All the workers' JVM options, the defaults replaced. */
        public Builder workerJvmOptions(List<String> jvmOptions) {
            this.workerJvmOptions = jvmOptions;
            return this;
        }

        /** {@code --worker-jvm-option}: JVM options after those held so far, so that they win over them. */
        public Builder addWorkerJvmOptions(List<String> jvmOptions) {
            List<String> all = new ArrayList<>(workerJvmOptions == null ? List.of() : workerJvmOptions);
            all.addAll(jvmOptions);
            this.workerJvmOptions = all;
            return this;
        }

        public Builder workerMainClass(String className) {
            this.workerMainClass = className;
            return this;
        }

        public Builder logFileSize(long bytes) {
            this.logFileSize = bytes;
            return this;
        }

        public Builder logFileCount(int files) {
            this.logFileCount = files;
            return this;
        }

        /**
         * Both {@link #logFileSize} and {@link #logFileCount}.
         *
         * @throws IllegalArgumentException when {@code rolling} is null
         */
        public Builder logRolling(LogRolling rolling) {
            if (rolling == null) {
                throw new IllegalArgumentException("log rolling is missing");
            }
            return logFileSize(rolling.maxFileBytes()).logFileCount(rolling.maxFiles());
        }

        public Builder workerLogCount(int workers) {
            this.workerLogCount = workers;
            return this;
        }

        public Builder workerLogMaxAge(Duration age) {
            this.workerLogMaxAge = age;
            return this;
        }

        /**
         * Both {@link #workerLogCount} and {@link #workerLogMaxAge}.
         *
         * @throws IllegalArgumentException when {@code retention} is null
         */
        public Builder workerLogRetention(WorkerLogRetention retention) {
            if (retention == null) {
                throw new IllegalArgumentException("worker log retention is missing");
            }
            return workerLogCount(retention.maxEndedWorkers()).workerLogMaxAge(retention.maxAge());
        }

        public Builder security(DaemonSecurity settings) {
            this.security = settings;
            return this;
        }

        /**
         * The configuration; this builder stays usable and later changes to it leave the
         * configuration alone.
         *
         * @throws IllegalArgumentException one line naming the first option refused and why
         */
        public DaemonConfig build() {
            Builder checked = copy();
            checked.check();
            return new DaemonConfig(checked);
        }

        /** Checks every option, and gives those with more than one spelling their one form: absolute paths, unmodifiable lists. */
        private void check() {
            if (listen == null) {
                throw new IllegalArgumentException("listen address is missing");
            }
            checkLevel("--log-level", logLevel);
            checkLevel("--sdk-log-level", sdkLogLevel);
            if (maxMessageSize < MIN_MAX_MESSAGE_SIZE) {
                throw new IllegalArgumentException("--max-msg-size " + maxMessageSize + " is below the minimum of "
                        + MIN_MAX_MESSAGE_SIZE + " bytes (64 bytes of payload + the " + Message.Command.HEADER_BYTES
                        + "-byte command header)");
            }
            if (maxMessageSize > MAX_MAX_MESSAGE_SIZE) {
                throw new IllegalArgumentException("--max-msg-size " + maxMessageSize + " is over the maximum of "
                        + MAX_MAX_MESSAGE_SIZE + " bytes");
            }
            if (maxWorkers <= 0 || Integer.bitCount(maxWorkers) != 1) {
                throw new IllegalArgumentException("--max-workers " + maxWorkers + " is not a power of two");
            }
            if (maxWorkers > MAX_MAX_WORKERS) {
                throw new IllegalArgumentException(
                        "--max-workers " + maxWorkers + " is over the maximum of " + MAX_MAX_WORKERS);
            }
            if (logDir == null) {
                throw new IllegalArgumentException("log directory is missing");
            }
            logDir = logDir.toAbsolutePath().normalize();
            pluginPath = pluginPath == null ? "" : pluginPath;
            PluginPath.parse(pluginPath);
            checkPositive("worker idle timeout", workerIdleTimeout);
            checkPositive("worker start timeout", workerStartTimeout);
            checkWorkerJvmOptions();
            if (workerMainClass == null
                    || workerMainClass.isBlank()
                    || workerMainClass.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("worker main class '" + workerMainClass + "' is not a class name");
            }
            // The two records check their options, naming them.
            new LogRolling(logFileSize, logFileCount);
            new WorkerLogRetention(workerLogCount, workerLogMaxAge);
            if (security == null) {
                throw new IllegalArgumentException("security settings are missing");
            }
        }

        private void checkWorkerJvmOptions() {
            if (workerJvmOptions == null) {
                throw new IllegalArgumentException("worker JVM options are missing");
            }
            for (String option : workerJvmOptions) {
                if (option == null || option.isBlank()) {
                    throw new IllegalArgumentException(
                            "worker JVM options " + workerJvmOptions + " hold an empty option");
                }
                if (!WORKER_JVM_OPTION.matcher(option).matches()) {
                    throw new IllegalArgumentException("worker JVM option '" + FailureText.oneLine(option)
                            + "' is not one a worker takes: only -X... and -D... options, at most "
                            + MAX_WORKER_JVM_OPTION_LENGTH + " characters, no spaces");
                }
            }
            workerJvmOptions = List.copyOf(workerJvmOptions);
        }

        /** A copy of every field; {@code clone} copies them without listing them once more. */
        private Builder copy() {
            try {
                return (Builder) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError("a Cloneable builder could not be cloned", e);
            }
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
}
