// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.host.UromService;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP endpoint (health, readiness, metrics) of a real daemon, over real HTTP on loopback. The
 * module's test JVM sets the JDK server's read timeout to {@value #READ_TIMEOUT_SECONDS} s (see
 * the module's pom) and leaves the write timeout to the endpoint.
 */
class HttpEndpointTest {
    private static final long READ_TIMEOUT_SECONDS = 2;
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(PATIENCE).build();
    private final List<Socket> slowClients = new ArrayList<>();

    @AfterEach
    void closeSlowClients() throws IOException {
        for (Socket socket : slowClients) {
            socket.close();
        }
    }

    private HttpResponse<String> get(HttpEndpoint endpoint, String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + endpoint.address().getPort() + path);
        return http.send(
                HttpRequest.newBuilder(uri).timeout(PATIENCE).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A client that connects, sends the first byte of a request and nothing more. */
    private Socket slowClient(HttpEndpoint endpoint) throws IOException {
        Socket socket =
                new Socket(InetAddress.getLoopbackAddress(), endpoint.address().getPort());
        slowClients.add(socket);
        socket.getOutputStream().write('G');
        socket.getOutputStream().flush();
        return socket;
    }

    /** The endpoint's threads now serving a request (an idle one waits for work, a busy one reads or runs). */
    private static long busyHttpThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("urom-daemon-http-") && t.getState() == Thread.State.RUNNABLE)
                .count();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }

    private static DaemonConfig config(Path dir, String pluginPath) {
        return DaemonConfig.builder()
                .listen(ServiceAddress.unix(dir.resolve("d.sock")))
                .logDir(dir.resolve("log"))
                .pluginPath(pluginPath)
                .security(TestWorkers.security())
                .build();
    }

    private static InetSocketAddress anyLoopbackPort() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    @Test
    void aServingDaemonWithPluginsIsHealthyAndReady(@TempDir Path dir) throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        NativeFixtures.compileMinimalPlugin(plugins, "minimal.so", 1);
        Daemon daemon = Daemon.start(config(dir, plugins.toString()));
        try (HttpEndpoint endpoint = HttpEndpoint.start(anyLoopbackPort(), daemon)) {
            assertThat(get(endpoint, "/healthz").statusCode()).isEqualTo(200);
            HttpResponse<String> ready = get(endpoint, "/readyz");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("ready: 1 plugins\n");
            assertThat(get(endpoint, "/metrics/nothing").statusCode()).isEqualTo(404);

            daemon.close();

            HttpResponse<String> health = get(endpoint, "/healthz");
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).isEqualTo("the daemon is shutting down\n");
            assertThat(get(endpoint, "/readyz").statusCode()).isEqualTo(503);
        } finally {
            daemon.close();
        }
    }

    @Test
    void metricsShowTheScanAndTheConnectionsInThePrometheusTextFormat(@TempDir Path dir) throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        NativeFixtures.compileMinimalPlugin(plugins, "minimal.so", 1);
        Files.writeString(plugins.resolve("broken.so"), "not an ELF file");
        Daemon daemon = Daemon.start(config(dir, plugins.toString()));
        try (HttpEndpoint endpoint = HttpEndpoint.start(anyLoopbackPort(), daemon);
                UromService host = UromService.connect(daemon.address().toString())) {
            HttpResponse<String> metrics = get(endpoint, "/metrics");

            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().firstValue("Content-Type"))
                    .hasValue("text/plain; version=0.0.4; charset=utf-8");
            assertThat(metrics.body().lines())
                    .contains(
                            "urom_plugins{state=\"accepted\"} 1.0",
                            "urom_plugins{state=\"rejected\"} 1.0",
                            "urom_plugin_probe_rejections_total 1.0",
                            "urom_workers{state=\"running\"} 0.0",
                            "urom_workers{state=\"starting\"} 0.0",
                            "urom_control_connections_total 1.0",
                            "urom_control_connections_open 1.0",
                            "urom_worker_starts_total{outcome=\"started\",status=\"SUCCESS\"} 0.0",
                            "urom_worker_exits_total{cause=\"normal\",signal=\"none\"} 0.0",
                            "urom_host_connections_total 0.0",
                            "urom_worker_stats_timeouts_total 0.0");
        } finally {
            daemon.close();
        }
    }

    @Test
    void aClientThatSendsOneByteNeitherDelaysHealthNorStaysConnectedPastTheReadTimeout(@TempDir Path dir)
            throws Exception {
        Daemon daemon = Daemon.start(
                config(dir, Files.createDirectories(dir.resolve("empty")).toString()));
        try (HttpEndpoint endpoint = HttpEndpoint.start(anyLoopbackPort(), daemon)) {
            assertThat(get(endpoint, "/healthz").statusCode()).isEqualTo(200);
            long connected = System.nanoTime();
            Socket slow = slowClient(endpoint);
            await("a thread reads the slow request", () -> busyHttpThreads() == 1);

            long asked = System.nanoTime();
            HttpResponse<String> health = get(endpoint, "/healthz");
            long answeredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);

            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).isEqualTo("ok\n");
            assertThat(answeredMillis)
                    .as("answered while the slow client holds a thread")
                    .isLessThan(1000);
            slow.setSoTimeout((int) PATIENCE.toMillis());
            int first;
            try {
                first = slow.getInputStream().read();
            } catch (SocketException reset) {
                first = -1;
            }
            long closedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connected);
            assertThat(first).as("the server closed the slow connection").isEqualTo(-1);
            assertThat(closedAfterMillis)
                    .as("closed by the read timeout, not before")
                    .isGreaterThanOrEqualTo(READ_TIMEOUT_SECONDS * 1000 - 100);
            await("the thread is free again", () -> busyHttpThreads() == 0);
        } finally {
            daemon.close();
        }
    }

    @Test
    void slowClientsUpToThePoolSizeMinusOneLeaveTheProbesServed(@TempDir Path dir) throws Exception {
        Daemon daemon = Daemon.start(
                config(dir, Files.createDirectories(dir.resolve("empty")).toString()));
        try (HttpEndpoint endpoint = HttpEndpoint.start(anyLoopbackPort(), daemon)) {
            assertThat(get(endpoint, "/healthz").statusCode()).isEqualTo(200);
            for (int i = 0; i < HttpEndpoint.THREADS - 1; i++) {
                slowClient(endpoint);
            }
            await(
                    "the slow requests hold " + (HttpEndpoint.THREADS - 1) + " threads",
                    () -> busyHttpThreads() == HttpEndpoint.THREADS - 1);

            for (String path : List.of("/healthz", "/readyz", "/metrics", "/healthz")) {
                long asked = System.nanoTime();
                HttpResponse<String> response = get(endpoint, path);
                assertThat(response.statusCode()).as(path).isIn(200, 503);
                assertThat(response.body()).as(path).doesNotContain("a scrape is already running");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked))
                        .as(path)
                        .isLessThan(1000);
            }
            assertThat(busyHttpThreads())
                    .as("the slow clients still hold their threads")
                    .isEqualTo(HttpEndpoint.THREADS - 1);
        } finally {
            daemon.close();
        }
    }

    @Test
    void aSecondScrapeWhileOneRunsIsRefusedAtOnceAndHealthIsServed(@TempDir Path dir) throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        NativeFixtures.compileMinimalPlugin(plugins, "minimal.so", 1);
        Daemon daemon = Daemon.start(config(dir, plugins.toString()).toBuilder()
                .workerMainClass(MuteWorkerMain.class.getName())
                .build());
        try (HttpEndpoint endpoint = HttpEndpoint.start(anyLoopbackPort(), daemon);
                ControlClient host = ControlClient.connect(daemon.address())) {
            PluginsReply list = (PluginsReply) host.call(new PluginsRequest());
            long plugin = list.plugins().get(0).id();
            assertThat(host.start(Protocol.ANY_WORKER, plugin, List.of()).status())
                    .as("a worker that never answers STATS")
                    .isEqualTo(UromStatus.SUCCESS);
            URI metrics = URI.create("http://127.0.0.1:" + endpoint.address().getPort() + "/metrics");
            CompletableFuture<HttpResponse<String>> firstScrape = http.sendAsync(
                    HttpRequest.newBuilder(metrics).timeout(PATIENCE).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            await("the first scrape waits on the worker", HttpEndpointTest::aScrapeRuns);

            long asked = System.nanoTime();
            HttpResponse<String> second = get(endpoint, "/metrics");
            HttpResponse<String> health = get(endpoint, "/healthz");
            long answeredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);

            assertThat(second.statusCode()).isEqualTo(503);
            assertThat(second.body()).isEqualTo("a scrape is already running\n");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(answeredMillis).as("neither waited for the scrape").isLessThan(900);
            HttpResponse<String> first = firstScrape.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body().lines()).contains("urom_workers{state=\"running\"} 1.0");
            assertThat(first.body().lines())
                    .as("the first scrape waited on the worker, and says so itself")
                    .contains("urom_worker_stats_timeouts_total 1.0");
            HttpResponse<String> next = get(endpoint, "/metrics");
            assertThat(next.statusCode()).as("the next scrape runs").isEqualTo(200);
            assertThat(next.body().lines())
                    .as("the next scrape waited again")
                    .contains("urom_worker_stats_timeouts_total 2.0");
        } finally {
            daemon.close();
        }
    }

    private static boolean aScrapeRuns() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().startsWith("urom-daemon-http-"))
                .anyMatch(e -> Arrays.stream(e.getValue())
                        .anyMatch(frame -> frame.getClassName().equals(Daemon.class.getName())
                                && frame.getMethodName().equals("writeMetrics")));
    }

    @Test
    void theTimeoutsAreTheOperatorsWhenSetAndTheEndpointsOtherwise(@TempDir Path dir) throws Exception {
        Daemon daemon = Daemon.start(
                config(dir, Files.createDirectories(dir.resolve("empty")).toString()));
        try (HttpEndpoint endpoint = HttpEndpoint.start(anyLoopbackPort(), daemon)) {
            assertThat(System.getProperty(HttpEndpoint.READ_TIMEOUT_PROPERTY))
                    .as("set by this module's pom")
                    .isEqualTo(Long.toString(READ_TIMEOUT_SECONDS));
            assertThat(System.getProperty(HttpEndpoint.WRITE_TIMEOUT_PROPERTY))
                    .isEqualTo(Long.toString(HttpEndpoint.WRITE_TIMEOUT_SECONDS));
        } finally {
            daemon.close();
        }
    }

    @Test
    void aDaemonWithoutPluginsIsHealthyButNotReady(@TempDir Path dir) throws Exception {
        Daemon daemon = Daemon.start(
                config(dir, Files.createDirectories(dir.resolve("empty")).toString()));
        try (HttpEndpoint endpoint = HttpEndpoint.start(anyLoopbackPort(), daemon)) {
            assertThat(get(endpoint, "/healthz").statusCode()).isEqualTo(200);
            HttpResponse<String> ready = get(endpoint, "/readyz");
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("no plugins");
        } finally {
            daemon.close();
        }
    }
}
