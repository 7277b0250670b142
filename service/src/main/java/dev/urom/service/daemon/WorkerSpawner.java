// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Starts worker processes, all from one long-lived thread: a worker asks the kernel for SIGKILL
 * when its parent dies ({@code PR_SET_PDEATHSIG}), and Linux ties that to the thread that forked
 * it, so the forking thread must live as long as the daemon.
 *
 * <p>Thread-safe. The child gets stdin, stdout and stderr as pipes (the daemon keeps stdin open
 * while it lives; the worker writes its status line on stdout, its log on stderr).
 */
final class WorkerSpawner implements AutoCloseable {
    private final ExecutorService thread =
            Executors.newSingleThreadExecutor(DaemonThreads.named("urom-worker-spawner"));

    /**
     * Starts {@code command} with exactly the environment {@code env} (nothing of the daemon's own),
     * and hands the process to {@code started} on the spawning thread before anything else may
     * happen to it.
     *
     * @throws IOException when the process cannot be started, or the spawner is closed
     */
    Process spawn(List<String> command, Map<String, String> env, Consumer<Process> started) throws IOException {
        Future<Process> result;
        try {
            result = thread.submit(() -> {
                ProcessBuilder builder = new ProcessBuilder(command)
                        .redirectInput(ProcessBuilder.Redirect.PIPE)
                        .redirectOutput(ProcessBuilder.Redirect.PIPE)
                        .redirectError(ProcessBuilder.Redirect.PIPE);
                builder.environment().clear();
                builder.environment().putAll(env);
                Process process = builder.start();
                started.accept(process);
                return process;
            });
        } catch (RejectedExecutionException e) {
            throw new IOException("the daemon is shutting down");
        }
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting a worker");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(String.valueOf(cause.getMessage()), cause);
        }
    }

    /** Refuses new spawns and waits for the one in progress. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
