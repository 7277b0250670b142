// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Who may use the daemon and what its workers may be given: the daemon's security settings, each
 * checked in the constructor (an {@link IllegalArgumentException} of one line naming the option).
 * Immutable. See docs/security.md.
 *
 * @param authKeys the key directory ({@code --auth-keys}): one key file per principal; null for none
 * @param insecureTcp whether a TCP listener admits clients without a key ({@code --insecure-tcp})
 * @param socketGroup the group that may use the Unix sockets ({@code --socket-group}; null: only the
 *     daemon's user)
 * @param workerUser who every worker runs as ({@code --worker-user}; null: a root daemon runs each
 *     principal's workers as a uid of that principal's own, see {@code WorkerIdentities}; any other
 *     daemon runs them as itself)
 * @param workerGroups the workers' supplementary groups ({@code --worker-groups}; empty: those of
 *     {@code --worker-user}'s account, and none for a principal's own uid)
 * @param workerUidRange where a root daemon takes the uid of each principal's workers that has no
 *     account of its own ({@code --worker-uid-range}; null: {@link UidRange#DEFAULT}, see {@link
 *     #workerUids()})
 * @param workerEnvAllow the patterns of env names a host may pass to a worker ({@code
 *     --worker-env-allow}; {@code *} matches any run of characters)
 * @param maxWorkersPerPrincipal most workers one principal may have ({@code
 *     --max-workers-per-principal}; 0: as many as {@code --max-workers})
 * @param maxConnections most host connections to the daemon at once ({@code --max-connections})
 * @param maxConnectionsPerPrincipal most connections of one principal, to the daemon and to each of
 *     its workers ({@code --max-connections-per-principal})
 * @param maxInflight most commands one host connection may have outstanding at a worker ({@code
 *     --max-inflight}, a power of two)
 * @param handshakeTimeout how long a new connection may take to complete its handshake ({@code
 *     --handshake-timeout-ms})
 * @param allowInsecurePluginDirs whether plugins from directories or files others may write are
 *     loaded anyway, with a warning ({@code --allow-insecure-plugin-dirs})
 * @param dumpableWorkers whether workers stay dumpable, so that processes of their uid may read
 *     their memory and trace them (debuggers, profilers, benchmarks), with a warning ({@code
 *     --dumpable-workers}); weaker
 */
public record DaemonSecurity(
        Path authKeys,
        boolean insecureTcp,
        String socketGroup,
        String workerUser,
        List<String> workerGroups,
        UidRange workerUidRange,
        List<String> workerEnvAllow,
        int maxWorkersPerPrincipal,
        int maxConnections,
        int maxConnectionsPerPrincipal,
        int maxInflight,
        Duration handshakeTimeout,
        boolean allowInsecurePluginDirs,
        boolean dumpableWorkers) {

    public static final List<String> DEFAULT_WORKER_ENV_ALLOW = List.of("UCX_*", "UCC_*", "OMP_*");
    public static final int DEFAULT_MAX_CONNECTIONS = 256;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_PRINCIPAL = 64;
    public static final int DEFAULT_MAX_INFLIGHT = 1024;
    public static final int MAX_MAX_INFLIGHT = 1 << 20;
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern ENV_PATTERN = Pattern.compile("[A-Za-z_*][A-Za-z0-9_*]*");
    private static final Pattern ACCOUNT = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}[$]?|[0-9]+:[0-9]+");

    public DaemonSecurity {
        if (authKeys != null) {
            authKeys = authKeys.toAbsolutePath().normalize();
        }
        checkAccount("--socket-group", socketGroup);
        checkAccount("--worker-user", workerUser);
        workerGroups = List.copyOf(workerGroups == null ? List.of() : workerGroups);
        for (String group : workerGroups) {
            if (group == null || !ACCOUNT.matcher(group).matches()) {
                throw new IllegalArgumentException("--worker-groups " + workerGroups + " holds '" + group + "', which is not a group name or number");
            }
        }
        workerEnvAllow = List.copyOf(workerEnvAllow == null ? List.of() : workerEnvAllow);
        for (String pattern : workerEnvAllow) {
            if (pattern == null || !ENV_PATTERN.matcher(pattern).matches()) {
                throw new IllegalArgumentException("--worker-env-allow " + workerEnvAllow + " holds '" + pattern
                        + "', which is not a pattern of env names (letters, digits, _ and *)");
            }
        }
        if (maxWorkersPerPrincipal < 0) {
            throw new IllegalArgumentException("--max-workers-per-principal " + maxWorkersPerPrincipal + " is negative");
        }
        checkPositive("--max-connections", maxConnections);
        checkPositive("--max-connections-per-principal", maxConnectionsPerPrincipal);
        if (maxInflight <= 0 || Integer.bitCount(maxInflight) != 1 || maxInflight > MAX_MAX_INFLIGHT) {
            throw new IllegalArgumentException("--max-inflight " + maxInflight + " is not a power of two from 1 to " + MAX_MAX_INFLIGHT);
        }
        if (handshakeTimeout == null || handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("--handshake-timeout-ms " + (handshakeTimeout == null ? "" : handshakeTimeout.toMillis())
                    + " is not positive");
        }
    }

    /**
     * Whether a daemon listening on {@code listen} would admit nobody it can identify: a TCP address
     * with neither {@code --auth-keys} nor {@code --insecure-tcp}. Such a daemon refuses to start.
     */
    public boolean admitsNobodyOn(ServiceAddress listen) {
        return !listen.isUnix() && authKeys == null && !insecureTcp;
    }

    /** The range the workers' uids come from: {@code --worker-uid-range}, or {@link UidRange#DEFAULT}. */
    public UidRange workerUids() {
        return workerUidRange == null ? UidRange.DEFAULT : workerUidRange;
    }

    /** The defaults: no keys, no insecure TCP, no socket group, workers of each principal as its own uid (root daemon), UCX_*, UCC_*, OMP_*. */
    public static DaemonSecurity defaults() {
        return new DaemonSecurity(null, false, null, null, List.of(), null, DEFAULT_WORKER_ENV_ALLOW, 0, DEFAULT_MAX_CONNECTIONS,
                DEFAULT_MAX_CONNECTIONS_PER_PRINCIPAL, DEFAULT_MAX_INFLIGHT, DEFAULT_HANDSHAKE_TIMEOUT, false, false);
    }

    public DaemonSecurity withAuthKeys(Path value) {
        return new DaemonSecurity(value, insecureTcp, socketGroup, workerUser, workerGroups, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withInsecureTcp(boolean value) {
        return new DaemonSecurity(authKeys, value, socketGroup, workerUser, workerGroups, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withSocketGroup(String value) {
        return new DaemonSecurity(authKeys, insecureTcp, value, workerUser, workerGroups, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withWorkerUser(String value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, value, workerGroups, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withWorkerGroups(List<String> value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, value, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withWorkerUidRange(UidRange value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, workerGroups, value, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withWorkerEnvAllow(List<String> value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, workerGroups, workerUidRange, value, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withMaxWorkersPerPrincipal(int value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, workerGroups, workerUidRange, workerEnvAllow, value,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withMaxConnections(int value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, workerGroups, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                value, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withMaxConnectionsPerPrincipal(int value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, workerGroups, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, value, maxInflight, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withMaxInflight(int value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, workerGroups, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, value, handshakeTimeout, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withHandshakeTimeout(Duration value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, workerGroups, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, value, allowInsecurePluginDirs, dumpableWorkers);
    }

    public DaemonSecurity withAllowInsecurePluginDirs(boolean value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, workerGroups, workerUidRange, workerEnvAllow, maxWorkersPerPrincipal,
                maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, value, dumpableWorkers);
    }

    public DaemonSecurity withDumpableWorkers(boolean value) {
        return new DaemonSecurity(authKeys, insecureTcp, socketGroup, workerUser, workerGroups, workerUidRange, workerEnvAllow,
                maxWorkersPerPrincipal, maxConnections, maxConnectionsPerPrincipal, maxInflight, handshakeTimeout, allowInsecurePluginDirs, value);
    }

    private static void checkAccount(String option, String value) {
        if (value != null && !ACCOUNT.matcher(value).matches()) {
            throw new IllegalArgumentException(option + " '" + value + "' is not a user or group name, a number, or UID:GID");
        }
    }

    private static void checkPositive(String option, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(option + " " + value + " is not positive");
        }
    }
}
