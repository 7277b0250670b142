// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.service.logging.LogLevels;
import dev.urom.spi.WorkerCommand;
import dev.urom.wire.ServiceAddress;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A worker's command line after the launcher's and the JVM's options; immutable, and the one
 * codec of that command line: the daemon writes it with {@link #toArgv()}, the worker reads it
 * with {@link #fromArgv}, which throws {@link IllegalArgumentException} with one line naming the
 * option or item and what is wrong.
 *
 * <pre>
 * --worker-id ID --gid G (--listen ADDR | --listen-fd 0) [--daemon-fd N] [--log-level N]
 * [--sdk-log-level N] [--max-msg-size BYTES] [--cpus 0,2-3] [--idle-timeout-ms MS]
 * [--max-inflight N] [--max-host-connections N] [--handshake-timeout-ms MS] [--dumpable true|false]
 * PATH:ID [PATH:ID ...]
 * </pre>
 *
 * <ul>
 *   <li>An option takes its value as the next argument or after {@code =}; every argument that
 *       does not start with {@code --} is a plugin item.
 *   <li>Ids are unsigned decimal or {@code 0x} hexadecimal.
 *   <li>{@code --worker-id} and one of {@code --listen} and {@code --listen-fd} are required.
 *   <li>Defaults: gid 0, the daemon's pipe on stdin, levels 50 (info) and 40 (warning), {@value
 *       WorkerHostConfig#DEFAULT_MAX_MESSAGE_SIZE} bytes, every CPU, {@value
 *       #DEFAULT_IDLE_TIMEOUT_MS} ms, {@value #DEFAULT_MAX_INFLIGHT} commands in flight, {@value
 *       #DEFAULT_MAX_HOST_CONNECTIONS} host connections, {@value #DEFAULT_HANDSHAKE_TIMEOUT_MS} ms
 *       for a handshake, undumpable.
 *   <li>{@link #toArgv()} writes the options in the order above and the plugins last (so that
 *       {@code ps} shows them); it leaves out {@code --cpus} when there is none and {@code
 *       --dumpable} when it is false.
 * </ul>
 *
 * @param listen where to listen ({@code unix:PATH} or {@code tcp:HOST:PORT}, port 0 for any); null
 *     with {@code listenFd}
 * @param listenFd 0 when the listening socket is inherited as stdin (the launcher binds it); -1 otherwise
 * @param daemonFd the descriptor of the daemon's pipe (the launcher moves it to 3)
 * @param cpus the CPUs to pin to; empty for no pinning
 * @param maxInflight most commands one host connection may have outstanding
 * @param maxHostConnections most host connections at once, handshaking ones included (a worker
 *     serves one principal, its owner: the daemon gives it {@code --max-connections-per-principal})
 * @param dumpable whether the worker leaves itself dumpable ({@code --dumpable-workers} of the daemon)
 */
public record WorkerLaunch(
        long workerId,
        long gid,
        ServiceAddress listen,
        int listenFd,
        int daemonFd,
        int logLevel,
        int sdkLogLevel,
        int maxMessageSize,
        BitSet cpus,
        long idleTimeoutMs,
        int maxInflight,
        int maxHostConnections,
        long handshakeTimeoutMs,
        boolean dumpable,
        List<PluginSpec> plugins) {
    public static final long DEFAULT_IDLE_TIMEOUT_MS = 30_000;
    public static final int DEFAULT_MAX_INFLIGHT = 1024;
    public static final int DEFAULT_MAX_HOST_CONNECTIONS = 64;
    public static final long DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;
    /** The largest {@code --max-msg-size} accepted: 64 MiB. */
    public static final int MAX_MESSAGE_SIZE_LIMIT = 64 << 20;

    private static final int DEFAULT_LOG_LEVEL = 50;
    private static final int DEFAULT_SDK_LOG_LEVEL = 40;
    private static final int MAX_CPU = 1 << 16;

    public WorkerLaunch {
        if ((listen == null) == (listenFd < 0)) {
            throw new IllegalArgumentException("give one of --listen and --listen-fd");
        }
        cpus = (BitSet) requireNonNull(cpus, "cpus is null").clone();
        plugins = List.copyOf(plugins);
    }

    @Override
    public BitSet cpus() {
        return (BitSet) cpus.clone();
    }

    /**
     * Reads a worker's command line.
     *
     * @throws IllegalArgumentException one line naming the option or item and what is wrong
     */
    public static WorkerLaunch fromArgv(String... args) {
        try {
            return read(args);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(WorkerLines.oneLine(e.getMessage()), e);
        }
    }

    private static WorkerLaunch read(String... args) {
        Long workerId = null;
        long gid = 0;
        ServiceAddress listen = null;
        int listenFd = -1;
        int daemonFd = 0;
        int logLevel = DEFAULT_LOG_LEVEL;
        int sdkLogLevel = DEFAULT_SDK_LOG_LEVEL;
        int maxMessageSize = WorkerHostConfig.DEFAULT_MAX_MESSAGE_SIZE;
        BitSet cpus = new BitSet();
        long idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
        int maxInflight = DEFAULT_MAX_INFLIGHT;
        int maxHostConnections = DEFAULT_MAX_HOST_CONNECTIONS;
        long handshakeTimeoutMs = DEFAULT_HANDSHAKE_TIMEOUT_MS;
        boolean dumpable = false;
        List<String> items = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                items.add(arg);
                continue;
            }
            String name = arg;
            String value;
            int equals = arg.indexOf('=');
            if (equals > 0) {
                name = arg.substring(0, equals);
                value = arg.substring(equals + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException("option " + name + " needs a value");
            }
            switch (name) {
                case "--worker-id" -> workerId = unsigned(name, value);
                case "--gid" -> gid = unsigned(name, value);
                case "--listen" -> listen = address(name, value);
                case "--listen-fd" -> listenFd = inheritedListener(name, value);
                case "--daemon-fd" -> daemonFd = descriptor(name, value);
                case "--max-inflight" -> maxInflight = (int) bounded(name, value, 1 << 20);
                case "--max-host-connections" -> maxHostConnections = (int) bounded(name, value, 1 << 16);
                case "--handshake-timeout-ms" -> handshakeTimeoutMs = positive(name, value);
                case "--log-level" -> logLevel = level(name, value);
                case "--sdk-log-level" -> sdkLogLevel = level(name, value);
                case "--max-msg-size" -> maxMessageSize = maxMessageSize(name, value);
                case "--cpus" -> cpus = cpuList(name, value);
                case "--idle-timeout-ms" -> idleTimeoutMs = positive(name, value);
                case "--dumpable" -> dumpable = bool(name, value);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (workerId == null) {
            throw new IllegalArgumentException("option --worker-id is missing");
        }
        if (listen == null && listenFd < 0) {
            throw new IllegalArgumentException("option --listen (or --listen-fd) is missing");
        }
        if (listen != null && listenFd >= 0) {
            throw new IllegalArgumentException("options --listen and --listen-fd exclude each other");
        }
        return new WorkerLaunch(
                workerId,
                gid,
                listen,
                listenFd,
                daemonFd,
                logLevel,
                sdkLogLevel,
                maxMessageSize,
                cpus,
                idleTimeoutMs,
                maxInflight,
                maxHostConnections,
                handshakeTimeoutMs,
                dumpable,
                PluginSpec.parseAll(items));
    }

    /** The command line in the form {@link #fromArgv} reads. */
    public List<String> toArgv() {
        List<String> args = new ArrayList<>();
        add(args, "--worker-id", Long.toUnsignedString(workerId));
        add(args, "--gid", Long.toUnsignedString(gid));
        if (listen != null) {
            add(args, "--listen", listen.toString());
        } else {
            add(args, "--listen-fd", Integer.toString(listenFd));
        }
        add(args, "--daemon-fd", Integer.toString(daemonFd));
        add(args, "--log-level", Integer.toString(logLevel));
        add(args, "--sdk-log-level", Integer.toString(sdkLogLevel));
        add(args, "--max-msg-size", Integer.toString(maxMessageSize));
        if (!cpus.isEmpty()) {
            add(args, "--cpus", cpus.stream().mapToObj(Integer::toString).collect(Collectors.joining(",")));
        }
        add(args, "--idle-timeout-ms", Long.toString(idleTimeoutMs));
        add(args, "--max-inflight", Integer.toString(maxInflight));
        add(args, "--max-host-connections", Integer.toString(maxHostConnections));
        add(args, "--handshake-timeout-ms", Long.toString(handshakeTimeoutMs));
        if (dumpable) {
            add(args, "--dumpable", "true");
        }
        for (PluginSpec plugin : plugins) {
            args.add(plugin.toString());
        }
        return args;
    }

    private static void add(List<String> args, String option, String value) {
        args.add(option);
        args.add(value);
    }

    private static boolean bool(String name, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default ->
                throw new IllegalArgumentException("option " + name + " takes true or false, not '" + value + "'");
        };
    }

    private static String nonEmpty(String name, String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("option " + name + " is empty");
        }
        return value;
    }

    private static ServiceAddress address(String name, String value) {
        try {
            return ServiceAddress.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("option " + name + ": " + e.getMessage());
        }
    }

    private static long unsigned(String name, String value) {
        boolean hex = value.startsWith("0x") || value.startsWith("0X");
        String digits = hex ? value.substring(2) : value;
        try {
            if (digits.isEmpty() || !digits.chars().allMatch(c -> c < 128 && Character.digit(c, hex ? 16 : 10) >= 0)) {
                throw new NumberFormatException();
            }
            return Long.parseUnsignedLong(digits, hex ? 16 : 10);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + name + " '" + value + "' is not an unsigned 64-bit number");
        }
    }

    private static long positive(String name, String value) {
        long number;
        try {
            if (!value.matches("-?[0-9]+")) {
                throw new NumberFormatException();
            }
            number = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + name + " '" + value + "' is not a number");
        }
        if (number <= 0) {
            throw new IllegalArgumentException("option " + name + " " + value + " is not positive");
        }
        return number;
    }

    private static long bounded(String name, String value, long max) {
        long number = positive(name, value);
        if (number > max) {
            throw new IllegalArgumentException("option " + name + " " + value + " is over " + max);
        }
        return number;
    }

    private static int descriptor(String name, String value) {
        if (!value.matches("0|[1-9][0-9]{0,8}")) {
            throw new IllegalArgumentException("option " + name + " '" + value + "' is not a file descriptor number");
        }
        return Integer.parseInt(value);
    }

    private static int inheritedListener(String name, String value) {
        if (!value.equals("0")) {
            throw new IllegalArgumentException(
                    "option " + name + " " + value + ": only 0 (a listening socket inherited as stdin) is supported");
        }
        return 0;
    }

    private static int level(String name, String value) {
        try {
            return LogLevels.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("option " + name + ": " + e.getMessage());
        }
    }

    private static int maxMessageSize(String name, String value) {
        long bytes = positive(name, value);
        if (bytes < WorkerCommand.HEADER_BYTES || bytes > MAX_MESSAGE_SIZE_LIMIT) {
            throw new IllegalArgumentException("option " + name + " " + value + " is out of range ("
                    + WorkerCommand.HEADER_BYTES + ".." + MAX_MESSAGE_SIZE_LIMIT + " bytes)");
        }
        return (int) bytes;
    }

    /** A CPU list as Linux writes it: {@code 0,2,4-7}. */
    private static BitSet cpuList(String name, String value) {
        BitSet cpus = new BitSet();
        if (value.isEmpty()) {
            throw new IllegalArgumentException("option " + name + " is empty");
        }
        for (String part : value.split(",", -1)) {
            int dash = part.indexOf('-');
            int first = cpu(name, value, dash < 0 ? part : part.substring(0, dash));
            int last = dash < 0 ? first : cpu(name, value, part.substring(dash + 1));
            if (last < first) {
                throw new IllegalArgumentException(
                        "option " + name + " '" + value + "': range " + part + " runs backwards");
            }
            cpus.set(first, last + 1);
        }
        return cpus;
    }

    private static int cpu(String name, String list, String text) {
        int cpu;
        try {
            if (text.isEmpty() || !Character.isDigit(text.charAt(0))) {
                throw new NumberFormatException();
            }
            cpu = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "option " + name + " '" + list + "': '" + text + "' is not a CPU number");
        }
        if (cpu >= MAX_CPU) {
            throw new IllegalArgumentException(
                    "option " + name + " '" + list + "': CPU " + cpu + " is over " + (MAX_CPU - 1));
        }
        return cpu;
    }
}
