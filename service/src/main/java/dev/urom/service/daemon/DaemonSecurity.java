// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The daemon's security settings, immutable and thread-safe: who may use the daemon, and what its
 * workers run as and may be given (docs/security.md).
 *
 * <p>A {@link Builder} makes them:
 *
 * <ul>
 *   <li>its fields hold the defaults, one field per daemon option;
 *   <li>each setter is named after the accessor that reads its option back;
 *   <li>{@link Builder#build()} checks every option and throws an {@link IllegalArgumentException}
 *       of one line that names the option and the reason.
 * </ul>
 */
public final class DaemonSecurity {
    public static final List<String> DEFAULT_WORKER_ENV_ALLOW = List.of("UCX_*", "UCC_*", "OMP_*");
    public static final int DEFAULT_MAX_CONNECTIONS = 256;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_PRINCIPAL = 64;
    public static final int DEFAULT_MAX_INFLIGHT = 1024;
    public static final int MAX_MAX_INFLIGHT = 1 << 20;
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern ENV_PATTERN = Pattern.compile("[A-Za-z_*][A-Za-z0-9_*]*");
    private static final Pattern ACCOUNT = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}[$]?|[0-9]+:[0-9]+");

    /** The checked options: a copy that {@link Builder#build()} made and nothing else holds. */
    private final Builder options;

    private DaemonSecurity(Builder options) {
        this.options = options;
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: no keys, no insecure TCP, no socket group, workers of each principal as its own uid (root daemon), UCX_*, UCC_*, OMP_*. */
    public static DaemonSecurity defaults() {
        return builder().build();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return options.copy();
    }

    /** The key directory ({@code --auth-keys}), one key file per principal, absolute; null for none. */
    public Path authKeys() {
        return options.authKeys;
    }

    /** Whether a TCP listener admits clients without a key ({@code --insecure-tcp}). */
    public boolean insecureTcp() {
        return options.insecureTcp;
    }

    /** The group that may use the Unix sockets ({@code --socket-group}); null: only the daemon's user. */
    public String socketGroup() {
        return options.socketGroup;
    }

    /**
     * Who every worker runs as ({@code --worker-user}); null: a root daemon runs each principal's
     * workers as a uid of that principal's own (see {@code WorkerIdentities}), any other daemon runs
     * them as itself.
     */
    public String workerUser() {
        return options.workerUser;
    }

    /**
     * The workers' supplementary groups ({@code --worker-groups}); empty: those of {@code
     * --worker-user}'s account, and none for a principal's own uid.
     */
    public List<String> workerGroups() {
        return options.workerGroups;
    }

    /**
     * Where a root daemon takes the uid of each principal's workers that has no account of its own
     * ({@code --worker-uid-range}); null: {@link UidRange#DEFAULT}, see {@link #workerUids()}.
     */
    public UidRange workerUidRange() {
        return options.workerUidRange;
    }

    /** The patterns of env names a host may pass to a worker ({@code --worker-env-allow}; {@code *} matches any run of characters). */
    public List<String> workerEnvAllow() {
        return options.workerEnvAllow;
    }

    /** The most workers one principal may have ({@code --max-workers-per-principal}); 0: as many as {@code --max-workers}. */
    public int maxWorkersPerPrincipal() {
        return options.maxWorkersPerPrincipal;
    }

    /** The most host connections to the daemon at once ({@code --max-connections}). */
    public int maxConnections() {
        return options.maxConnections;
    }

    /** The most connections of one principal, to the daemon and to each of its workers ({@code --max-connections-per-principal}). */
    public int maxConnectionsPerPrincipal() {
        return options.maxConnectionsPerPrincipal;
    }

    /** The most commands one host connection may have outstanding at a worker ({@code --max-inflight}, a power of two). */
    public int maxInflight() {
        return options.maxInflight;
    }

    /** How long a new connection may take to complete its handshake ({@code --handshake-timeout-ms}). */
    public Duration handshakeTimeout() {
        return options.handshakeTimeout;
    }

    /**
     * Whether plugins from directories or files others may write are loaded anyway, with a warning
     * ({@code --allow-insecure-plugin-dirs}).
     */
    public boolean allowInsecurePluginDirs() {
        return options.allowInsecurePluginDirs;
    }

    /**
     * Whether workers stay dumpable, so that processes of their uid may read their memory and trace
     * them (debuggers, profilers, benchmarks), with a warning ({@code --dumpable-workers}); weaker.
     */
    public boolean dumpableWorkers() {
        return options.dumpableWorkers;
    }

    /**
     * Whether a daemon listening on {@code listen} would admit nobody it can identify: a TCP address
     * with neither {@code --auth-keys} nor {@code --insecure-tcp}. Such a daemon refuses to start.
     */
    public boolean admitsNobodyOn(ServiceAddress listen) {
        return !listen.isUnix() && authKeys() == null && !insecureTcp();
    }

    /** The range the workers' uids come from: {@code --worker-uid-range}, or {@link UidRange#DEFAULT}. */
    public UidRange workerUids() {
        return workerUidRange() == null ? UidRange.DEFAULT : workerUidRange();
    }

    /**
     * The security settings being made; not thread-safe. A setter stores its value as given (null
     * where the accessor allows it) and {@link #build()} checks them all.
     */
    public static final class Builder implements Cloneable {
        private Path authKeys;
        private boolean insecureTcp;
        private String socketGroup;
        private String workerUser;
        private List<String> workerGroups = List.of();
        private UidRange workerUidRange;
        private List<String> workerEnvAllow = DEFAULT_WORKER_ENV_ALLOW;
        private int maxWorkersPerPrincipal;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerPrincipal = DEFAULT_MAX_CONNECTIONS_PER_PRINCIPAL;
        private int maxInflight = DEFAULT_MAX_INFLIGHT;
        private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
        private boolean allowInsecurePluginDirs;
        private boolean dumpableWorkers;

        private Builder() {}

        public Builder authKeys(Path directory) {
            this.authKeys = directory;
            return this;
        }

        public Builder insecureTcp(boolean insecure) {
            this.insecureTcp = insecure;
            return this;
        }

        public Builder socketGroup(String group) {
            this.socketGroup = group;
            return this;
        }

        public Builder workerUser(String user) {
            this.workerUser = user;
            return this;
        }

        /** The groups; null is taken as none. */
        public Builder workerGroups(List<String> groups) {
            this.workerGroups = groups;
            return this;
        }

        public Builder workerUidRange(UidRange range) {
            this.workerUidRange = range;
            return this;
        }

        /** The patterns; null is taken as none. */
        public Builder workerEnvAllow(List<String> patterns) {
            this.workerEnvAllow = patterns;
            return this;
        }

        public Builder maxWorkersPerPrincipal(int workers) {
            this.maxWorkersPerPrincipal = workers;
            return this;
        }

        public Builder maxConnections(int connections) {
            this.maxConnections = connections;
            return this;
        }

        public Builder maxConnectionsPerPrincipal(int connections) {
            this.maxConnectionsPerPrincipal = connections;
            return this;
        }

        public Builder maxInflight(int commands) {
            this.maxInflight = commands;
            return this;
        }

        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = timeout;
            return this;
        }

        public Builder allowInsecurePluginDirs(boolean allow) {
            this.allowInsecurePluginDirs = allow;
            return this;
        }

        public Builder dumpableWorkers(boolean dumpable) {
            this.dumpableWorkers = dumpable;
            return this;
        }

        /**
         * The settings; this builder stays usable and later changes to it leave them alone.
         *
         * @throws IllegalArgumentException one line naming the first option refused and why
         */
        public DaemonSecurity build() {
            Builder checked = copy();
            checked.check();
            return new DaemonSecurity(checked);
        }

        /** Checks every option, and gives those with more than one spelling their one form: absolute paths, unmodifiable lists. */
        private void check() {
            if (authKeys != null) {
                authKeys = authKeys.toAbsolutePath().normalize();
            }
            checkAccount("--socket-group", socketGroup);
            checkAccount("--worker-user", workerUser);
            workerGroups = workerGroups == null ? List.of() : workerGroups;
            for (String group : workerGroups) {
                if (group == null || !ACCOUNT.matcher(group).matches()) {
                    throw new IllegalArgumentException("--worker-groups " + workerGroups + " holds '" + group
                            + "', which is not a group name or number");
                }
            }
            workerGroups = List.copyOf(workerGroups);
            workerEnvAllow = workerEnvAllow == null ? List.of() : workerEnvAllow;
            for (String pattern : workerEnvAllow) {
                if (pattern == null || !ENV_PATTERN.matcher(pattern).matches()) {
                    throw new IllegalArgumentException("--worker-env-allow " + workerEnvAllow + " holds '" + pattern
                            + "', which is not a pattern of env names (letters, digits, _ and *)");
                }
            }
            workerEnvAllow = List.copyOf(workerEnvAllow);
            if (maxWorkersPerPrincipal < 0) {
                throw new IllegalArgumentException(
                        "--max-workers-per-principal " + maxWorkersPerPrincipal + " is negative");
            }
            checkPositive("--max-connections", maxConnections);
            checkPositive("--max-connections-per-principal", maxConnectionsPerPrincipal);
            if (maxInflight <= 0 || Integer.bitCount(maxInflight) != 1 || maxInflight > MAX_MAX_INFLIGHT) {
                throw new IllegalArgumentException(
                        "--max-inflight " + maxInflight + " is not a power of two from 1 to " + MAX_MAX_INFLIGHT);
            }
            if (handshakeTimeout == null || handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
                throw new IllegalArgumentException("--handshake-timeout-ms "
                        + (handshakeTimeout == null ? "" : handshakeTimeout.toMillis()) + " is not positive");
            }
        }

        /** A copy of every field; {@code clone} copies them without listing them once more. */
        private Builder copy() {
            try {
                return (Builder) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError("a Cloneable builder could not be cloned", e);
            }
        }

        private static void checkAccount(String option, String value) {
            if (value != null && !ACCOUNT.matcher(value).matches()) {
                throw new IllegalArgumentException(
                        option + " '" + value + "' is not a user or group name, a number, or UID:GID");
            }
        }

        private static void checkPositive(String option, int value) {
            if (value <= 0) {
                throw new IllegalArgumentException(option + " " + value + " is not positive");
            }
        }
    }
}
