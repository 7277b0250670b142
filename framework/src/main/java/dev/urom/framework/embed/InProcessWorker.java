// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.embed;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginIdRegistry;
import dev.urom.framework.worker.PluginFailure;
import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Plugins of an {@link EmbeddedUrom} loaded and opened in this process: a worker without a worker
 * process. Made by {@link EmbeddedUrom#openInProcess}.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>One thread drives the plugins.</b> The worker has a thread of its own (a daemon thread
 *       named {@code urom-embedded-worker-<id>}) that loads, opens, calls and closes its plugins,
 *       as the plugin ABI requires (a native plugin is always called from the same thread).
 *   <li><b>Thread-safe.</b> Any thread may {@link #call}, {@link #poll} or {@link #close}; calls are
 *       run one at a time, in the order they arrive, each blocking its caller until it is
 *       answered or times out.
 *   <li><b>Answers.</b> {@link #call} sends one command (destination id 0, a fresh context) and
 *       returns the notification that answers it, whatever its status: a plugin's refusal, {@code
 *       TOO_BIG} for a command over the maximum message size, or {@code TIME_OUT} when no answer
 *       came within the call timeout. Any other notification that comes meanwhile (a second
 *       answer, a late one) is kept, in order, for {@link #poll}. The payload of a returned
 *       notification must not be changed.
 *   <li><b>Ownership.</b> The worker owns its plugins: {@link #close()} waits for the calls
 *       already queued, closes every plugin once (in reverse order of opening), stops the thread
 *       and releases the plugins' ids. Idempotent. After it, {@link #call} and {@link #poll}
 *       throw {@code BAD_STATE}. The {@link EmbeddedUrom} that opened it closes it too.
 *   <li><b>Errors.</b> A {@link UromException} with one line naming the plugin or worker: {@code
 *       NOT_FOUND} for a plugin id this worker does not hold, {@code BAD_STATE} once closed,
 *       {@code UNEXPECTED} when the caller is interrupted while it waits (its answer is then
 *       dropped) or the worker's thread fails.
 * </ul>
 */
public final class InProcessWorker implements AutoCloseable {
    /** The destination id of every command: there is no host connection to answer to. */
    public static final long DEST_ID = 0;

    private final long workerId;
    private final List<DiscoveredPlugin> plugins;
    private final Map<Long, DiscoveredPlugin> byId;
    private final ExecutorService thread;
    /** Used on {@link #thread} only. */
    private final WorkerHost host;

    private final Duration callTimeout;
    private final PluginIdRegistry.Lease lease;
    private final Consumer<InProcessWorker> onClose;
    private final AtomicLong contexts = new AtomicLong();
    private final Object lock = new Object();
    /** Guarded by lock. */
    private boolean closed;

    private InProcessWorker(
            long workerId,
            List<DiscoveredPlugin> plugins,
            ExecutorService thread,
            WorkerHost host,
            Duration callTimeout,
            PluginIdRegistry.Lease lease,
            Consumer<InProcessWorker> onClose) {
        this.workerId = workerId;
        this.plugins = plugins;
        this.byId = new LinkedHashMap<>();
        for (DiscoveredPlugin plugin : plugins) {
            byId.put(plugin.id(), plugin);
        }
        this.thread = thread;
        this.host = host;
        this.callTimeout = callTimeout;
        this.lease = lease;
        this.onClose = onClose;
    }

    /**
     * Starts the worker's thread and opens {@code plugins} on it; on failure closes what was opened
     * and stops the thread (the lease stays the caller's).
     */
    static InProcessWorker open(
            long workerId,
            List<DiscoveredPlugin> plugins,
            WorkerHostConfig config,
            Duration callTimeout,
            PluginIdRegistry.Lease lease,
            Consumer<InProcessWorker> onClose)
            throws UromException {
        List<PluginSpec> specs =
                plugins.stream().map(p -> new PluginSpec(p.path(), p.id())).toList();
        ExecutorService thread = Executors.newSingleThreadExecutor(task -> {
            Thread t = new Thread(task, "urom-embedded-worker-" + workerId);
            t.setDaemon(true);
            return t;
        });
        boolean opened = false;
        try {
            WorkerHost host = awaitUninterruptibly(
                    thread.submit(() -> WorkerHost.open(workerId, specs, PluginLoader.standard(), config)),
                    "in-process worker " + workerId + ": opening " + names(plugins));
            if (!host.failures().isEmpty()) {
                awaitUninterruptibly(
                        thread.submit(() -> {
                            host.close();
                            return null;
                        }),
                        "in-process worker " + workerId + ": closing after a failed open");
                List<PluginFailure> failures = new ArrayList<>(host.failures().values());
                throw new UromException(
                        failures.get(0).status(),
                        "in-process worker " + workerId + " cannot open "
                                + failures.stream().map(PluginFailure::toString).collect(Collectors.joining("; ")));
            }
            opened = true;
            return new InProcessWorker(workerId, plugins, thread, host, callTimeout, lease, onClose);
        } finally {
            if (!opened) {
                stop(thread);
            }
        }
    }

    /** This worker's number, unique within its {@link EmbeddedUrom}. */
    public long workerId() {
        return workerId;
    }

    /** The plugins this worker opened, in order. */
    public List<DiscoveredPlugin> plugins() {
        return plugins;
    }

    /**
     * Sends {@code payload} to the plugin with id {@code pluginId} and waits for its answer (see
     * the class comment). The payload is copied.
     *
     * @throws UromException {@code NOT_FOUND} when this worker holds no plugin with that id, {@code
     *     BAD_STATE} when it is closed
     */
    public WorkerNotification call(long pluginId, byte[] payload) throws UromException {
        requireNonNull(payload, "payload is null");
        DiscoveredPlugin plugin = byId.get(pluginId);
        if (plugin == null) {
            throw new UromException(
                    UromStatus.NOT_FOUND,
                    "plugin id " + EmbeddedUrom.formatId(pluginId) + " is not open in in-process worker " + workerId
                            + " (it holds " + names(plugins) + ")");
        }
        WorkerCommand command = new WorkerCommand(DEST_ID, pluginId, contexts.incrementAndGet(), payload.clone());
        return await(
                submit(() -> host.call(command, callTimeout).notification()),
                "in-process worker " + workerId + ": call to plugin '" + plugin.name() + "'");
    }

    /**
     * One round of progress: the notifications that came since the last call or poll and answer
     * no {@link #call} (a plugin's second or late answer), in order; empty when there are none.
     *
     * @throws UromException {@code BAD_STATE} when the worker is closed
     */
    public List<WorkerNotification> poll() throws UromException {
        return await(
                submit(() -> {
                    List<WorkerNotification> received = new ArrayList<>();
                    host.progress(answer -> received.add(answer.notification()));
                    return received;
                }),
                "in-process worker " + workerId + ": poll");
    }

    /**
     * Waits for the calls already queued, closes every plugin, stops the worker's thread and
     * releases the plugins' ids. Idempotent; an interrupt while it waits is kept for the caller.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            thread.execute(host::close);
        }
        stop(thread);
        lease.close();
        onClose.accept(this);
    }

    private <T> Future<T> submit(Callable<T> task) throws UromException {
        synchronized (lock) {
            if (!closed) {
                try {
                    return thread.submit(task);
                } catch (RejectedExecutionException e) {
                    // stopped without close(): reported as closed
                }
            }
        }
        throw new UromException(
                UromStatus.BAD_STATE, "in-process worker " + workerId + " (" + names(plugins) + ") is closed");
    }

    private static <T> T await(Future<T> future, String what) throws UromException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UromException(UromStatus.UNEXPECTED, what + ": interrupted while waiting");
        } catch (ExecutionException e) {
            throw failed(e, what);
        }
    }

    /** Waits for what must not be left half done (opening the plugins, closing them again); keeps an interrupt for the caller. */
    private static <T> T awaitUninterruptibly(Future<T> future, String what) throws UromException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw failed(e, what);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** What the worker's thread threw, as one line; an {@link Error} is thrown as it is. */
    private static UromException failed(ExecutionException e, String what) {
        Throwable cause = e.getCause();
        if (cause instanceof Error error) {
            throw error;
        }
        String message = cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage();
        return new UromException(
                UromStatus.UNEXPECTED, what + " failed: " + message.replaceAll("\\s*\\R\\s*", " "), cause);
    }

    /** Lets the thread finish what it was given, and waits for it. */
    private static void stop(ExecutorService thread) {
        thread.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (thread.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static String names(List<DiscoveredPlugin> plugins) {
        return plugins.stream()
                .map(p -> "'" + p.name() + "' " + EmbeddedUrom.formatId(p.id()))
                .collect(Collectors.joining(", "));
    }
}
