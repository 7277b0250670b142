// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.HostProcess;
import dev.urom.spi.PluginIface;
import dev.urom.spi.TransportName;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Drives the plugins of one worker: loads and opens each one, dispatches commands to them by id and
 * collects their notifications.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Not thread-safe.</b> One thread drives a host from {@link #open} to {@link #close}, as
 *       {@link PluginIface} requires of its callers (a native plugin must always be called from the
 *       same thread).
 *   <li><b>Failures never stop the host.</b> What goes wrong with a command is answered, out of the
 *       next {@link #progress}, by the worker: a {@link WorkerAnswer} with the command's {@code
 *       destId}, {@code type} and {@code uromContext}, a failure status and no payload, which the
 *       worker packs itself ({@link WorkerAnswer#madeByWorker()}). Of {@link
 *       WorkerAnswer.Origin#WORKER origin WORKER}:
 *       <ul>
 *         <li>an unknown plugin id: NOT_FOUND;
 *         <li>a command over the maximum message size: TOO_BIG;
 *         <li>a command for a plugin that failed to load or open (see {@link #failures()}): the
 *             status it failed with.
 *       </ul>
 *       Of {@link WorkerAnswer.Origin#PLUGIN_REFUSAL origin PLUGIN_REFUSAL}, with the plugin's
 *       message as the {@link WorkerAnswer#refusalReason() reason}:
 *       <ul>
 *         <li>a {@link UromException}: its status, logged at WARN;
 *         <li>anything else the plugin throws, {@link StackOverflowError} and {@link LinkageError}
 *             included: UNEXPECTED, logged at ERROR (the stack trace at DEBUG).
 *       </ul>
 *   <li><b>Refusal reasons are bounded.</b> The message is cut to one line of {@value
 *       FailureText#MAX_CHARS} characters for the log, and to {@value #MAX_MESSAGE_BYTES} UTF-8
 *       bytes (less when the maximum message size holds less) for the reason.
 *   <li><b>Only a {@link VirtualMachineError} other than a stack overflow is let through:</b> the
 *       worker process is then not worth keeping.
 *   <li><b>A bad transport name fails the load.</b> A plugin whose {@link PluginIface#transport()}
 *       is not a {@link TransportName transport name} is recorded as failed (INVALID_VALUE).
 *   <li><b>One answer per refused command.</b> A plugin that refuses a command may also have
 *       queued an answer for it (NVIDIA's sandbox both queues an error and returns it on an unknown
 *       destination). The worker's answer wins and comes out first; a notification with the same
 *       {@code destId} and {@code uromContext} that comes out of that plugin's next {@code
 *       progress} is dropped, with a DEBUG line. Later rounds' notifications are not checked.
 *   <li><b>Host processes.</b> Each plugin's {@link WorkerContext#hostProcess} is answered by the
 *       config's {@link HostProcesses} (the embedding data plane's connections), from any thread.
 *   <li><b>Ownership.</b> The host owns the plugins it opened and closes each one exactly once in
 *       {@link #close}. A plugin whose {@code open} failed is never closed (the C contract pairs
 *       {@code close} with a successful {@code open}); what it holds goes with the worker process.
 * </ul>
 */
public final class WorkerHost implements AutoCloseable {
    private static final Logger LOG = LogManager.getLogger(WorkerHost.class);
    /** The most bytes of a plugin's failure message that the reason of its refusal carries. */
    static final int MAX_MESSAGE_BYTES = WorkerAnswer.MAX_REASON_BYTES;

    private final long workerId;
    private final int maxMessageSize;
    private final Map<Long, HostedPlugin> plugins;
    private final Map<Long, PluginFailure> failures;
    private final ArrayDeque<WorkerAnswer> pending = new ArrayDeque<>();
    private final List<WorkerNotification> progressBuffer = new ArrayList<>();
    private boolean closed;
    private boolean progressing;

    private WorkerHost(
            long workerId, int maxMessageSize, Map<Long, HostedPlugin> plugins, Map<Long, PluginFailure> failures) {
        this.workerId = workerId;
        this.maxMessageSize = maxMessageSize;
        this.plugins = plugins;
        this.failures = failures;
    }

    /**
     * Loads and opens the plugins of {@code specs}, in order. A plugin that fails to load or open
     * is logged and recorded in {@link #failures()}; the others are still opened.
     *
     * @throws IllegalArgumentException when two specs share an id or a path
     */
    public static WorkerHost open(long workerId, List<PluginSpec> specs, PluginLoader loader, WorkerHostConfig config) {
        requireNonNull(specs, "specs is null");
        requireNonNull(loader, "loader is null");
        requireNonNull(config, "config is null");
        PluginSpec.requireDistinct(specs);
        Map<Long, HostedPlugin> plugins = new LinkedHashMap<>();
        Map<Long, PluginFailure> failures = new LinkedHashMap<>();
        for (PluginSpec spec : specs) {
            HostedPlugin hosted = new HostedPlugin(spec);
            plugins.put(spec.id(), hosted);
            PluginFailure failure = loadAndOpen(workerId, hosted, loader, config);
            if (failure != null) {
                LOG.error("worker {}: {}", workerId, failure);
                failures.put(spec.id(), failure);
            }
        }
        return new WorkerHost(workerId, config.maxMessageSize(), plugins, failures);
    }

    private static PluginFailure loadAndOpen(
            long workerId, HostedPlugin hosted, PluginLoader loader, WorkerHostConfig config) {
        PluginSpec spec = hosted.spec;
        PluginIface plugin;
        try {
            plugin = loader.load(spec.path());
        } catch (UromException e) {
            return new PluginFailure(spec, e.status(), "cannot be loaded: " + e.getMessage());
        } catch (Throwable t) {
            rethrowIfFatal(t);
            LOG.error("worker {}: loading plugin '{}' ({}) threw", workerId, spec.name(), spec, t);
            return new PluginFailure(spec, UromStatus.UNEXPECTED, "cannot be loaded: " + describe(t));
        }
        if (plugin == null) {
            return new PluginFailure(spec, UromStatus.UNEXPECTED, "cannot be loaded: the loader returned no plugin");
        }
        Optional<String> transport;
        try {
            transport = plugin.transport();
        } catch (Throwable t) {
            rethrowIfFatal(t);
            LOG.error("worker {}: transport() of plugin '{}' ({}) threw", workerId, spec.name(), spec, t);
            return new PluginFailure(spec, UromStatus.UNEXPECTED, "cannot be loaded: transport() threw " + describe(t));
        }
        if (transport == null) {
            return new PluginFailure(
                    spec, UromStatus.INVALID_VALUE, "cannot be loaded: transport() returned null, not an Optional");
        }
        if (transport.isPresent()) {
            Optional<String> problem = TransportName.problem(transport.get());
            if (problem.isPresent()) {
                return new PluginFailure(
                        spec, UromStatus.INVALID_VALUE, "cannot be loaded: the transport name " + problem.get());
            }
        }
        hosted.transport = transport;
        try {
            plugin.open(new HostedContext(
                    workerId, spec.id(), config.domainFor(spec.id(), transport), config.hostProcesses()));
        } catch (UromException e) {
            return new PluginFailure(spec, e.status(), "open failed: " + e.getMessage());
        } catch (Throwable t) {
            rethrowIfFatal(t);
            LOG.error("worker {}: open of plugin '{}' ({}) threw", workerId, spec.name(), spec, t);
            return new PluginFailure(spec, UromStatus.UNEXPECTED, "open failed: " + describe(t));
        }
        hosted.plugin = plugin;
        return null;
    }

    /**
     * The worker's answer to a command that a plugin refused: its status, and the failure message
     * (one line, see {@link FailureText}) as its reason, cut at a character boundary to what a
     * notification of the maximum message size holds beside an empty payload.
     */
    private WorkerAnswer refusal(WorkerCommand command, UromStatus status, String message) {
        byte[] reason = FailureText.utf8(
                message, Math.min(MAX_MESSAGE_BYTES, maxMessageSize - WorkerNotification.HEADER_BYTES));
        return WorkerAnswer.pluginRefusal(
                command,
                status,
                reason.length == 0 ? Optional.empty() : Optional.of(new String(reason, StandardCharsets.UTF_8)));
    }

    /** The id of the worker this host drives. */
    public long workerId() {
        return workerId;
    }

    /** The ids of every plugin named when the host was opened, failed ones included, in order. */
    public Set<Long> pluginIds() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(plugins.keySet()));
    }

    /** The opened plugin with this id; empty when there is none or it failed to load or open. */
    public Optional<PluginIface> plugin(long id) {
        HostedPlugin hosted = plugins.get(id);
        return hosted == null ? Optional.empty() : Optional.ofNullable(hosted.plugin);
    }

    /**
     * The transport that the opened plugin with this id names ({@link PluginIface#transport()},
     * read once when it was loaded and checked); empty when it names none, or there is no such
     * opened plugin.
     */
    public Optional<String> transport(long id) {
        HostedPlugin hosted = plugins.get(id);
        return hosted == null || hosted.plugin == null ? Optional.empty() : hosted.transport;
    }

    /** The plugins that could not be loaded or opened, by id, in the order of the specs. */
    public Map<Long, PluginFailure> failures() {
        return Collections.unmodifiableMap(failures);
    }

    /**
     * Hands {@code command} to the plugin whose id is its {@code type}. Whatever goes wrong is
     * answered with an error notification (see the class comment); nothing is thrown for it.
     *
     * @throws IllegalStateException when the host is closed
     */
    public void submit(WorkerCommand command) {
        requireNonNull(command, "command is null");
        checkOpen();
        HostedPlugin hosted = plugins.get(command.type());
        if (hosted == null) {
            LOG.debug(
                    "worker {}: command for unknown plugin id {} refused",
                    workerId,
                    PluginSpec.formatId(command.type()));
            pending.add(WorkerAnswer.workerRefusal(command, UromStatus.NOT_FOUND));
            return;
        }
        if (command.sizeWithHeader() > maxMessageSize) {
            LOG.warn(
                    "worker {}: command of {} bytes for plugin '{}' exceeds the maximum message size of {} bytes",
                    workerId,
                    command.sizeWithHeader(),
                    hosted.spec.name(),
                    maxMessageSize);
            pending.add(WorkerAnswer.workerRefusal(command, UromStatus.TOO_BIG));
            return;
        }
        PluginIface plugin = hosted.plugin;
        if (plugin == null) {
            pending.add(WorkerAnswer.workerRefusal(
                    command, failures.get(command.type()).status()));
            return;
        }
        try {
            plugin.workerCommand(command);
        } catch (UromException e) {
            String message = FailureText.oneLine(e.getMessage());
            LOG.warn(
                    "worker {}: plugin '{}' refused a command (context {}): {}: {}",
                    workerId,
                    hosted.spec.name(),
                    Long.toUnsignedString(command.uromContext()),
                    e.status(),
                    message);
            pending.add(refusal(command, e.status(), message));
            hosted.refused(command);
        } catch (Throwable t) {
            rethrowIfFatal(t);
            String message = FailureText.oneLine(describe(t));
            LOG.error(
                    "worker {}: plugin '{}' threw on a command (context {}): {}",
                    workerId,
                    hosted.spec.name(),
                    Long.toUnsignedString(command.uromContext()),
                    message);
            LOG.debug("worker {}: what plugin '{}' threw", workerId, hosted.spec.name(), t);
            pending.add(refusal(command, UromStatus.UNEXPECTED, message));
            hosted.refused(command);
        }
    }

    /**
     * Makes one round of progress: hands {@code sink} the worker's queued answers, then each opened
     * plugin's new notifications ({@link WorkerAnswer.Origin#PLUGIN}), plugin by plugin in the order
     * of the specs. A plugin whose {@code progress} throws is logged and skipped for this round;
     * what it appended before throwing is still delivered.
     *
     * <p>{@code sink} may {@link #submit} new commands, but must not call {@code progress} or
     * {@link #call} itself.
     *
     * @return how many notifications {@code sink} received
     * @throws IllegalStateException when the host is closed, or when called from within a sink
     */
    public int progress(Consumer<? super WorkerAnswer> sink) {
        requireNonNull(sink, "sink is null");
        checkOpen();
        if (progressing) {
            throw new IllegalStateException("worker " + workerId + ": progress was called from within a progress sink");
        }
        progressing = true;
        try {
            int delivered = 0;
            WorkerAnswer queued;
            while ((queued = pending.poll()) != null) {
                sink.accept(queued);
                delivered++;
            }
            for (HostedPlugin hosted : plugins.values()) {
                if (hosted.plugin != null) {
                    delivered += progressOne(hosted, sink);
                }
            }
            return delivered;
        } finally {
            progressing = false;
        }
    }

    private int progressOne(HostedPlugin hosted, Consumer<? super WorkerAnswer> sink) {
        List<WorkerNotification> buffer = progressBuffer;
        buffer.clear();
        List<Refused> refused = hosted.takeRefused();
        try {
            hosted.plugin.progress(buffer);
        } catch (UromException e) {
            if (e.status() != UromStatus.EMPTY) {
                LOG.warn(
                        "worker {}: progress of plugin '{}' failed: {}: {}",
                        workerId,
                        hosted.spec.name(),
                        e.status(),
                        e.getMessage());
            }
        } catch (Throwable t) {
            rethrowIfFatal(t);
            LOG.error("worker {}: progress of plugin '{}' threw", workerId, hosted.spec.name(), t);
        }
        int delivered = 0;
        for (int i = 0; i < buffer.size(); i++) {
            Object notification = buffer.get(i);
            if (notification instanceof WorkerNotification n) {
                if (!refused.isEmpty() && refused.remove(new Refused(n.destId(), n.uromContext()))) {
                    LOG.debug(
                            "worker {}: plugin '{}' answered context {} of host connection {} ({}) after refusing it; "
                                    + "the worker's answer stands and this one is dropped",
                            workerId,
                            hosted.spec.name(),
                            Long.toUnsignedString(n.uromContext()),
                            n.destId(),
                            n.status());
                    continue;
                }
                sink.accept(WorkerAnswer.fromPlugin(n));
                delivered++;
            } else {
                LOG.error(
                        "worker {}: progress of plugin '{}' appended {}, not a notification; dropped",
                        workerId,
                        hosted.spec.name(),
                        notification == null ? "null" : notification.getClass().getName());
            }
        }
        buffer.clear();
        return delivered;
    }

    /**
     * Submits {@code command} and makes progress until the notification answering it (same {@code
     * type} and {@code uromContext}) arrives, or {@code timeout} passes. Notifications for other
     * commands that arrive meanwhile are kept, in order, for the next {@link #progress}.
     *
     * @return the answer, or the worker's {@code TIME_OUT} answer ({@link WorkerAnswer.Origin#WORKER})
     *     when none came in time
     * @throws IllegalStateException when the host is closed, or when called from within a
     *     progress sink
     */
    public WorkerAnswer call(WorkerCommand command, Duration timeout) {
        requireNonNull(timeout, "timeout is null");
        if (progressing) {
            throw new IllegalStateException("worker " + workerId + ": call was made from within a progress sink");
        }
        submit(command);
        long deadline = System.nanoTime() + timeout.toNanos();
        List<WorkerAnswer> others = new ArrayList<>();
        WorkerAnswer[] answer = new WorkerAnswer[1];
        Consumer<WorkerAnswer> sink = n -> {
            if (answer[0] == null && n.type() == command.type() && n.uromContext() == command.uromContext()) {
                answer[0] = n;
            } else {
                others.add(n);
            }
        };
        try {
            IdleBackoff backoff = new IdleBackoff();
            while (true) {
                boolean idle = progress(sink) == 0;
                if (answer[0] != null) {
                    return answer[0];
                }
                if (System.nanoTime() - deadline >= 0) {
                    LOG.warn(
                            "worker {}: no answer to context {} from plugin id {} within {}",
                            workerId,
                            command.uromContext(),
                            PluginSpec.formatId(command.type()),
                            timeout);
                    return WorkerAnswer.workerRefusal(command, UromStatus.TIME_OUT);
                }
                backoff.after(idle);
            }
        } finally {
            pending.addAll(others);
        }
    }

    /**
     * Closes every opened plugin once, in the reverse order of opening; a plugin whose {@code close}
     * throws is logged and the rest are still closed. Queued notifications are dropped. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pending.clear();
        List<HostedPlugin> opened = new ArrayList<>(plugins.values());
        Collections.reverse(opened);
        for (HostedPlugin hosted : opened) {
            PluginIface plugin = hosted.plugin;
            if (plugin == null) {
                continue;
            }
            hosted.plugin = null;
            try {
                plugin.close();
            } catch (Throwable t) {
                rethrowIfFatal(t);
                LOG.error("worker {}: close of plugin '{}' threw", workerId, hosted.spec.name(), t);
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("worker " + workerId + " host is closed");
        }
    }

    private static void rethrowIfFatal(Throwable t) {
        if (t instanceof VirtualMachineError && !(t instanceof StackOverflowError)) {
            throw (VirtualMachineError) t;
        }
    }

    private static String describe(Throwable t) {
        return t.getMessage() == null ? t.getClass().getName() : t.getClass().getName() + ": " + t.getMessage();
    }

    /** One plugin slot: its spec, once opened the plugin, and the commands it refused since its last progress. */
    private static final class HostedPlugin {
        final PluginSpec spec;
        PluginIface plugin;
        Optional<String> transport = Optional.empty();
        private List<Refused> refused = List.of();

        HostedPlugin(PluginSpec spec) {
            this.spec = spec;
        }

        void refused(WorkerCommand command) {
            if (refused.isEmpty()) {
                refused = new ArrayList<>();
            }
            refused.add(new Refused(command.destId(), command.uromContext()));
        }

        /** The commands refused since the last call, which starts a new list. */
        List<Refused> takeRefused() {
            List<Refused> taken = refused;
            refused = List.of();
            return taken;
        }
    }

    /** A command a plugin refused, by its host connection and context. */
    private record Refused(long destId, long uromContext) {}

    /** The context each plugin is opened with. */
    private record HostedContext(long workerId, long pluginId, DomainLookups domain, HostProcesses processes)
            implements WorkerContext {
        @Override
        public HostProcess hostProcess(long destId) throws UromException {
            HostProcess process = processes.hostProcess(destId);
            if (process == null) {
                throw new UromException(
                        UromStatus.UNEXPECTED, "the worker's host processes answered null for connection " + destId);
            }
            return process;
        }
    }
}
