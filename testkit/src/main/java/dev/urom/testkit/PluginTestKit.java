// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.discovery.PluginKind;
import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.spi.Api;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where a plugin's test starts: names the plugin under test and the worker's settings, then opens
 * one {@link TestWorker} with it, or a {@link TestDomain} of several.
 *
 * <pre>{@code
 * try (TestWorker worker = PluginTestKit.plugin(Path.of("build/worker_demo.so")).open()) {
 *     WorkerNotification answer = worker.call(command);
 *     assertThat(answer).isSuccessful().hasPayload(expected);
 * }
 * }</pre>
 *
 * <p>A plugin is a native {@code .so} (loaded through {@code urom_plugin_get_iface}, in this
 * process), a PF4J plugin jar (in a class loader of its own, as a worker loads it), or a {@link
 * PluginIface} that the test makes itself (its class from the test's class path). Either way the
 * plugin runs in the framework's own worker host: commands over the maximum message size, unknown
 * plugin ids and refusals are answered as a worker answers them. The plugin's host, what its host
 * look-ups ({@code WorkerContext.hostProcess}, {@code urom_worker_host_process}) name for every dest
 * id, is the test's own process unless {@link Builder#hostProcess} names another or {@link
 * Builder#noHostProcess} none.
 *
 * <p>A {@link Builder} is not thread-safe and may open any number of workers; each opened worker
 * belongs to the thread that opens it (see {@link TestWorker}).
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public final class PluginTestKit {
    /** How long a wait lasts unless {@link Builder#timeout} says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /** The plugin's id unless {@link Builder#pluginId} says otherwise: bit 0, as a daemon gives its first plugin. */
    public static final long DEFAULT_PLUGIN_ID = 1L;
    /** The host connection the commands come from unless {@link Builder#destId} says otherwise. */
    public static final long DEFAULT_DEST_ID = 1L;

    private PluginTestKit() {}

    /**
     * The plugin in {@code file}: a {@code .so} or a plugin {@code .jar} (the name decides, as in a
     * plugin directory). The file is checked when a worker is opened.
     */
    public static Builder plugin(Path file) {
        requireNonNull(file, "file is null");
        return new Builder(file.toAbsolutePath().normalize(), null);
    }

    /**
     * A Java plugin that {@code factory} makes, one instance per worker; its classes come from the
     * test's class path, not from a plugin jar. Its name is its class's simple name.
     */
    public static Builder plugin(Supplier<? extends PluginIface> factory) {
        requireNonNull(factory, "factory is null");
        return new Builder(null, factory);
    }

    /**
     * Opens a domain with one worker per builder, in order (domain id 0 is the first): peers of
     * different plugins, a C plugin and its Java twin for example. Each worker takes its builder's
     * settings. On failure nothing stays open.
     *
     * @throws AssertionError when a plugin cannot be loaded or opened
     */
    public static TestDomain domain(Builder... members) {
        requireNonNull(members, "members is null");
        if (members.length == 0) {
            throw new IllegalArgumentException("a domain needs at least one worker");
        }
        return TestDomain.open(Arrays.asList(members));
    }

    /** The plugin under test and the settings of the workers that host it. */
    public static final class Builder {
        private final Path file;
        private final Supplier<? extends PluginIface> factory;
        private long pluginId = DEFAULT_PLUGIN_ID;
        private long destId = DEFAULT_DEST_ID;
        private int maxMessageSize = WorkerHostConfig.DEFAULT_MAX_MESSAGE_SIZE;
        private Duration timeout = DEFAULT_TIMEOUT;
        private long hostProcess = TestHostProcess.SELF;

        private Builder(Path file, Supplier<? extends PluginIface> factory) {
            this.file = file;
            this.factory = factory;
        }

        /** The plugin's id, the {@code type} of every command sent to it: one bit. */
        public Builder pluginId(long id) {
            if (Long.bitCount(id) != 1) {
                throw new IllegalArgumentException("plugin id 0x" + Long.toHexString(id) + " is not a single bit");
            }
            this.pluginId = id;
            return this;
        }

        /** The host connection id that commands carry ({@code dest_id}) and answers must carry back. */
        public Builder destId(long id) {
            this.destId = id;
            return this;
        }

        /** The largest command the worker accepts, header included (the daemon's {@code -m}); larger ones are answered TOO_BIG. */
        public Builder maxMessageSize(int bytes) {
            if (bytes < WorkerCommand.HEADER_BYTES) {
                throw new IllegalArgumentException("max message size " + bytes
                        + " bytes is smaller than a command header (" + WorkerCommand.HEADER_BYTES + " bytes)");
            }
            this.maxMessageSize = bytes;
            return this;
        }

        /**
         * The process that the plugin's host look-ups ({@code WorkerContext.hostProcess}, {@code
         * urom_worker_host_process}) name for every dest id: {@code pid}, a child of the test say,
         * instead of the test's own process, which is the host unless this is called. The worker
         * takes a pidfd of it when it opens (so the process must exist then) and hands the plugin a
         * duplicate at each look-up. Native plugins share one host per process: workers with native
         * plugins that are open at the same time must name the same one.
         *
         * @throws IllegalArgumentException when {@code pid} is not a positive {@code int}
         */
        public Builder hostProcess(long pid) {
            if (pid <= 0 || pid > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("pid " + pid + " is not a process id");
            }
            this.hostProcess = pid;
            return this;
        }

        /** No host process: every look-up answers NOT_SUPPORTED, as for a host connected over TCP. */
        public Builder noHostProcess() {
            this.hostProcess = TestHostProcess.NONE;
            return this;
        }

        /** How long each wait of the opened workers may last before it fails the test. */
        public Builder timeout(Duration limit) {
            requireNonNull(limit, "limit is null");
            if (limit.isNegative() || limit.isZero()) {
                throw new IllegalArgumentException("timeout " + limit + " is not positive");
            }
            this.timeout = limit;
            return this;
        }

        /**
         * Loads and opens the plugin in a worker of its own (domain id 0, alone in its domain).
         *
         * @throws AssertionError when the plugin cannot be loaded or opened, naming it and why
         */
        public TestWorker open() {
            return TestDomain.open(List.of(this)).worker(0).detachFromDomain();
        }

        /**
         * Opens {@code size} workers of this plugin in one domain (domain ids 0 to size - 1). A
         * native plugin is loaded from a copy of its own per worker (one library opened twice under
         * one name would be one library, its globals shared), the copies deleted on close.
         *
         * @throws AssertionError when the plugin cannot be loaded or opened
         */
        public TestDomain openDomain(int size) {
            if (size < 1) {
                throw new IllegalArgumentException("a domain of " + size + " workers: it needs at least one");
            }
            List<Builder> members = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                members.add(this);
            }
            return TestDomain.open(members);
        }

        long pluginId() {
            return pluginId;
        }

        long destId() {
            return destId;
        }

        int maxMessageSize() {
            return maxMessageSize;
        }

        Duration timeout() {
            return timeout;
        }

        /** The host: {@link TestHostProcess#SELF}, {@link TestHostProcess#NONE} or a pid. */
        long hostProcess() {
            return hostProcess;
        }

        /** The file, or empty for a plugin made by a factory. */
        Optional<Path> file() {
            return Optional.ofNullable(file);
        }

        /** The plugin's name: its file name less the extension; empty for a factory's plugin (its class names it). */
        Optional<String> fileName() {
            if (file == null) {
                return Optional.empty();
            }
            String fileName = file.getFileName().toString();
            return Optional.of(
                    PluginKind.ofFileName(fileName).isPresent() ? PluginKind.pluginName(fileName) : fileName);
        }

        /** Checks the file before anything is loaded: one line naming it and the reason. */
        void checkFile() {
            if (file == null) {
                return;
            }
            if (PluginKind.ofFileName(file.getFileName().toString()).isEmpty()) {
                throw new AssertionError("plugin file " + file + " is neither a .so nor a plugin .jar");
            }
            if (!Files.isRegularFile(file)) {
                throw new AssertionError("plugin file " + file + " does not exist or is not a regular file"
                        + " (build the plugin before its test runs)");
            }
        }

        /** The loader of this plugin; a factory's plugin is made whatever the path. */
        PluginLoader loader() {
            if (factory == null) {
                return PluginLoader.standard();
            }
            return path -> {
                PluginIface made = factory.get();
                if (made == null) {
                    throw new UromException(UromStatus.UNEXPECTED, "the plugin factory returned null");
                }
                return made;
            };
        }
    }
}
