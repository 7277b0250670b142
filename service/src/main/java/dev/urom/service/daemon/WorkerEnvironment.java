// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static java.util.Objects.requireNonNull;

import dev.urom.service.logging.LogText;
import dev.urom.spi.UromStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The environment of a worker process, by allow-list. A host may pass only variables whose names
 * match one of the operator's patterns ({@code --worker-env-allow}; {@code *} matches any run of
 * characters) and are outside the fixed never-passable set, whatever the patterns say. Names are
 * compared without regard to case. Never passable:
 *
 * <ul>
 *   <li>every name that the C library and the dynamic loader, the JVM, JNA or Log4j read: {@code
 *       LD_*}, {@code GCONV_PATH}, {@code LOCPATH}, {@code LC_*}, {@code LANG*}, {@code
 *       GLIBC_TUNABLES}, {@code MALLOC_*}, {@code TMPDIR}, {@code XDG_*}, {@code JAVA_*}, {@code
 *       JDK_*}, {@code _JAVA_*}, {@code CLASSPATH}, {@code JNA_*}, {@code LOG4J*}, ...;
 *   <li>the daemon's own ({@code UROM_*}) and the shell's;
 *   <li>any name whose shape says it names a file, directory, library, module, tool or command the
 *       worker would read, write or run: {@code *_PATH}, {@code *_DIR}, {@code *_FILE}, {@code
 *       *_LIBRARIES}, {@code *_MODULE_DIR}, {@code *GDB*}, ... (UCX's {@code UCX_MODULE_DIR} and
 *       {@code UCX_GDB_COMMAND}, OpenMP's {@code OMP_TOOL_LIBRARIES}).
 * </ul>
 *
 * <p>UCX's own variables ({@code UCX_*}) are read by every UCX plugin, so a host may pass only the
 * reviewed ones of {@link #REVIEWED_UCX}, each with a value of its pattern (or empty): transports
 * and devices, thresholds, log level, a few switches; none of them names a file, a directory or a
 * library, or makes UCX run a program (checked against UCX 1.13's {@code ucx_info -c}). Any other
 * {@code UCX_*} name from a host is refused NOT_PERMITTED, a reviewed one with another value
 * INVALID_VALUE, whatever the patterns say; the patterns must still admit a reviewed name. The
 * daemon's own environment (the operator's) is not held to this list.
 *
 * <p>The environment is then built from nothing: the daemon's fixed values ({@code PATH}, {@code
 * LANG=C.UTF-8}, {@code UCX_ERROR_SIGNALS} empty, and those the caller adds), the daemon's own
 * variables that pass the same rules (the operator's defaults, such as {@code UCX_TLS} in a pod
 * spec), then the host's, which win; last, the settings undumpable workers need ({@link
 * UcxTransports}): {@code UCX_TLS} without {@code cma}, {@code UCX_POSIX_USE_PROC_LINK=n}.
 *
 * <p>Immutable and thread-safe.
 */
final class WorkerEnvironment {
    /** Most env items in one WORKER_START. */
    static final int MAX_ITEMS = 128;

    static final int MAX_NAME_CHARS = 128;
    static final int MAX_VALUE_BYTES = 4096;
    static final String FIXED_PATH = "/usr/local/bin:/usr/bin:/bin";
    static final String FIXED_LANG = "C.UTF-8";

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final List<String> NEVER_PREFIXES = List.of(
            "LD_",
            "LC_",
            "LANG",
            "GCONV",
            "GLIBC_",
            "MALLOC_",
            "XDG_",
            "JAVA_",
            "JDK_",
            "_JAVA_",
            "JNA_",
            "LOG4J",
            "UROM_",
            "BASH_",
            "PYTHON",
            "PERL",
            "RUBY",
            "NODE_",
            "OPENSSL_",
            "SSL_",
            "KRB5",
            "GMON_",
            "NSS_",
            "RES_",
            "RESOLV_");
    private static final Set<String> NEVER_NAMES = Set.of(
            "LOCPATH",
            "GETCONF_DIR",
            "HOSTALIASES",
            "LOCALDOMAIN",
            "NIS_PATH",
            "NLSPATH",
            "TMPDIR",
            "TMP",
            "TEMP",
            "TZ",
            "TZDIR",
            "CLASSPATH",
            "PATH",
            "HOME",
            "USER",
            "LOGNAME",
            "SHELL",
            "ENV",
            "IFS",
            "PS4",
            "CDPATH",
            "POSIXLY_CORRECT",
            "MAIL",
            "TERMINFO",
            "TERMCAP",
            "UCX_ERROR_SIGNALS");
    /**
     * Set empty in every worker: UCX must not take over the signals the worker's JVM uses itself
     * (SIGSEGV, SIGBUS, ...), whichever library loads libucs first.
     */
    static final String UCX_ERROR_SIGNALS = "UCX_ERROR_SIGNALS";

    private static final List<String> NEVER_SUFFIXES = List.of(
            "_PATH",
            "_DIR",
            "_DIRS",
            "_FILE",
            "_FILES",
            "_DEST",
            "_COMMAND",
            "_CMD",
            "_LIB",
            "_LIBS",
            "_LIBRARY",
            "_LIBRARIES",
            "_PRELOAD",
            "_PLUGIN",
            "_PLUGINS",
            "_MODULE",
            "_MODULES",
            "_TOOL",
            "_TOOLS",
            "_SCRIPT",
            "_EXEC");
    private static final List<String> NEVER_INFIXES =
            List.of("_FILE_", "GDB", "DLOPEN", "HANDLE_ERRORS", "DEBUG_SIGNO", "PRELOAD");

    /** UCX's variables a host may pass, with the pattern of their values (matched without regard to case). */
    static final Map<String, Pattern> REVIEWED_UCX = reviewedUcx();

    private static final String UCX_PREFIX = "UCX_";

    private final List<String> allowPatterns;
    private final List<Pattern> allowed;

    /** @param allowPatterns the operator's patterns ({@code UCX_*}); checked by {@link DaemonSecurity} */
    WorkerEnvironment(List<String> allowPatterns) {
        this.allowPatterns = List.copyOf(allowPatterns);
        List<Pattern> compiled = new ArrayList<>();
        for (String glob : allowPatterns) {
            compiled.add(
                    Pattern.compile(Pattern.quote(glob.toUpperCase(Locale.ROOT)).replace("*", "\\E.*\\Q")));
        }
        this.allowed = List.copyOf(compiled);
    }

    private static Map<String, Pattern> reviewedUcx() {
        String names = "[A-Za-z0-9_]+(:aux)?";
        String devices = "[A-Za-z0-9_.:-]+";
        String size = "auto|inf|[0-9]{1,19}([kmgt]b?|b)?";
        String bool = "y|yes|on|1|n|no|off|0";
        Map<String, String> values = new LinkedHashMap<>();
        values.put("UCX_TLS", "\\^?" + names + "(," + names + ")*");
        values.put("UCX_NET_DEVICES", "\\^?" + devices + "(," + devices + ")*");
        values.put("UCX_RNDV_THRESH", size);
        values.put("UCX_ZCOPY_THRESH", size);
        values.put("UCX_MAX_RNDV_RAILS", "[0-9]{1,2}");
        values.put("UCX_LOG_LEVEL", "fatal|error|warn|diag|info|debug");
        values.put("UCX_MEMTYPE_CACHE", bool + "|try|auto");
        values.put("UCX_SOCKADDR_TLS_PRIORITY", "[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*");
        values.put("UCX_TCP_CM_REUSEADDR", bool);
        values.put("UCX_POSIX_USE_PROC_LINK", bool);
        values.put("UCX_WARN_UNUSED_ENV_VARS", bool);
        values.put("UCX_SYSV_ERROR_HANDLING", bool);
        values.put("UCX_POSIX_ERROR_HANDLING", bool);
        values.put("UCX_KEEPALIVE_INTERVAL", "inf|auto|[0-9]{1,10}(\\.[0-9]{1,6})?(s|ms|us|ns|m|h)?");
        Map<String, Pattern> compiled = new LinkedHashMap<>();
        values.forEach(
                (name, value) -> compiled.put(name, Pattern.compile("(" + value + ")?", Pattern.CASE_INSENSITIVE)));
        return Collections.unmodifiableMap(compiled);
    }

    /** Whether {@code name} is in the fixed set no pattern can open. */
    static boolean neverPassable(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        return NEVER_NAMES.contains(upper)
                || NEVER_PREFIXES.stream().anyMatch(upper::startsWith)
                || NEVER_SUFFIXES.stream().anyMatch(upper::endsWith)
                || NEVER_INFIXES.stream().anyMatch(upper::contains);
    }

    /** Whether a host may pass a variable named {@code name}. */
    boolean passable(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        return !neverPassable(name)
                && allowed.stream().anyMatch(p -> p.matcher(upper).matches());
    }

    /**
     * The first reason to refuse the env items of a WORKER_START, or empty: their form and size
     * first (INVALID_VALUE), then their names (NOT_PERMITTED). Messages name the variable, never its
     * value.
     */
    Optional<Refusal> check(List<String> items) {
        if (items.size() > MAX_ITEMS) {
            return refuse(UromStatus.INVALID_VALUE, items.size() + " env items: at most " + MAX_ITEMS + " are taken");
        }
        for (String item : items) {
            Optional<Refusal> bad = checkForm(item);
            if (bad.isPresent()) {
                return bad;
            }
        }
        for (String item : items) {
            String name = item.substring(0, item.indexOf('='));
            if (neverPassable(name)) {
                return refuse(
                        UromStatus.NOT_PERMITTED,
                        "env " + name + " is never passed to a worker: the C library, the loader, the JVM, "
                                + "JNA or Log4j reads it, or it names a file, library or command the worker would use");
            }
            String upper = name.toUpperCase(Locale.ROOT);
            if (upper.startsWith(UCX_PREFIX) && !REVIEWED_UCX.containsKey(upper)) {
                return refuse(
                        UromStatus.NOT_PERMITTED,
                        "env " + name + " is not one of the UCX variables a host may pass ("
                                + String.join(", ", REVIEWED_UCX.keySet()) + ")");
            }
            if (!passable(name)) {
                return refuse(
                        UromStatus.NOT_PERMITTED,
                        "env " + name + " is not one the operator allows (--worker-env-allow "
                                + String.join(",", allowPatterns) + ")");
            }
            Pattern value = REVIEWED_UCX.get(upper);
            if (value != null
                    && !value.matcher(item.substring(item.indexOf('=') + 1)).matches()) {
                return refuse(
                        UromStatus.INVALID_VALUE,
                        "env " + name + " has a value that is not one UCX takes for it ("
                                + value.pattern().substring(1, value.pattern().length() - 2) + ")");
            }
        }
        return Optional.empty();
    }

    private static Optional<Refusal> checkForm(String item) {
        int equals = item.indexOf('=');
        if (equals < 0) {
            return refuse(UromStatus.INVALID_VALUE, "env item '" + LogText.cut(item) + "' is not NAME=value");
        }
        String name = item.substring(0, equals);
        if (!NAME.matcher(name).matches() || name.length() > MAX_NAME_CHARS) {
            return refuse(
                    UromStatus.INVALID_VALUE,
                    "env item '" + LogText.cut(item) + "' has an invalid name '" + LogText.cut(name)
                            + "' (letters, digits and _, not starting with a digit, at most " + MAX_NAME_CHARS + ")");
        }
        String value = item.substring(equals + 1);
        if (value.codePoints().anyMatch(c -> Character.isWhitespace(c) || Character.isSpaceChar(c) || c == 0)) {
            return refuse(UromStatus.INVALID_VALUE, "env item '" + LogText.cut(item) + "' holds white space or a NUL");
        }
        int bytes = value.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > MAX_VALUE_BYTES) {
            return refuse(
                    UromStatus.INVALID_VALUE,
                    "env " + name + " has a value of " + bytes + " bytes; the limit is " + MAX_VALUE_BYTES);
        }
        return Optional.empty();
    }

    /**
     * The environment of a worker: {@code fixed} (the daemon's values for this worker) over {@code
     * PATH} and {@code LANG}, then the passable variables of {@code daemonEnvironment}, then the host's
     * {@code items} (already {@link #check checked}).
     */
    Map<String, String> build(Map<String, String> fixed, Map<String, String> daemonEnvironment, List<String> items) {
        requireNonNull(fixed, "fixed is null");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", FIXED_PATH);
        env.put("LANG", FIXED_LANG);
        daemonEnvironment.forEach((name, value) -> {
            if (NAME.matcher(name).matches() && passable(name)) {
                env.put(name, value);
            }
        });
        for (String item : items) {
            int equals = item.indexOf('=');
            env.put(item.substring(0, equals), item.substring(equals + 1));
        }
        env.put(UCX_ERROR_SIGNALS, "");
        env.put(UcxTransports.TLS, UcxTransports.withoutCma(env.get(UcxTransports.TLS)));
        env.put(UcxTransports.POSIX_USE_PROC_LINK, "n");
        env.putAll(fixed);
        return env;
    }

    private static Optional<Refusal> refuse(UromStatus status, String message) {
        return Optional.of(new Refusal(status, message));
    }
}
