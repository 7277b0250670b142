package dev.urom.service.daemon;

import dev.urom.framework.wire.Message.WorkerStartRequest;
import dev.urom.spi.UromStatus;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a WORKER_START before anything is started, in this order: the plugin mask (NOT_FOUND),
 * the form of each env item (INVALID_VALUE), env names that would let a host inject code into the
 * worker (NOT_PERMITTED), the cpus (INVALID_VALUE). Stateless apart from its inputs; thread-safe.
 */
final class StartRequestCheck {
    /** Variables a host may not set: each would load or run code of the host's choosing. */
    static final Set<String> FORBIDDEN_ENV = Set.of(
            "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH");

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final CpuSet allowedCpus;

    StartRequestCheck(CpuSet allowedCpus) {
        this.allowedCpus = allowedCpus;
    }

    /**
     * The first reason to refuse {@code request}, or empty.
     *
     * @param pluginMask the ids of the plugins the daemon currently accepts
     */
    Optional<Refusal> check(WorkerStartRequest request, long pluginMask) {
        long mask = request.pluginMask();
        if (mask == 0) {
            return refuse(UromStatus.NOT_FOUND, "plugin mask is 0: a worker needs at least one plugin");
        }
        long unknown = mask & ~pluginMask;
        if (unknown != 0) {
            return refuse(UromStatus.NOT_FOUND, "plugin mask " + hex(mask) + " names " + (Long.bitCount(unknown) == 1 ? "id " : "ids ")
                    + hex(unknown) + ", which this daemon does not have (its plugins: " + hex(pluginMask) + ")");
        }
        for (String item : request.env()) {
            Optional<Refusal> bad = checkEnvForm(item);
            if (bad.isPresent()) {
                return bad;
            }
        }
        for (String item : request.env()) {
            String name = item.substring(0, item.indexOf('='));
            if (FORBIDDEN_ENV.contains(name)) {
                return refuse(UromStatus.NOT_PERMITTED, "env " + name + " is not permitted: it would let a host inject code into the worker");
            }
        }
        for (int cpu : request.cpus()) {
            if (!allowedCpus.contains(cpu)) {
                return refuse(UromStatus.INVALID_VALUE, "cpu " + cpu + " is not in the daemon's cpu set " + allowedCpus);
            }
        }
        return Optional.empty();
    }

    private static Optional<Refusal> checkEnvForm(String item) {
        String shown = item.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
        int equals = item.indexOf('=');
        if (equals < 0) {
            return refuse(UromStatus.INVALID_VALUE, "env item '" + shown + "' is not NAME=value");
        }
        String name = item.substring(0, equals);
        if (!NAME.matcher(name).matches()) {
            return refuse(UromStatus.INVALID_VALUE, "env item '" + shown + "' has an invalid name '" + name.replace("\n", "\\n")
                    + "' (letters, digits and _, not starting with a digit)");
        }
        if (item.codePoints().anyMatch(c -> Character.isWhitespace(c) || Character.isSpaceChar(c) || c == 0)) {
            return refuse(UromStatus.INVALID_VALUE, "env item '" + shown + "' holds white space or a NUL");
        }
        return Optional.empty();
    }

    private static Optional<Refusal> refuse(UromStatus status, String message) {
        return Optional.of(new Refusal(status, message));
    }

    static String hex(long mask) {
        return "0x" + Long.toHexString(mask);
    }
}
