// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's {@code /metrics} end to end: a real daemon process with {@code --http-port 0}, real
 * workers, a known workload through the host API, then scrapes whose counts must match what the
 * workload did, while the workers run and after they have ended (normally, by crashing, killed),
 * and under the load of concurrent hosts.
 */
class MetricsEndToEndTest {
    private static final long SECONDS = ServiceHarness.LIMIT.toSeconds();
    private static final int LOAD_HOSTS = 2;
    private static final int COMMANDS_PER_WORKER = 2000;
    private static final int IN_FLIGHT = 16;
    private static final String COMMANDS = "urom_commands_total";
    private static final String NOTIFICATIONS = "urom_notifications_total";

    /** What the hosts counted of one plugin: commands written, SUCCESS answers, every answer. */
    private record Counts(AtomicLong sent, AtomicLong succeeded, AtomicLong answers) {
        Counts() {
            this(new AtomicLong(), new AtomicLong(), new AtomicLong());
        }
    }

    @Test
    void scrapedCountsMatchTheWorkload(@TempDir Path dir) throws Exception {
        try (ServiceHarness daemon = ServiceHarness.start(dir, Map.of(), "--http-port", "0");
                UromService service = UromService.connect(daemon.address)) {
            String url = metricsUrl(daemon);
            Map<String, Long> ids = new java.util.HashMap<>();
            for (Plugin plugin : service.plugins()) {
                ids.put(plugin.info().name(), plugin.info().id());
            }
            long graph = ids.get("worker_graph");
            long javaGraph = ids.get("worker_graph_java");
            long fixture = ids.get("service_fixture");
            List<ProcessHandle> before = new ArrayList<>();

            PrometheusScrape idle = PrometheusScrape.of(url);
            assertThat(idle.contentType()).startsWith("text/plain; version=0.0.4");
            assertThat(idle.value("urom_plugins", "state", "accepted")).isEqualTo(3);
            assertThat(idle.value("urom_plugins", "state", "rejected")).isZero();
            assertThat(idle.value("urom_workers", "state", "running")).isZero();
            assertThat(idle.all("urom_commands_total")).isEmpty();

            // A start the daemon refuses, then one worker with every plugin.
            Worker refused =
                    service.newWorker().plugins(graph).env("LD_PRELOAD=/x.so").build();
            assertThat(startFailure(refused)).isEqualTo(UromStatus.NOT_PERMITTED);
            Worker worker = service.newWorker()
                    .id(3)
                    .plugins(graph | javaGraph | fixture)
                    .build();
            worker.start().get(SECONDS, TimeUnit.SECONDS);
            before.addAll(daemon.workers());

            for (int i = 0; i < 5; i++) {
                assertThat(await(GraphClient.loopback(worker, graph, i))).isEqualTo(i);
            }
            for (int i = 0; i < 3; i++) {
                assertThat(await(GraphClient.loopback(worker, javaGraph, i))).isEqualTo(i);
            }
            for (int i = 0; i < 2; i++) {
                assertThat(notification(worker.submit(graph, new byte[3])).status())
                        .isEqualTo(UromStatus.INVALID_VALUE);
            }
            assertThat(notification(worker.submit(1L << 40, new byte[1])).status())
                    .isEqualTo(UromStatus.NOT_FOUND);
            try (SocketChannel raw =
                    ServiceAddress.parse(daemon.workerAddress(worker.id())).connect()) {
                raw.write(ByteBuffer.wrap(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f, 1, 2, 3, 4}));
                awaitClosed(raw);
            }

            PrometheusScrape running = PrometheusScrape.of(url);
            assertThat(running.value("urom_workers", "state", "running")).isEqualTo(1);
            assertThat(running.value("urom_worker_starts_total", "outcome", "started", "status", "SUCCESS"))
                    .isEqualTo(1);
            assertThat(running.value("urom_worker_starts_total", "outcome", "refused", "status", "NOT_PERMITTED"))
                    .isEqualTo(1);
            assertThat(running.value("urom_commands_total", "plugin", "worker_graph"))
                    .isEqualTo(7);
            assertThat(running.value("urom_notifications_total", "plugin", "worker_graph", "status", "SUCCESS"))
                    .isEqualTo(5);
            assertThat(running.value("urom_notifications_total", "plugin", "worker_graph", "status", "INVALID_VALUE"))
                    .isEqualTo(2);
            assertThat(running.value("urom_commands_total", "plugin", "worker_graph_java"))
                    .isEqualTo(3);
            assertThat(running.value("urom_notifications_total", "plugin", "worker_graph_java", "status", "SUCCESS"))
                    .isEqualTo(3);
            assertThat(running.value("urom_commands_total", "plugin", "unknown"))
                    .isEqualTo(1);
            assertThat(running.value("urom_notifications_total", "plugin", "unknown", "status", "NOT_FOUND"))
                    .isEqualTo(1);
            assertThat(running.value("urom_command_duration_seconds_count", "plugin", "worker_graph"))
                    .isEqualTo(7);
            assertThat(running.value("urom_command_duration_seconds_bucket", "plugin", "worker_graph", "le", "+Inf"))
                    .isEqualTo(7);
            assertThat(running.value("urom_command_duration_seconds_sum", "plugin", "worker_graph"))
                    .isPositive();
            assertThat(running.value("urom_command_duration_seconds_count", "plugin", "worker_graph_java"))
                    .isEqualTo(3);
            assertThat(running.value("urom_host_connections_total")).isEqualTo(2);
            assertThat(running.value("urom_host_connections_refused_total")).isEqualTo(1);
            assertThat(running.value("urom_host_connections_open")).isEqualTo(1);
            assertThat(running.value("urom_control_connections_total")).isGreaterThanOrEqualTo(1);
            assertThat(running.value("urom_control_connections_open")).isGreaterThanOrEqualTo(1);
            assertThat(running.value("urom_worker_stats_timeouts_total")).isZero();

            // A second host joins the worker; then both stop and the worker ends normally.
            try (UromService other = UromService.connect(daemon.address)) {
                Worker joined = other.newWorker().id(3).plugins(graph).build();
                joined.start().get(SECONDS, TimeUnit.SECONDS);
                assertThat(await(GraphClient.loopback(joined, graph, 42))).isEqualTo(42);
                joined.stop().get(SECONDS, TimeUnit.SECONDS);
            }
            worker.stop().get(SECONDS, TimeUnit.SECONDS);
            ServiceHarness.awaitExit(before);
            PrometheusScrape ended =
                    awaitScrape(url, s -> s.value("urom_worker_exits_total", "cause", "normal", "signal", "none") == 1);
            assertThat(ended.value("urom_worker_starts_total", "outcome", "joined", "status", "SUCCESS"))
                    .isEqualTo(1);
            assertThat(ended.value("urom_workers", "state", "running")).isZero();
            assertThat(ended.value("urom_commands_total", "plugin", "worker_graph"))
                    .as("the final counts of an ended worker stay")
                    .isEqualTo(8);
            assertThat(ended.value("urom_commands_total", "plugin", "worker_graph_java"))
                    .isEqualTo(3);
            assertThat(ended.value("urom_host_connections_total")).isEqualTo(3);
            assertThat(ended.value("urom_host_connections_open")).isZero();

            // A worker that crashes keeps the counts of the last scrape; one killed by SIGKILL is a signal exit.
            Worker doomed = service.newWorker().id(4).plugins(fixture).build();
            doomed.start().get(SECONDS, TimeUnit.SECONDS);
            List<ProcessHandle> doomedProcess = daemon.workers();
            Worker killed = service.newWorker().id(5).plugins(graph).build();
            killed.start().get(SECONDS, TimeUnit.SECONDS);
            List<ProcessHandle> pair = daemon.workers();
            ProcessHandle victim = pair.stream()
                    .filter(p -> !doomedProcess.contains(p))
                    .findFirst()
                    .orElseThrow();
            for (int i = 0; i < 2; i++) {
                assertThat(notification(doomed.submit(fixture, new byte[] {'e'}))
                                .status())
                        .isEqualTo(UromStatus.SUCCESS);
            }
            assertThat(PrometheusScrape.of(url).value("urom_commands_total", "plugin", "service_fixture"))
                    .isEqualTo(2);
            assertThat(notification(doomed.submit(fixture, new byte[] {'c'})).status())
                    .isEqualTo(UromStatus.CONNECTION_RESET);
            victim.destroyForcibly();
            ServiceHarness.awaitExit(pair);
            PrometheusScrape after = awaitScrape(
                    url,
                    s -> s.value("urom_worker_exits_total", "cause", "crash", "signal", "SIGSEGV") == 1
                            && s.value("urom_worker_exits_total", "cause", "signal", "signal", "SIGKILL") == 1);
            assertThat(after.value("urom_commands_total", "plugin", "service_fixture"))
                    .isEqualTo(2);
            assertThat(after.value("urom_commands_total", "plugin", "worker_graph"))
                    .isEqualTo(8);
            assertThat(after.value("urom_worker_exits_total", "cause", "normal", "signal", "none"))
                    .isEqualTo(1);
            assertThat(after.value("urom_workers", "state", "running")).isZero();
            assertThat(after.value("urom_worker_starts_total", "outcome", "started", "status", "SUCCESS"))
                    .isEqualTo(3);
            killed.close();
            doomed.close();
        }
    }

    /**
     * Two host connections, each with a worker of the C and one of the Java graph plugin, send
     * LOOPBACKs all at once with many in flight; the scrapes must count exactly what they did, while
     * the workers run and after they have all ended:
     *
     * <ul>
     *   <li>per plugin, the commands received and the SUCCESS notifications, against the hosts' sent
     *       commands and SUCCESS answers;
     *   <li>over every plugin and status, the commands and the notifications, against the hosts'
     *       totals (a stray or doubled one shows there);
     *   <li>the workers started.
     * </ul>
     */
    @Test
    void countsOfConcurrentHostsAreExact(@TempDir Path dir) throws Exception {
        try (ServiceHarness daemon = ServiceHarness.start(dir, Map.of(), "--http-port", "0")) {
            String url = metricsUrl(daemon);
            List<UromService> hosts = new ArrayList<>();
            List<Worker> workers = new ArrayList<>();
            Map<Worker, String> pluginOf = new HashMap<>();
            Map<String, Long> ids = new HashMap<>();
            Map<String, Counts> counts = new LinkedHashMap<>();
            try {
                for (int h = 0; h < LOAD_HOSTS; h++) {
                    UromService host = UromService.connect(daemon.address);
                    hosts.add(host);
                    for (Plugin plugin : host.plugins()) {
                        ids.put(plugin.info().name(), plugin.info().id());
                    }
                    for (String plugin : List.of("worker_graph", "worker_graph_java")) {
                        Worker worker = host.newWorker()
                                .id(10L * (h + 1) + workers.size())
                                .plugins(ids.get(plugin))
                                .build();
                        worker.start().get(SECONDS, TimeUnit.SECONDS);
                        workers.add(worker);
                        pluginOf.put(worker, plugin);
                        counts.putIfAbsent(plugin, new Counts());
                    }
                }
                List<ProcessHandle> processes = daemon.workers();
                assertThat(processes).hasSize(workers.size());

                ExecutorService senders = Executors.newFixedThreadPool(workers.size());
                try {
                    List<Future<?>> done = new ArrayList<>();
                    for (Worker worker : workers) {
                        String plugin = pluginOf.get(worker);
                        done.add(senders.submit(() -> send(worker, ids.get(plugin), counts.get(plugin))));
                    }
                    for (Future<?> sender : done) {
                        sender.get(SECONDS, TimeUnit.SECONDS);
                    }
                } finally {
                    senders.shutdownNow();
                }
                counts.forEach((plugin, c) -> assertThat(c.succeeded())
                        .as("%s answered with SUCCESS", plugin)
                        .hasValue((long) LOAD_HOSTS * COMMANDS_PER_WORKER));

                assertCounted(
                        awaitScrape(url, s -> sum(s, COMMANDS) >= total(counts, Counts::sent)), counts, workers.size());

                for (Worker worker : workers) {
                    worker.stop().get(SECONDS, TimeUnit.SECONDS);
                }
                ServiceHarness.awaitExit(processes);
                assertCounted(
                        awaitScrape(url, s -> sum(s, "urom_worker_exits_total") >= workers.size()),
                        counts,
                        workers.size());
            } finally {
                workers.forEach(Worker::close);
                for (UromService host : hosts) {
                    host.close();
                }
            }
        }
    }

    /** Sends {@value #COMMANDS_PER_WORKER} LOOPBACKs through {@code plugin} of {@code worker}, {@value #IN_FLIGHT} in flight. */
    private static Void send(Worker worker, long plugin, Counts counts) throws Exception {
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        for (long value = 0; value < COMMANDS_PER_WORKER; value++) {
            inFlight.acquire();
            long sent = value;
            counts.sent().incrementAndGet();
            worker.submit(plugin, GraphClient.loopbackCommand(sent))
                    .whenComplete((Notification answer, Throwable failure) -> {
                        if (answer != null) {
                            counts.answers().incrementAndGet();
                            if (answer.status().isSuccess()) {
                                counts.succeeded().incrementAndGet();
                            }
                        }
                        inFlight.release();
                    });
        }
        if (!inFlight.tryAcquire(IN_FLIGHT, SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("LOOPBACKs still unanswered after " + SECONDS + " s");
        }
        return null;
    }

    private static void assertCounted(PrometheusScrape scrape, Map<String, Counts> counts, int workers) {
        counts.forEach((plugin, c) -> {
            assertThat(scrape.value(COMMANDS, "plugin", plugin))
                    .as("%s{plugin=%s}", COMMANDS, plugin)
                    .isEqualTo(c.sent().get());
            assertThat(scrape.value(NOTIFICATIONS, "plugin", plugin, "status", "SUCCESS"))
                    .as("%s{plugin=%s,status=SUCCESS}", NOTIFICATIONS, plugin)
                    .isEqualTo(c.succeeded().get());
        });
        assertThat(sum(scrape, COMMANDS)).as("%s, every plugin", COMMANDS).isEqualTo(total(counts, Counts::sent));
        assertThat(sum(scrape, NOTIFICATIONS))
                .as("%s, every plugin and status", NOTIFICATIONS)
                .isEqualTo(total(counts, Counts::answers));
        assertThat(scrape.value("urom_worker_starts_total", "outcome", "started", "status", "SUCCESS"))
                .isEqualTo(workers);
    }

    private static double sum(PrometheusScrape scrape, String name) {
        return scrape.all(name).stream()
                .mapToDouble(PrometheusScrape.Sample::value)
                .sum();
    }

    private static double total(Map<String, Counts> counts, Function<Counts, AtomicLong> count) {
        return counts.values().stream().mapToLong(c -> count.apply(c).get()).sum();
    }

    private static String metricsUrl(ServiceHarness daemon) {
        String line = daemon.output().stream()
                .filter(l -> l.contains("health and metrics: http://"))
                .findFirst()
                .orElseThrow(
                        () -> new AssertionError("the daemon did not say where it serves HTTP: " + daemon.output()));
        return line.substring(line.indexOf("http://"), line.lastIndexOf(')')) + "/metrics";
    }

    /** Scrapes until {@code done} holds: exits are counted when the daemon reaps a process, just after it has gone. */
    private static PrometheusScrape awaitScrape(String url, Predicate<PrometheusScrape> done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        PrometheusScrape scrape = PrometheusScrape.of(url);
        while (!done.test(scrape)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the metrics never matched; last scrape: " + scrape.samples());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            scrape = PrometheusScrape.of(url);
        }
        return scrape;
    }

    private static long await(CompletableFuture<Long> value) throws Exception {
        return value.get(SECONDS, TimeUnit.SECONDS);
    }

    private static Notification notification(CompletableFuture<Notification> answer) throws Exception {
        return answer.get(SECONDS, TimeUnit.SECONDS);
    }

    private static UromStatus startFailure(Worker worker) throws Exception {
        try {
            worker.start().get(SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return ((dev.urom.spi.UromException) e.getCause()).status();
        }
        throw new AssertionError("the start was not refused");
    }

    /** Reads until the worker closes the connection (the read is blocking; the wait has the usual limit). */
    private static void awaitClosed(SocketChannel raw) throws Exception {
        CompletableFuture.runAsync(() -> {
                    ByteBuffer sink = ByteBuffer.allocate(4096);
                    try {
                        while (raw.read(sink) >= 0) {
                            sink.clear();
                        }
                    } catch (java.io.IOException e) {
                        // closed with a reset: closed all the same
                    }
                })
                .get(SECONDS, TimeUnit.SECONDS);
    }
}
