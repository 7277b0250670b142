// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The daemon's HTTP endpoint, for Kubernetes probes and Prometheus. Off unless the daemon is given
 * an HTTP port; it binds where it is told (the command line's default is localhost). It serves:
 *
 * <ul>
 *   <li>{@code GET /healthz}: 200 while the daemon serves hosts, else 503 with the reason ({@link
 *       Daemon#unhealthyReason}: it is closing, or accepting host connections fails);
 *   <li>{@code GET /readyz}: 200 when it is also healthy and has at least one plugin to offer (its
 *       last scan of {@code UROM_PLUGIN_PATH} accepted one), else 503 with the reason in the body;
 *   <li>{@code GET /metrics}: the daemon's metrics in the Prometheus text format ({@link
 *       Daemon#writeMetrics}), or 503 at once while another scrape is still running;
 *   <li>anything else: 404.
 * </ul>
 *
 * <p>Slow clients cannot starve the probes: requests are served by {@value #THREADS} threads, only
 * one of them at a time runs a scrape (which waits up to a second on the workers), and the JDK's
 * server closes a connection whose request is not read within {@value #READ_TIMEOUT_SECONDS} s or
 * whose response is not written within {@value #WRITE_TIMEOUT_SECONDS} s. Those two limits are the
 * JDK's system properties {@value #READ_TIMEOUT_PROPERTY} and {@value #WRITE_TIMEOUT_PROPERTY}
 * (seconds), which its server reads once, when its first server is made: this class sets each
 * one, before it makes a server, unless it is already set (an operator's {@code -D} wins).
 *
 * <p>Thread-safe. {@link #close} stops it at once.
 */
public final class HttpEndpoint implements AutoCloseable {
    /** How many requests are served at once. */
    static final int THREADS = 4;

    static final String READ_TIMEOUT_PROPERTY = "sun.net.httpserver.maxReqTime";
    static final String WRITE_TIMEOUT_PROPERTY = "sun.net.httpserver.maxRspTime";
    static final long READ_TIMEOUT_SECONDS = 10;
    static final long WRITE_TIMEOUT_SECONDS = 30;

    static {
        setUnlessSet(READ_TIMEOUT_PROPERTY, READ_TIMEOUT_SECONDS);
        setUnlessSet(WRITE_TIMEOUT_PROPERTY, WRITE_TIMEOUT_SECONDS);
    }

    private final HttpServer server;
    private final ExecutorService threads;

    private HttpEndpoint(HttpServer server, ExecutorService threads) {
        this.server = server;
        this.threads = threads;
    }

    private static void setUnlessSet(String property, long seconds) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, Long.toString(seconds));
        }
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
            throw new IOException(
                    "cannot serve HTTP on " + bind.getHostString() + ":" + bind.getPort() + ": " + e.getMessage(), e);
        }
        ExecutorService threads = Executors.newFixedThreadPool(THREADS, DaemonThreads.numbered("urom-daemon-http-"));
        server.setExecutor(threads);
        AtomicBoolean scrapeRunning = new AtomicBoolean();
        server.createContext("/", exchange -> {
            try (exchange) {
                String path = exchange.getRequestURI().getPath();
                if (!exchange.getRequestMethod().equals("GET")
                        && !exchange.getRequestMethod().equals("HEAD")) {
                    reply(exchange, 405, "only GET\n");
                } else if (path.equals("/healthz")) {
                    Optional<String> unhealthy = daemon.unhealthyReason();
                    reply(exchange, unhealthy.isEmpty() ? 200 : 503, unhealthy.orElse("ok") + "\n");
                } else if (path.equals("/readyz")) {
                    Optional<String> unhealthy = daemon.unhealthyReason();
                    if (unhealthy.isPresent()) {
                        reply(exchange, 503, unhealthy.get() + "\n");
                    } else if (daemon.acceptedPlugins() == 0) {
                        reply(exchange, 503, "no plugins: the last scan of UROM_PLUGIN_PATH accepted none\n");
                    } else {
                        reply(exchange, 200, "ready: " + daemon.acceptedPlugins() + " plugins\n");
                    }
                } else if (path.equals("/metrics")) {
                    byte[] scraped = scrape(daemon, scrapeRunning);
                    if (scraped != null) {
                        reply(exchange, 200, daemon.metricsContentType(), scraped);
                    } else {
                        reply(exchange, 503, "a scrape is already running\n");
                    }
                } else {
                    reply(exchange, 404, "not found: " + path + " (try /healthz, /readyz or /metrics)\n");
                }
            }
        });
        server.start();
        return new HttpEndpoint(server, threads);
    }

    /**
     * The daemon's metrics, or null while another scrape runs. {@code running} is down again before
     * the caller replies, so a client that has read one scrape's answer can always start the next.
     */
    private static byte[] scrape(Daemon daemon, AtomicBoolean running) throws IOException {
        if (!running.compareAndSet(false, true)) {
            return null;
        }
        try {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            daemon.writeMetrics(body);
            return body.toByteArray();
        } finally {
            running.set(false);
        }
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
        threads.shutdownNow();
    }
}
