package dev.urom.service.daemon;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * The daemon's HTTP endpoint, for Kubernetes probes and Prometheus: {@code GET /healthz} answers
 * 200 while the daemon serves hosts and 503 once it is closing; {@code GET /readyz} answers 200
 * when it also has at least one plugin to offer (its last scan of {@code UROM_PLUGIN_PATH}
 * accepted one), 503 otherwise, with the reason in the body; {@code GET /metrics} answers the
 * daemon's metrics in the Prometheus text format (see {@link Daemon#writeMetrics}). Anything else
 * is 404. Off unless the daemon is given an HTTP port; it binds where it is told (the command
 * line's default is localhost).
 *
 * <p>Thread-safe; one small thread serves it, so scrapes run one at a time. {@link #close} stops
 * it at once.
 */
public final class HttpEndpoint implements AutoCloseable {
    private final HttpServer server;

    private HttpEndpoint(HttpServer server) {
        this.server = server;
    }

    /**
     * Serves the health and metrics of {@code daemon} on {@code bind} (port 0: any free port).
     *
     * @throws IOException one line naming the address when it cannot be bound
     */
    public static HttpEndpoint start(InetSocketAddress bind, Daemon daemon) throws IOException {
        requireNonNull(daemon, "daemon is null");
        HttpServer server;
        try {
            server = HttpServer.create(bind, 0);
        } catch (IOException e) {
            throw new IOException("cannot serve HTTP on " + bind.getHostString() + ":" + bind.getPort() + ": " + e.getMessage(), e);
        }
        server.setExecutor(Executors.newSingleThreadExecutor(DaemonThreads.named("urom-daemon-http")));
        server.createContext("/", exchange -> {
            try (exchange) {
                String path = exchange.getRequestURI().getPath();
                if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                    reply(exchange, 405, "only GET\n");
                } else if (path.equals("/healthz")) {
                    boolean serving = daemon.isServing();
                    reply(exchange, serving ? 200 : 503, serving ? "ok\n" : "the daemon is shutting down\n");
                } else if (path.equals("/readyz")) {
                    if (!daemon.isServing()) {
                        reply(exchange, 503, "the daemon is shutting down\n");
                    } else if (daemon.acceptedPlugins() == 0) {
                        reply(exchange, 503, "no plugins: the last scan of UROM_PLUGIN_PATH accepted none\n");
                    } else {
                        reply(exchange, 200, "ready: " + daemon.acceptedPlugins() + " plugins\n");
                    }
                } else if (path.equals("/metrics")) {
                    metrics(exchange, daemon);
                } else {
                    reply(exchange, 404, "not found: " + path + " (try /healthz, /readyz or /metrics)\n");
                }
            }
        });
        server.start();
        return new HttpEndpoint(server);
    }

    private static void metrics(HttpExchange exchange, Daemon daemon) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        daemon.writeMetrics(body);
        reply(exchange, 200, daemon.metricsContentType(), body.toByteArray());
    }

    /** The address actually bound. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        reply(exchange, status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
    }

    private static void reply(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
