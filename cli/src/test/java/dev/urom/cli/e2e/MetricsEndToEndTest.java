// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.host.Notification;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.ServicePlugin;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's {@code /metrics} end to end: a real daemon process with {@code --http-port 0}, real
 * workers, a known workload through the host API, then scrapes whose counts must match what the
 * workload did, while the workers run and after they have ended (normally, by crashing, killed).
 */
class MetricsEndToEndTest {
    private static final long SECONDS = ServiceHarness.LIMIT.toSeconds();

    @Test
    void scrapedCountsMatchTheWorkload(@TempDir Path dir) throws Exception {
        try (ServiceHarness daemon = ServiceHarness.start(dir, Map.of(), "--http-port", "0");
                UromService service = UromService.connect(daemon.address)) {
            String url = metricsUrl(daemon);
            Map<String, Long> ids = new java.util.HashMap<>();
            for (ServicePlugin plugin : service.plugins()) {
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
            Worker refused = service.newWorker().plugins(graph).env("LD_PRELOAD=/x.so").build();
            assertThat(startFailure(refused)).isEqualTo(UromStatus.NOT_PERMITTED);
            Worker worker = service.newWorker().id(3).plugins(graph | javaGraph | fixture).build();
            worker.start().get(SECONDS, TimeUnit.SECONDS);
            before.addAll(daemon.workers());

            for (int i = 0; i < 5; i++) {
                assertThat(await(GraphClient.loopback(worker, graph, i))).isEqualTo(i);
            }
            for (int i = 0; i < 3; i++) {
                assertThat(await(GraphClient.loopback(worker, javaGraph, i))).isEqualTo(i);
            }
            for (int i = 0; i < 2; i++) {
                assertThat(notification(worker.submit(graph, new byte[3])).status()).isEqualTo(UromStatus.INVALID_VALUE);
            }
            assertThat(notification(worker.submit(1L << 40, new byte[1])).status()).isEqualTo(UromStatus.NOT_FOUND);
            try (SocketChannel raw = ServiceAddress.parse(daemon.workerAddress(worker.id())).connect()) {
                raw.write(ByteBuffer.wrap(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f, 1, 2, 3, 4}));
                awaitClosed(raw);
            }

            PrometheusScrape running = PrometheusScrape.of(url);
            assertThat(running.value("urom_workers", "state", "running")).isEqualTo(1);
            assertThat(running.value("urom_worker_starts_total", "outcome", "started", "status", "SUCCESS")).isEqualTo(1);
            assertThat(running.value("urom_worker_starts_total", "outcome", "refused", "status", "NOT_PERMITTED")).isEqualTo(1);
            assertThat(running.value("urom_commands_total", "plugin", "worker_graph")).isEqualTo(7);
            assertThat(running.value("urom_notifications_total", "plugin", "worker_graph", "status", "SUCCESS")).isEqualTo(5);
            assertThat(running.value("urom_notifications_total", "plugin", "worker_graph", "status", "INVALID_VALUE")).isEqualTo(2);
            assertThat(running.value("urom_commands_total", "plugin", "worker_graph_java")).isEqualTo(3);
            assertThat(running.value("urom_notifications_total", "plugin", "worker_graph_java", "status", "SUCCESS")).isEqualTo(3);
            assertThat(running.value("urom_commands_total", "plugin", "unknown")).isEqualTo(1);
            assertThat(running.value("urom_notifications_total", "plugin", "unknown", "status", "NOT_FOUND")).isEqualTo(1);
            assertThat(running.value("urom_command_duration_seconds_count", "plugin", "worker_graph")).isEqualTo(7);
            assertThat(running.value("urom_command_duration_seconds_bucket", "plugin", "worker_graph", "le", "+Inf")).isEqualTo(7);
            assertThat(running.value("urom_command_duration_seconds_sum", "plugin", "worker_graph")).isPositive();
            assertThat(running.value("urom_command_duration_seconds_count", "plugin", "worker_graph_java")).isEqualTo(3);
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
            PrometheusScrape ended = awaitScrape(url, s -> s.value("urom_worker_exits_total", "cause", "normal", "signal", "none") == 1);
            assertThat(ended.value("urom_worker_starts_total", "outcome", "joined", "status", "SUCCESS")).isEqualTo(1);
            assertThat(ended.value("urom_workers", "state", "running")).isZero();
            assertThat(ended.value("urom_commands_total", "plugin", "worker_graph")).as("the final counts of an ended worker stay").isEqualTo(8);
            assertThat(ended.value("urom_commands_total", "plugin", "worker_graph_java")).isEqualTo(3);
            assertThat(ended.value("urom_host_connections_total")).isEqualTo(3);
            assertThat(ended.value("urom_host_connections_open")).isZero();

            // A worker that crashes keeps the counts of the last scrape; one killed by SIGKILL is a signal exit.
            Worker doomed = service.newWorker().id(4).plugins(fixture).build();
            doomed.start().get(SECONDS, TimeUnit.SECONDS);
            List<ProcessHandle> doomedProcess = daemon.workers();
            Worker killed = service.newWorker().id(5).plugins(graph).build();
            killed.start().get(SECONDS, TimeUnit.SECONDS);
            List<ProcessHandle> pair = daemon.workers();
            ProcessHandle victim = pair.stream().filter(p -> !doomedProcess.contains(p)).findFirst().orElseThrow();
            for (int i = 0; i < 2; i++) {
                assertThat(notification(doomed.submit(fixture, new byte[] {'e'})).status()).isEqualTo(UromStatus.SUCCESS);
            }
            assertThat(PrometheusScrape.of(url).value("urom_commands_total", "plugin", "service_fixture")).isEqualTo(2);
            assertThat(notification(doomed.submit(fixture, new byte[] {'c'})).status()).isEqualTo(UromStatus.CONNECTION_RESET);
            victim.destroyForcibly();
            ServiceHarness.awaitExit(pair);
            PrometheusScrape after = awaitScrape(url, s -> s.value("urom_worker_exits_total", "cause", "crash", "signal", "SIGSEGV") == 1
                    && s.value("urom_worker_exits_total", "cause", "signal", "signal", "SIGKILL") == 1);
            assertThat(after.value("urom_commands_total", "plugin", "service_fixture")).isEqualTo(2);
            assertThat(after.value("urom_commands_total", "plugin", "worker_graph")).isEqualTo(8);
            assertThat(after.value("urom_worker_exits_total", "cause", "normal", "signal", "none")).isEqualTo(1);
            assertThat(after.value("urom_workers", "state", "running")).isZero();
            assertThat(after.value("urom_worker_starts_total", "outcome", "started", "status", "SUCCESS")).isEqualTo(3);
            killed.close();
            doomed.close();
        }
    }

    private static String metricsUrl(ServiceHarness daemon) {
        String line = daemon.output().stream().filter(l -> l.contains("health and metrics: http://")).findFirst().orElseThrow(
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
        }).get(SECONDS, TimeUnit.SECONDS);
    }
}
