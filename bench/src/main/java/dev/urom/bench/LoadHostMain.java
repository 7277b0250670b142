// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.host.Notification;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.spi.UromException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * One host process of {@link LoadBench}: {@code LoadHostMain ADDRESS HOST WORKERS COMMANDS IN_FLIGHT}.
 * It connects to the daemon at {@code ADDRESS}, starts {@code WORKERS} workers one after the other
 * (each with one graph plugin, as {@link LoadOptions#runsNativePlugin} says) and prints {@code
 * STARTED}; at a line {@code GO} on its stdin it sends {@code COMMANDS} LOOPBACKs to every worker
 * at once, {@code IN_FLIGHT} outstanding on each, each answer sending the next, and prints {@code
 * RESULT <json>} ({@link LoadTally}) when every answer is in, or when {@value #STALL_SECONDS} s
 * pass without any answer on a worker. At EOF on its stdin it stops its workers and ends (exit 0).
 *
 * <p>A command's value is unique in the run (host, worker and number), so an answer carrying
 * another command's bytes is told apart from its own. When it cannot start, it prints {@code FAILED
 * <one line>} and ends with status 1; 2 on a usage error.
 */
public final class LoadHostMain {
    static final long STALL_SECONDS = 60;
    private static final long START_SECONDS = 120;

    private LoadHostMain() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        String address;
        int host;
        int workers;
        int commands;
        int inFlight;
        try {
            BenchCommand.Parsed line = new BenchCommand(
                            "LoadHostMain", "usage: LoadHostMain ADDRESS HOST WORKERS COMMANDS IN_FLIGHT")
                    .parameter("ADDRESS", Function.identity())
                    .parameter("HOST", value -> BenchCommand.count("HOST", value, 0, LoadOptions.MAX_HOSTS - 1))
                    .parameter(
                            "WORKERS",
                            value -> BenchCommand.count("WORKERS", value, 1, LoadOptions.MAX_WORKERS_PER_HOST))
                    .parameter("COMMANDS", value -> BenchCommand.count("COMMANDS", value, 1, LoadOptions.MAX_COMMANDS))
                    .parameter(
                            "IN_FLIGHT", value -> BenchCommand.count("IN_FLIGHT", value, 1, LoadOptions.MAX_IN_FLIGHT))
                    .parse(List.of(args));
            address = line.parameter(0);
            host = line.parameter(1);
            workers = line.parameter(2);
            commands = line.parameter(3);
            inFlight = line.parameter(4);
        } catch (IllegalArgumentException e) {
            System.err.println("LoadHostMain: " + e.getMessage());
            System.exit(2);
            return;
        }
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int status = 0;
        try (UromService service = UromService.connect(address)) {
            long nativeId = ServiceBench.pluginId(service.plugins(), ServiceBench.NATIVE_PLUGIN_NAME);
            long javaId = ServiceBench.pluginId(service.plugins(), ServiceBench.JAVA_PLUGIN_NAME);
            List<Traffic> traffic = new ArrayList<>();
            try {
                for (int w = 0; w < workers; w++) {
                    boolean isNative = LoadOptions.runsNativePlugin(host, w);
                    Worker worker = start(
                            service.newWorker()
                                    .plugins(isNative ? nativeId : javaId)
                                    .maxInflight(Integer.highestOneBit(inFlight * 2 - 1))
                                    .build(),
                            host,
                            w);
                    traffic.add(new Traffic(
                            worker,
                            isNative ? nativeId : javaId,
                            isNative ? ServiceBench.NATIVE_PLUGIN_NAME : ServiceBench.JAVA_PLUGIN_NAME,
                            host,
                            w,
                            commands,
                            inFlight));
                }
                say("STARTED");
                if ("GO".equals(stdin.readLine())) {
                    long began = System.nanoTime();
                    traffic.forEach(Traffic::begin);
                    for (Traffic t : traffic) {
                        t.awaitDone();
                    }
                    long elapsed = System.nanoTime() - began;
                    say("RESULT "
                            + new LoadTally(
                                            host,
                                            elapsed,
                                            traffic.stream().map(Traffic::tally).toList())
                                    .json());
                    while (stdin.readLine() != null) {
                        // only EOF matters
                    }
                }
            } finally {
                traffic.forEach(t -> t.worker.close());
            }
        } catch (UromException e) {
            say("FAILED host " + host + ": " + e.status() + ": " + e.getMessage());
            status = 1;
        } catch (IllegalStateException e) {
            say("FAILED host " + host + ": " + e.getMessage());
            status = 1;
        }
        System.exit(status);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static Worker start(Worker worker, int host, int index) throws UromException, InterruptedException {
        try {
            return worker.start().get(START_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            worker.close();
            if (e.getCause() instanceof UromException u) {
                throw u;
            }
            throw new IllegalStateException("worker " + index + " did not start: " + e.getCause());
        } catch (TimeoutException e) {
            worker.close();
            throw new IllegalStateException("worker " + index + " did not start within " + START_SECONDS + " s");
        }
    }

    /** The value of command {@code number} of worker {@code worker} of host {@code host}: unique in the run. */
    static long value(int host, int worker, long number) {
        return ((long) (host + 1) << 48) | ((long) worker << 32) | number;
    }

    /**
     * One worker's LOOPBACKs and what came back. Answers arrive on the connection's reader thread,
     * which also sends the next command; the counts are guarded by this object's lock.
     */
    static final class Traffic {
        private final Worker worker;
        private final long pluginId;
        private final String plugin;
        private final int host;
        private final int index;
        private final int commands;
        private final int inFlight;
        private final LatencyHistogram latency = new LatencyHistogram();
        private final CountDownLatch done = new CountDownLatch(1);
        private int sent;
        private int owed;
        private boolean sending;
        private long answered;
        private long wrong;
        private long failed;
        private String firstProblem;
        private long beganNs;
        private long lastAnswerNs;
        private boolean gaveUp;

        Traffic(Worker worker, long pluginId, String plugin, int host, int index, int commands, int inFlight) {
            this.worker = worker;
            this.pluginId = pluginId;
            this.plugin = plugin;
            this.host = host;
            this.index = index;
            this.commands = commands;
            this.inFlight = inFlight;
        }

        void begin() {
            synchronized (this) {
                beganNs = System.nanoTime();
                lastAnswerNs = beganNs;
            }
            for (int i = 0; i < Math.min(inFlight, commands); i++) {
                release();
            }
        }

        /**
         * A slot for one more command: the thread that is not already sending here sends while
         * slots are owed, so that answers that complete at once (a worker gone) do not nest.
         */
        private void release() {
            synchronized (this) {
                owed++;
                if (sending) {
                    return;
                }
                sending = true;
            }
            while (true) {
                int number;
                synchronized (this) {
                    if (owed == 0 || gaveUp || sent >= commands) {
                        sending = false;
                        return;
                    }
                    owed--;
                    number = sent++;
                }
                long expected = value(host, index, number);
                long began = System.nanoTime();
                worker.submit(pluginId, GraphClient.loopbackCommand(expected)).whenComplete((answer, error) -> {
                    settle(expected, answer, error, System.nanoTime() - began);
                    release();
                });
            }
        }

        private synchronized void settle(long expected, Notification answer, Throwable error, long tookNs) {
            lastAnswerNs = System.nanoTime();
            if (error != null || !answer.isSuccess()) {
                failed++;
                problem("LOOPBACK of " + expected + " failed: "
                        + (error != null ? error.toString() : answer.status() + " " + answer.reason()));
            } else if (echoed(answer.payload()) != expected) {
                wrong++;
                problem("LOOPBACK of " + expected + " came back as " + describe(answer.payload()));
            } else {
                answered++;
                latency.record(tookNs);
            }
            if (answered + wrong + failed == commands) {
                done.countDown();
            }
        }

        /** The value a LOOPBACK answer carries, or -1 for bytes that are no LOOPBACK answer (no command's value is negative). */
        static long echoed(byte[] payload) {
            if (payload.length != GraphClient.MESSAGE_BYTES) {
                return -1;
            }
            ByteBuffer in = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
            return in.getLong() == GraphClient.LOOPBACK ? in.getLong() : -1;
        }

        private static String describe(byte[] payload) {
            long value = echoed(payload);
            return value >= 0 ? Long.toString(value) : payload.length + " bytes that are no LOOPBACK answer";
        }

        private void problem(String line) {
            if (firstProblem == null) {
                firstProblem = line;
            }
        }

        /** Waits until every answer is in, or until {@value #STALL_SECONDS} s pass without one. */
        void awaitDone() throws InterruptedException {
            while (!done.await(1, TimeUnit.SECONDS)) {
                synchronized (this) {
                    if (System.nanoTime() - lastAnswerNs > TimeUnit.SECONDS.toNanos(STALL_SECONDS)) {
                        gaveUp = true;
                        problem("no answer for " + STALL_SECONDS + " s");
                        return;
                    }
                }
            }
        }

        synchronized LoadTally.Worker tally() {
            return new LoadTally.Worker(
                    index,
                    plugin,
                    commands,
                    sent,
                    answered,
                    wrong,
                    failed,
                    sent - answered - wrong - failed,
                    firstProblem,
                    lastAnswerNs - beganNs,
                    latency.data());
        }
    }
}
