package dev.urom.service.worker;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.wire.ServiceAddress;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.service.logging.LogLevels;
import dev.urom.spi.WorkerCommand;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The command line of a worker process, as the daemon writes it:
 *
 * <pre>
 * --worker-id ID --gid G --listen ADDR --log-dir DIR --log-level N --sdk-log-level N
 * --max-msg-size BYTES [--cpus 0,2-3] [--idle-timeout-ms MS] PATH:ID [PATH:ID ...]
 * </pre>
 *
 * Options take their value as the next argument or after {@code =}; every argument that does not
 * start with {@code --} is a plugin item. Ids are unsigned decimal or {@code 0x} hexadecimal.
 * {@code --worker-id}, {@code --listen} and {@code --log-dir} are required; the others default to
 * gid 0, levels 50 (info) and 40 (warning), {@value WorkerHostConfig#DEFAULT_MAX_MESSAGE_SIZE}
 * bytes, every CPU and {@value #DEFAULT_IDLE_TIMEOUT_MS} ms. Immutable.
 *
 * @param listen where to listen ({@code unix:PATH} or {@code tcp:HOST:PORT}, port 0 for any)
 * @param cpus the CPUs to pin to; empty for no pinning
 */
public record WorkerArguments(
        long workerId,
        long gid,
        ServiceAddress listen,
        Path logDir,
        int logLevel,
        int sdkLogLevel,
        int maxMessageSize,
        BitSet cpus,
        long idleTimeoutMs,
        List<PluginSpec> plugins) {
    public static final long DEFAULT_IDLE_TIMEOUT_MS = 30_000;
    /** The largest {@code --max-msg-size} accepted: 64 MiB. */
    public static final int MAX_MESSAGE_SIZE_LIMIT = 64 << 20;
    private static final int DEFAULT_LOG_LEVEL = 50;
    private static final int DEFAULT_SDK_LOG_LEVEL = 40;
    private static final int MAX_CPU = 1 << 16;

    public WorkerArguments {
        requireNonNull(listen, "listen is null");
        requireNonNull(logDir, "logDir is null");
        cpus = (BitSet) requireNonNull(cpus, "cpus is null").clone();
        plugins = List.copyOf(plugins);
    }

    @Override
    public BitSet cpus() {
        return (BitSet) cpus.clone();
    }

    /**
     * Reads a worker's arguments.
     *
     * @throws IllegalArgumentException one line naming the option or item and what is wrong
     */
    public static WorkerArguments parse(String... args) {
        Long workerId = null;
        long gid = 0;
        ServiceAddress listen = null;
        Path logDir = null;
        int logLevel = DEFAULT_LOG_LEVEL;
        int sdkLogLevel = DEFAULT_SDK_LOG_LEVEL;
        int maxMessageSize = WorkerHostConfig.DEFAULT_MAX_MESSAGE_SIZE;
        BitSet cpus = new BitSet();
        long idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
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
                case "--log-dir" -> logDir = path(name, value);
                case "--log-level" -> logLevel = level(name, value);
                case "--sdk-log-level" -> sdkLogLevel = level(name, value);
                case "--max-msg-size" -> maxMessageSize = maxMessageSize(name, value);
                case "--cpus" -> cpus = cpuList(name, value);
                case "--idle-timeout-ms" -> idleTimeoutMs = positive(name, value);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (workerId == null) {
            throw new IllegalArgumentException("option --worker-id is missing");
        }
        if (listen == null) {
            throw new IllegalArgumentException("option --listen is missing");
        }
        if (logDir == null) {
            throw new IllegalArgumentException("option --log-dir is missing");
        }
        return new WorkerArguments(workerId, gid, listen, logDir, logLevel, sdkLogLevel, maxMessageSize, cpus,
                idleTimeoutMs, PluginSpec.parseAll(items));
    }

    /** The arguments in the form {@link #parse} reads, plugins last. */
    public List<String> toArgs() {
        List<String> args = new ArrayList<>(List.of(
                "--worker-id", Long.toUnsignedString(workerId),
                "--gid", Long.toUnsignedString(gid),
                "--listen", listen.toString(),
                "--log-dir", logDir.toString(),
                "--log-level", Integer.toString(logLevel),
                "--sdk-log-level", Integer.toString(sdkLogLevel),
                "--max-msg-size", Integer.toString(maxMessageSize),
                "--idle-timeout-ms", Long.toString(idleTimeoutMs)));
        if (!cpus.isEmpty()) {
            args.add("--cpus");
            args.add(cpus.stream().mapToObj(Integer::toString).reduce((a, b) -> a + "," + b).orElseThrow());
        }
        for (PluginSpec plugin : plugins) {
            args.add(plugin.toString());
        }
        return args;
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
            if (digits.isEmpty() || digits.charAt(0) == '+' || digits.charAt(0) == '-') {
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
            number = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + name + " '" + value + "' is not a number");
        }
        if (number <= 0) {
            throw new IllegalArgumentException("option " + name + " " + value + " is not positive");
        }
        return number;
    }

    private static Path path(String name, String value) {
        try {
            return Path.of(nonEmpty(name, value));
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("option " + name + " '" + value + "' is not a valid path (" + e.getReason() + ")");
        }
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
                throw new IllegalArgumentException("option " + name + " '" + value + "': range " + part + " runs backwards");
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
            throw new IllegalArgumentException("option " + name + " '" + list + "': '" + text + "' is not a CPU number");
        }
        if (cpu >= MAX_CPU) {
            throw new IllegalArgumentException("option " + name + " '" + list + "': CPU " + cpu + " is over " + (MAX_CPU - 1));
        }
        return cpu;
    }
}
