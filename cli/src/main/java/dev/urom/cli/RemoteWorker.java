// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.spi.UromException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * One worker of a running daemon, started or joined for one command line: resolves a plugin by
 * name or id, starts (or joins) a worker with it, sends commands, and stops the worker connection
 * on close. Not thread-safe.
 */
final class RemoteWorker implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final UromService service;
    private final Worker worker;
    private final Plugin plugin;

    private RemoteWorker(UromService service, Worker worker, Plugin plugin) {
        this.service = service;
        this.worker = worker;
        this.plugin = plugin;
    }

    /**
     * Connects, finds the plugin and starts or joins a worker that has it.
     *
     * @param pluginRef a plugin name, or its id in decimal or 0x hex
     * @param workerId the worker to start or join; null for any
     * @throws CliFailure with one line saying what failed
     */
    static RemoteWorker open(ServiceOptions options, String pluginRef, Long workerId) {
        UromService service = options.connect();
        try {
            Plugin plugin = find(service.plugins(), pluginRef);
            var builder = service.newWorker().plugins(plugin.info().id());
            if (workerId != null) {
                builder.id(workerId);
            }
            Worker worker = builder.build();
            await(
                    worker.start(),
                    "starting a worker with plugin " + plugin.info().name());
            return new RemoteWorker(service, worker, plugin);
        } catch (RuntimeException e) {
            service.close();
            throw e;
        } catch (UromException e) {
            service.close();
            throw new CliFailure(e.getMessage());
        }
    }

    private static Plugin find(List<Plugin> plugins, String ref) {
        for (Plugin plugin : plugins) {
            if (plugin.info().name().equals(ref)) {
                return plugin;
            }
        }
        Long id = parseId(ref);
        if (id != null) {
            for (Plugin plugin : plugins) {
                if (plugin.info().id() == id) {
                    return plugin;
                }
            }
        }
        String names = plugins.stream()
                .map(p -> p.info().name() + " (0x" + Long.toHexString(p.info().id()) + ")")
                .collect(Collectors.joining(", "));
        throw new CliFailure(
                "the service has no plugin '" + ref + "' (it has: " + (names.isEmpty() ? "none" : names) + ")");
    }

    private static Long parseId(String ref) {
        try {
            return ref.startsWith("0x") || ref.startsWith("0X")
                    ? Long.parseUnsignedLong(ref.substring(2), 16)
                    : Long.parseUnsignedLong(ref);
        } catch (NumberFormatException notAnId) {
            return null;
        }
    }

    Plugin plugin() {
        return plugin;
    }

    Worker worker() {
        return worker;
    }

    Notification send(byte[] payload) {
        return await(
                worker.submit(plugin.info().id(), payload),
                "waiting for " + plugin.info().name() + "'s answer");
    }

    static <T> T await(java.util.concurrent.CompletableFuture<T> future, String what) {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new CliFailure(what + ": "
                    + (cause instanceof UromException u ? u.status() + ": " + u.getMessage() : cause.toString()));
        } catch (TimeoutException e) {
            throw new CliFailure(what + ": no answer within " + TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(what + ": interrupted");
        }
    }

    @Override
    public void close() {
        try {
            worker.close();
        } finally {
            service.close();
        }
    }
}
