package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.host.UromService;
import dev.urom.framework.wire.ServiceAddress;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.testkit.TestWorkers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP endpoint (health, readiness, metrics) of a real daemon, over real HTTP on loopback. */
class HttpEndpointTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(HttpEndpoint endpoint, String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + endpoint.address().getPort() + path);
        return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static DaemonConfig config(Path dir, String pluginPath) {
        return DaemonConfig.defaults()
                .withListen(ServiceAddress.unix(dir.resolve("d.sock")))
                .withLogDir(dir.resolve("log"))
                .withPluginPath(pluginPath)
                .withSecurity(TestWorkers.security());
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
            assertThat(metrics.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
            assertThat(metrics.body().lines()).contains(
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
    void aDaemonWithoutPluginsIsHealthyButNotReady(@TempDir Path dir) throws Exception {
        Daemon daemon = Daemon.start(config(dir, Files.createDirectories(dir.resolve("empty")).toString()));
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
