// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.daemon.DaemonSecurity;
import dev.urom.service.daemon.HttpEndpoint;
import dev.urom.service.daemon.UidRange;
import dev.urom.service.logging.LogLevels;
import dev.urom.service.logging.WorkerLogRetention;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.apache.logging.log4j.LogManager;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code urom daemon}: runs the service until it is stopped (SIGTERM or SIGINT), and exits 0 when
 * that stop went cleanly; 2 for a bad option, 1 when it cannot start. The words of
 * {@code SERVICE_ARGS} are read before the command-line arguments (see {@link Main}), so the
 * guide's container manifest works unchanged, and an option given in both takes the command line's
 * value.
 */
@Command(
        name = "daemon",
        description =
                "Run the UROM service: discover plugins, spawn and supervise workers, until SIGTERM or SIGINT (then exit status 0).")
final class DaemonCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = {"-l", "--log-level"},
            paramLabel = "N",
            description =
                    "Level of the program's own messages: 10 DISABLE, 20 CRITICAL, 30 ERROR, 40 WARNING, 50 INFO, 60 DEBUG, 70 TRACE (default 50).")
    String logLevel;

    @Option(
            names = "--sdk-log-level",
            paramLabel = "N",
            description = "Level of the framework's internal messages, on the scale of --log-level (default 40).")
    String sdkLogLevel;

    @Option(
            names = {"-m", "--max-msg-size"},
            paramLabel = "BYTES",
            description = "Largest command or notification in bytes, its 24-byte header included, "
                    + DaemonConfig.MIN_MAX_MESSAGE_SIZE + " to " + DaemonConfig.MAX_MAX_MESSAGE_SIZE
                    + " (default 4096); a larger command is refused TOO_BIG.")
    Integer maxMessageSize;

    @Option(
            names = "--max-workers",
            paramLabel = "N",
            description =
                    "Most workers at once, a power of two up to " + DaemonConfig.MAX_MAX_WORKERS + " (default 64).")
    Integer maxWorkers;

    @Option(
            names = "--listen",
            paramLabel = "ADDR",
            description =
                    "Where hosts connect: unix:PATH or tcp:HOST:PORT; a TCP address needs --auth-keys or --insecure-tcp (default: what urom address"
                            + " prints, as the daemon's user: tcp:0.0.0.0:7300 when KUBERNETES_SERVICE_HOST is set, unix:/run/urom/urom.sock for root, else"
                            + " unix:$XDG_RUNTIME_DIR/urom/urom.sock, or unix:<temp dir>/urom-<user>/urom/urom.sock without XDG_RUNTIME_DIR).")
    String listen;

    @Option(
            names = "--log-dir",
            paramLabel = "DIR",
            description = "Where urom_daemon_dev.log and the workers' logs go (default /var/log/doca/urom).")
    Path logDir;

    @Option(
            names = "--log-file-size",
            paramLabel = "BYTES",
            description =
                    "Roll a log file (urom_daemon_dev.log, each worker's) once it reaches this size: it becomes NAME.1, NAME.1 becomes NAME.2, ... (default 10485760; at least 4096).")
    Long logFileSize;

    @Option(
            names = "--log-file-count",
            paramLabel = "N",
            description =
                    "How many files of each log are kept, the current one included; older ones are deleted (default 5; 2 to 100).")
    Integer logFileCount;

    @Option(
            names = "--worker-log-count",
            paramLabel = "N",
            description =
                    "How many ended workers' logs (urom_worker_<pid>_dev.log and its rolled files, _crash.log) are kept, the newest; older ones are deleted (default 64; 0 to 100000).")
    Integer workerLogCount;

    @Option(
            names = "--worker-log-max-age",
            paramLabel = "AGE",
            description =
                    "Delete an ended worker's logs this long after their last write: seconds, or Ns, Nm, Nh, Nd (default 7d).")
    String workerLogMaxAge;

    @Option(
            names = "--worker-jvm-option",
            paramLabel = "OPTION",
            description = "A JVM option for every worker (-X... or -D...), after the defaults ("
                    + DaemonConfig.DEFAULT_WORKER_JVM_OPTIONS_TEXT
                    + "), so that it wins over one of them; repeat it for more.")
    List<String> workerJvmOptions;

    @Option(
            names = "--http-port",
            paramLabel = "PORT",
            description = "Serve /healthz, /readyz and /metrics (Prometheus) over HTTP on this port (default: off).")
    Integer httpPort;

    @Option(
            names = "--http-host",
            paramLabel = "HOST",
            defaultValue = "127.0.0.1",
            description = "Address the HTTP endpoint binds (default: ${DEFAULT-VALUE}; 0.0.0.0 for Kubernetes probes).")
    String httpHost;

    @Option(
            names = "--auth-keys",
            paramLabel = "DIR",
            description =
                    "Directory of key files, one per principal (named after it; urom keygen writes one); hosts prove them on TCP (and may on a Unix socket) (default: none).")
    Path authKeys;

    @Option(
            names = "--insecure-tcp",
            description = "Let TCP hosts in without a key, all as one anonymous principal (not for production).")
    boolean insecureTcp;

    @Option(
            names = "--socket-group",
            paramLabel = "GROUP",
            description =
                    "Group that may use the Unix sockets (directory 0750, sockets 0660); default: only the daemon's user.")
    String socketGroup;

    @Option(
            names = "--worker-user",
            paramLabel = "USER",
            description =
                    "Run every principal's workers as this one user when the daemon is root (weaker: principals share a uid; "
                            + "root only when named). Default: each principal's workers as a uid of its own.")
    String workerUser;

    @Option(
            names = "--worker-uid-range",
            paramLabel = "FIRST-LAST",
            description =
                    "Where a root daemon takes the uid of each principal's workers that has no account of its own (key principals, "
                            + "root, anonymous); uids of existing accounts are skipped (default: 1879048192-1879113727).")
    String workerUidRange;

    @Option(
            names = "--dumpable-workers",
            description =
                    "Leave workers dumpable: processes of a worker's uid may read its memory, keys included, and trace it "
                            + "(debuggers, profilers, /proc readers). Weaker; for development and benchmarks.")
    boolean dumpableWorkers;

    @Option(
            names = "--worker-groups",
            paramLabel = "GROUPS",
            split = ",",
            description =
                    "The workers' supplementary groups, comma-separated (e.g. the hugetlbfs group); default: none, "
                            + "or with --worker-user that user's own.")
    List<String> workerGroups;

    @Option(
            names = "--worker-env-allow",
            paramLabel = "PATTERNS",
            split = ",",
            description =
                    "Env names a host may pass to a worker, comma-separated patterns with * (default: UCX_*,UCC_*,OMP_*).")
    List<String> workerEnvAllow;

    @Option(
            names = "--max-workers-per-principal",
            paramLabel = "N",
            description = "Most workers one principal may have (default: --max-workers).")
    Integer maxWorkersPerPrincipal;

    @Option(
            names = "--max-connections",
            paramLabel = "N",
            description = "Most host connections to the daemon at once (default 256).")
    Integer maxConnections;

    @Option(
            names = "--max-connections-per-principal",
            paramLabel = "N",
            description = "Most connections of one principal, to the daemon and to each worker (default 64).")
    Integer maxConnectionsPerPrincipal;

    @Option(
            names = "--max-inflight",
            paramLabel = "N",
            description =
                    "Most commands one host connection may have outstanding at a worker, a power of two (default 1024).")
    Integer maxInflight;

    @Option(
            names = "--handshake-timeout-ms",
            paramLabel = "MS",
            description = "How long a new connection may take for its handshake (default 5000).")
    Long handshakeTimeoutMs;

    @Option(
            names = "--allow-insecure-plugin-dirs",
            description = "Load plugins from directories or files others may write, with a warning (development only).")
    boolean allowInsecurePluginDirs;

    private final Environment environment;

    DaemonCommand(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Integer call() throws InterruptedException {
        DaemonOptions options = options();
        DaemonConfig config = Daemon.configureLogging(options.config());
        PrintWriter out = spec.commandLine().getOut();
        Path logFile = Daemon.logFile(config);
        Daemon daemon;
        try {
            daemon = Daemon.start(config);
        } catch (IOException e) {
            throw new CliFailure(e.getMessage());
        }
        HttpEndpoint http = startHttp(daemon, options);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            // Read first: once the daemon is closed, call() returns and main may ask to exit too.
                            boolean stoppedBySignal = !Main.exitRequested();
                            daemon.close();
                            if (http != null) {
                                http.close();
                            }
                            LogManager.shutdown();
                            if (stoppedBySignal) {
                                // SIGTERM or SIGINT asked for this stop and it went cleanly: 0, not the JVM's 128 +
                                // signal.
                                Runtime.getRuntime().halt(0);
                            }
                        },
                        "urom-daemon-shutdown"));
        if (config.pluginPath().isBlank()) {
            spec.commandLine()
                    .getErr()
                    .println("urom daemon: " + Environment.PLUGIN_PATH + " is not set: the daemon reports no plugins");
        }
        out.println(listeningLine(
                daemon.address().toString(),
                logFile,
                http == null
                        ? null
                        : "http://" + http.address().getHostString() + ":"
                                + http.address().getPort()));
        out.flush();
        daemon.awaitTermination();
        return 0;
    }

    /**
     * {@code urom daemon: listening on ADDR (log: FILE)}, or with an HTTP endpoint {@code urom daemon:
     * listening on ADDR (log: FILE; health and metrics: URL)}: the address is the word after {@code
     * listening on}, ended by a space, for scripts to take.
     */
    static String listeningLine(String address, Path logFile, String httpUrl) {
        return "urom daemon: listening on " + address + " (log: " + logFile
                + (httpUrl == null ? "" : "; health and metrics: " + httpUrl) + ")";
    }

    private static HttpEndpoint startHttp(Daemon daemon, DaemonOptions options) {
        if (options.httpPort().isEmpty()) {
            return null;
        }
        try {
            return HttpEndpoint.start(
                    new InetSocketAddress(options.httpHost(), options.httpPort().getAsInt()), daemon);
        } catch (IOException e) {
            daemon.close();
            throw new CliFailure(e.getMessage());
        }
    }

    /** The options as given, checked; throws a {@linkplain CliFailure#usage usage failure} with one line for a bad one. */
    DaemonOptions options() {
        if (httpPort != null && (httpPort < 0 || httpPort > 65535)) {
            throw CliFailure.usage("--http-port " + httpPort + " is not a port (0..65535)");
        }
        DaemonConfig config = config();
        if (listen != null && config.security().admitsNobodyOn(config.listen())) {
            // The daemon refuses this too when it starts (also for the default TCP address in Kubernetes);
            // for a --listen given here, it is the usage error it is.
            throw CliFailure.usage("--listen " + config.listen()
                    + " (TCP) needs --auth-keys DIR (one key file per principal; urom keygen"
                    + " writes one), or --insecure-tcp to let anyone who reaches the port in");
        }
        return new DaemonOptions(config, httpPort == null ? OptionalInt.empty() : OptionalInt.of(httpPort), httpHost);
    }

    /** The defaults, and each option given in place of its default. */
    private DaemonConfig config() {
        try {
            DaemonConfig.Builder config = DaemonConfig.builder().pluginPath(environment.uromPluginPath());
            ifGiven(logLevel, text -> config.logLevel(level("--log-level", text)));
            ifGiven(sdkLogLevel, text -> config.sdkLogLevel(level("--sdk-log-level", text)));
            ifGiven(maxMessageSize, config::maxMessageSize);
            ifGiven(maxWorkers, config::maxWorkers);
            ifGiven(listen, text -> config.listen(listenAddress(text)));
            ifGiven(logDir, config::logDir);
            ifGiven(logFileSize, config::logFileSize);
            ifGiven(logFileCount, config::logFileCount);
            ifGiven(workerLogCount, config::workerLogCount);
            ifGiven(workerLogMaxAge, text -> config.workerLogMaxAge(WorkerLogRetention.parseAge(text)));
            ifGiven(workerJvmOptions, config::addWorkerJvmOptions);
            return config.security(security()).build();
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
    }

    private DaemonSecurity security() {
        DaemonSecurity.Builder security = DaemonSecurity.builder()
                .insecureTcp(insecureTcp)
                .allowInsecurePluginDirs(allowInsecurePluginDirs)
                .dumpableWorkers(dumpableWorkers);
        ifGiven(authKeys, security::authKeys);
        ifGiven(socketGroup, security::socketGroup);
        ifGiven(workerUser, security::workerUser);
        ifGiven(workerUidRange, text -> security.workerUidRange(UidRange.parse(text)));
        ifGiven(workerGroups, security::workerGroups);
        ifGiven(workerEnvAllow, security::workerEnvAllow);
        ifGiven(maxWorkersPerPrincipal, security::maxWorkersPerPrincipal);
        ifGiven(maxConnections, security::maxConnections);
        ifGiven(maxConnectionsPerPrincipal, security::maxConnectionsPerPrincipal);
        ifGiven(maxInflight, security::maxInflight);
        ifGiven(handshakeTimeoutMs, ms -> security.handshakeTimeout(Duration.ofMillis(ms)));
        return security.build();
    }

    /** Hands an option's value to its setter when the option was given (picocli leaves the others null). */
    private static <T> void ifGiven(T value, Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }

    private static int level(String option, String text) {
        try {
            return LogLevels.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }

    private static ServiceAddress listenAddress(String text) {
        try {
            return ServiceAddress.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--listen: " + e.getMessage(), e);
        }
    }
}
