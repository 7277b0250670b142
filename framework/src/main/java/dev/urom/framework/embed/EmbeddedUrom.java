// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.embed;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.discovery.DefaultCandidateProber;
import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginDiscovery;
import dev.urom.framework.discovery.PluginIdRegistry;
import dev.urom.framework.discovery.PluginKind;
import dev.urom.framework.discovery.PluginPath;
import dev.urom.framework.discovery.PluginScanner;
import dev.urom.framework.discovery.Rejection;
import dev.urom.framework.discovery.ScanPolicy;
import dev.urom.framework.discovery.ScanResult;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The framework for a program that embeds it instead of running the urom daemon: plugin discovery
 * with stable ids, and plugins hosted in this process. A thin facade over {@link PluginDiscovery},
 * {@link PluginIdRegistry} and the worker host; see {@code docs/embedding.md}.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Discovery.</b> {@link Builder#build()} checks that every directory of the plugin path
 *       exists and scans it as the daemon does (directories in path order, files in name order;
 *       the secure trust policy unless {@link Builder#allowInsecure}); {@link #rescan()} scans it
 *       again. A file that is not a plugin, or not trusted, is no error: it is listed in {@link
 *       #lastScan()}{@code .rejected()} with the reason.
 *   <li><b>Stable ids.</b> Each plugin has one bit as its id ({@link DiscoveredPlugin#id()}). A
 *       plugin keeps its id across rescans while its file is unchanged, and an id held by an open
 *       worker is never given to another plugin. Ids are not stored anywhere: a new instance over
 *       the same plugin path with the same files gives the same ids (the lowest free bit, in scan
 *       order), so they are stable across restarts as long as the path's contents are.
 *   <li><b>In-process workers.</b> {@link #openInProcess} loads and opens the chosen plugins in
 *       this process, all of them or none, in an {@link InProcessWorker}.
 *   <li><b>Thread-safety.</b> Thread-safe: scans are serialised, and opening a worker does not
 *       block scans or other opens. {@link InProcessWorker} is thread-safe too.
 *   <li><b>Ownership.</b> This object owns the workers it opened: {@link #close()} closes every
 *       one still open (and with them every plugin they loaded). Idempotent. After it, {@link
 *       #plugins()} and {@link #lastScan()} still answer with the last scan; everything else
 *       throws {@code BAD_STATE}.
 *   <li><b>Errors.</b> A {@link UromException} whose message is one line naming the plugin or
 *       directory and the reason: {@code NOT_FOUND} for a missing directory or an unknown plugin,
 *       {@code INVALID_VALUE} for a bad path or selection, {@code BAD_STATE} once closed, and the
 *       plugin's own status when it cannot be loaded or opened. Arguments that are null or out of
 *       range are {@link NullPointerException}s and {@link IllegalArgumentException}s.
 * </ul>
 */
public final class EmbeddedUrom implements AutoCloseable {
    private final String pluginPath;
    private final List<Path> directories;
    private final PluginDiscovery discovery;
    private final WorkerHostConfig hostConfig;
    private final Duration callTimeout;
    /** The open workers. Guarded by this. */
    private final Set<InProcessWorker> workers = new LinkedHashSet<>();
    /** Guarded by this. */
    private long nextWorkerId = 1;
    /** Guarded by this. */
    private boolean closed;

    private EmbeddedUrom(
            List<Path> directories, PluginDiscovery discovery, WorkerHostConfig hostConfig, Duration callTimeout) {
        this.directories = directories;
        this.pluginPath = directories.stream()
                .map(Path::toString)
                .collect(Collectors.joining(String.valueOf(PluginPath.SEPARATOR)));
        this.discovery = discovery;
        this.hostConfig = hostConfig;
        this.callTimeout = callTimeout;
    }

    /** A builder with the defaults: no plugin path yet, secure trust, 4096-byte messages, 10 s time limits. */
    public static Builder builder() {
        return new Builder();
    }

    /** The plugin directories scanned, in order, absolute and normalised. */
    public List<Path> directories() {
        return directories;
    }

    /** The plugins the last scan accepted, with their ids, in scan order. */
    public List<DiscoveredPlugin> plugins() {
        return discovery.lastScan().plugins();
    }

    /** The last scan: the accepted plugins, the rejected files with their reasons, the warnings. */
    public ScanResult lastScan() {
        return discovery.lastScan();
    }

    /**
     * Scans the plugin path again. Plugins whose files are unchanged keep their ids; open workers
     * go on with the plugins they loaded. A directory that has disappeared since {@link
     * Builder#build()} is a warning in the result, not an error.
     */
    public ScanResult rescan() throws UromException {
        synchronized (this) {
            checkOpen();
        }
        return discovery.scan(directories);
    }

    /** The plugin of the last scan named {@code name} (its file name less the extension). */
    public DiscoveredPlugin plugin(String name) throws UromException {
        requireNonNull(name, "name is null");
        ScanResult scan = discovery.lastScan();
        for (DiscoveredPlugin plugin : scan.plugins()) {
            if (plugin.name().equals(name)) {
                return plugin;
            }
        }
        for (Rejection rejection : scan.rejected()) {
            Path file = rejection.path().getFileName();
            if (file != null
                    && PluginKind.ofFileName(file.toString()).isPresent()
                    && PluginKind.pluginName(file.toString()).equals(name)) {
                throw new UromException(
                        UromStatus.NOT_FOUND, "plugin '" + name + "' was rejected: " + rejection.reason());
            }
        }
        throw new UromException(
                UromStatus.NOT_FOUND,
                "no plugin named '" + name + "' in plugin path " + pluginPath + " (found: " + names(scan.plugins())
                        + ")");
    }

    /** The plugin of the last scan with id {@code id}. */
    public DiscoveredPlugin plugin(long id) throws UromException {
        return discovery
                .byId(id)
                .orElseThrow(() -> new UromException(
                        UromStatus.NOT_FOUND,
                        "no plugin with id " + formatId(id) + " in plugin path " + pluginPath + " (found: "
                                + names(discovery.lastScan().plugins()) + ")"));
    }

    /** {@link #openInProcess(List)} with the plugins of the last scan named {@code names}. */
    public InProcessWorker openInProcess(String... names) throws UromException {
        List<DiscoveredPlugin> chosen = new ArrayList<>(names.length);
        for (String name : names) {
            chosen.add(plugin(name));
        }
        return openInProcess(chosen);
    }

    /**
     * Loads and opens {@code plugins} (of the last scan, each once) in a new in-process worker, in
     * order. When one cannot be loaded or opened, the ones already opened are closed again and the
     * exception names each that failed, with its status (that of the first).
     *
     * @throws UromException {@code INVALID_VALUE} for an empty or repeated selection, {@code
     *     NOT_FOUND} for a plugin that is not in the last scan (rescanned away or changed), {@code
     *     BAD_STATE} when closed, or the status of a plugin that failed to load or open
     */
    public InProcessWorker openInProcess(List<DiscoveredPlugin> plugins) throws UromException {
        requireNonNull(plugins, "plugins is null");
        List<DiscoveredPlugin> chosen = List.copyOf(plugins);
        if (chosen.isEmpty()) {
            throw new UromException(UromStatus.INVALID_VALUE, "no plugin chosen for an in-process worker");
        }
        Set<Long> ids = new HashSet<>();
        long mask = 0;
        for (DiscoveredPlugin plugin : chosen) {
            if (!ids.add(plugin.id())) {
                throw new UromException(
                        UromStatus.INVALID_VALUE, "plugin '" + plugin.name() + "' is chosen twice for one worker");
            }
            if (!discovery.lastScan().plugins().contains(plugin)) {
                throw new UromException(
                        UromStatus.NOT_FOUND,
                        "plugin '" + plugin.name() + "' (id " + formatId(plugin.id()) + ", " + plugin.path()
                                + ") is not in the last scan of plugin path " + pluginPath
                                + "; choose it from a new scan");
            }
            mask |= plugin.id();
        }
        long workerId;
        PluginIdRegistry.Lease lease;
        synchronized (this) {
            checkOpen();
            workerId = nextWorkerId++;
            lease = discovery.registry().lease(mask);
        }
        InProcessWorker worker;
        try {
            worker = InProcessWorker.open(workerId, chosen, hostConfig, callTimeout, lease, this::forget);
        } catch (UromException | RuntimeException | Error e) {
            lease.close();
            throw e;
        }
        synchronized (this) {
            if (!closed) {
                workers.add(worker);
                return worker;
            }
        }
        worker.close();
        throw closedException();
    }

    /** Closes every worker still open, then refuses further use. Idempotent. */
    @Override
    public void close() {
        List<InProcessWorker> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            open = new ArrayList<>(workers);
            workers.clear();
        }
        for (InProcessWorker worker : open) {
            worker.close();
        }
    }

    private synchronized void forget(InProcessWorker worker) {
        workers.remove(worker);
    }

    private void checkOpen() throws UromException {
        if (closed) {
            throw closedException();
        }
    }

    private UromException closedException() {
        return new UromException(UromStatus.BAD_STATE, "the embedded urom of plugin path " + pluginPath + " is closed");
    }

    private static String names(List<DiscoveredPlugin> plugins) {
        return plugins.isEmpty()
                ? "none"
                : plugins.stream().map(DiscoveredPlugin::name).collect(Collectors.joining(", "));
    }

    static String formatId(long id) {
        return "0x" + Long.toHexString(id);
    }

    /**
     * Settings of an {@link EmbeddedUrom}. Not thread-safe; {@link #build()} may be called more
     * than once, each time for a new, independent instance.
     */
    public static final class Builder {
        private List<Path> directories;
        private String pluginPathError;
        private boolean allowInsecure;
        private int maxMessageSize = WorkerHostConfig.DEFAULT_MAX_MESSAGE_SIZE;
        private Duration callTimeout = Duration.ofSeconds(10);
        private Duration probeTimeout = DefaultCandidateProber.DEFAULT_NATIVE_TIMEOUT;

        private Builder() {}

        /** The directories to scan, as {@code UROM_PLUGIN_PATH} spells them: {@code ;}-separated, in order. */
        public Builder pluginPath(String uromPluginPath) {
            requireNonNull(uromPluginPath, "uromPluginPath is null");
            try {
                directories = PluginPath.parse(uromPluginPath);
                pluginPathError = null;
            } catch (IllegalArgumentException e) {
                directories = null;
                pluginPathError = e.getMessage();
            }
            return this;
        }

        /** The directories to scan, in order (a directory named twice is scanned at its first place). */
        public Builder pluginDirectories(List<Path> pluginDirectories) {
            requireNonNull(pluginDirectories, "pluginDirectories is null");
            directories = List.copyOf(pluginDirectories);
            pluginPathError = null;
            return this;
        }

        /**
         * Whether directories and files that someone other than root and this process's user owns
         * or could write are scanned all the same, with a warning (for development). Default false:
         * they are rejected unprobed.
         */
        public Builder allowInsecure(boolean allow) {
            allowInsecure = allow;
            return this;
        }

        /** The largest command a worker accepts, its 24-byte header included (default 4096); larger ones are answered {@code TOO_BIG}. */
        public Builder maxMessageSize(int bytes) {
            if (bytes < WorkerCommand.HEADER_BYTES) {
                throw new IllegalArgumentException("max message size " + bytes
                        + " bytes is smaller than a command header (" + WorkerCommand.HEADER_BYTES + " bytes)");
            }
            maxMessageSize = bytes;
            return this;
        }

        /** How long {@link InProcessWorker#call} waits for an answer (default 10 s). */
        public Builder callTimeout(Duration timeout) {
            callTimeout = positive(timeout, "call timeout");
            return this;
        }

        /** How long a native plugin's probe (in a child process) may take (default 10 s). */
        public Builder probeTimeout(Duration timeout) {
            probeTimeout = positive(timeout, "probe timeout");
            return this;
        }

        /**
         * Checks the plugin directories and scans them.
         *
         * @throws UromException {@code INVALID_VALUE} when no plugin path was given, it names no
         *     directory or holds an invalid entry, or an entry is not a directory; {@code
         *     NOT_FOUND} when a directory does not exist
         */
        public EmbeddedUrom build() throws UromException {
            if (pluginPathError != null) {
                throw new UromException(UromStatus.INVALID_VALUE, pluginPathError);
            }
            if (directories == null) {
                throw new UromException(
                        UromStatus.INVALID_VALUE, "no plugin path given (pluginPath or pluginDirectories)");
            }
            Set<Path> checked = new LinkedHashSet<>();
            for (Path directory : directories) {
                Path absolute = requireNonNull(directory, "a plugin directory is null")
                        .toAbsolutePath()
                        .normalize();
                if (!Files.exists(absolute)) {
                    throw new UromException(UromStatus.NOT_FOUND, "plugin directory " + absolute + " does not exist");
                }
                if (!Files.isDirectory(absolute)) {
                    throw new UromException(
                            UromStatus.INVALID_VALUE, "plugin path entry " + absolute + " is not a directory");
                }
                checked.add(absolute);
            }
            if (checked.isEmpty()) {
                throw new UromException(UromStatus.INVALID_VALUE, "the plugin path names no directory");
            }
            ScanPolicy policy = ScanPolicy.secure().withAllowInsecure(allowInsecure);
            PluginDiscovery discovery = new PluginDiscovery(
                    new PluginScanner(new DefaultCandidateProber(probeTimeout), policy), new PluginIdRegistry());
            EmbeddedUrom urom = new EmbeddedUrom(
                    List.copyOf(checked),
                    discovery,
                    WorkerHostConfig.defaults().withMaxMessageSize(maxMessageSize),
                    callTimeout);
            discovery.scan(urom.directories);
            return urom;
        }

        private static Duration positive(Duration timeout, String what) {
            requireNonNull(timeout, what + " is null");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException(what + " " + timeout + " is not positive");
            }
            return timeout;
        }
    }
}
