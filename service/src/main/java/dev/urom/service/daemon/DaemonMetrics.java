// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.framework.discovery.PluginDiscovery;
import dev.urom.service.metrics.WorkerStatsCollector;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.spi.UromStatus;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The daemon's Prometheus metrics: what the daemon sees itself (worker starts and exits, workers
 * by state, control connections, the plugin scan) and, through {@link WorkerStatsCollector}, what
 * its workers report (commands, notifications, latency, host connections).
 *
 * <p>Counters that nobody has touched yet are still exposed at zero for the labels a dashboard
 * needs first (started, normal). Thread-safe.
 */
final class DaemonMetrics {
    static final String OUTCOME_STARTED = "started";
    static final String OUTCOME_JOINED = "joined";
    static final String OUTCOME_REFUSED = "refused";

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final Counter workerStarts = Counter.builder()
            .name("urom_worker_starts")
            .help("WORKER_START requests, by outcome and DOCA status")
            .labelNames("outcome", "status")
            .register(registry);
    private final Counter workerExits = Counter.builder()
            .name("urom_worker_exits")
            .help(
                    "Worker processes that ended: normal (status 0), error (another status), signal, crash (a JVM fatal error report)")
            .labelNames("cause", "signal")
            .register(registry);
    private final Counter controlConnections = Counter.builder()
            .name("urom_control_connections")
            .help("Host connections the daemon accepted")
            .register(registry);
    private final Counter statsTimeouts = Counter.builder()
            .name("urom_worker_stats_timeouts")
            .help("Scrapes for which a running worker did not report its counts in time (its last counts were used)")
            .register(registry);

    /** What {@link #watch} was given to count the workers' commands afresh; asked once per scrape, before the scrape. */
    private volatile Supplier<WorkerStatsSnapshot> freshWorkerTotals = () -> WorkerStatsSnapshot.EMPTY;
    /** The workers' totals of the scrape in progress (or the last). */
    private volatile WorkerStatsSnapshot scrapedWorkerTotals = WorkerStatsSnapshot.EMPTY;

    DaemonMetrics() {
        workerStarts.initLabelValues(OUTCOME_STARTED, UromStatus.SUCCESS.name());
        workerExits.initLabelValues("normal", "none");
    }

    /**
     * Registers what is read at each scrape.
     *
     * @param workers the daemon's worker table
     * @param openControlConnections how many host connections the daemon has open
     * @param workerTotals the workers' counts summed, fresh at each call (asked once per scrape)
     */
    void watch(
            Supplier<List<WorkerInfo>> workers,
            IntSupplier openControlConnections,
            PluginDiscovery discovery,
            Supplier<WorkerStatsSnapshot> workerTotals) {
        GaugeWithCallback.builder()
                .name("urom_workers")
                .help("Workers in the daemon's table, by state")
                .labelNames("state")
                .callback(callback -> {
                    List<WorkerInfo> now = workers.get();
                    for (WorkerInfo.State state : WorkerInfo.State.values()) {
                        callback.call(
                                now.stream().filter(w -> w.state() == state).count(),
                                state.name().toLowerCase(java.util.Locale.ROOT));
                    }
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("urom_control_connections_open")
                .help("Host connections to the daemon open now")
                .callback(callback -> callback.call(openControlConnections.getAsInt()))
                .register(registry);
        GaugeWithCallback.builder()
                .name("urom_plugins")
                .help("Plugins in the last scan of UROM_PLUGIN_PATH, accepted or rejected")
                .labelNames("state")
                .callback(callback -> {
                    var scan = discovery.lastScan();
                    callback.call(scan.plugins().size(), "accepted");
                    callback.call(scan.rejected().size(), "rejected");
                })
                .register(registry);
        CounterWithCallback.builder()
                .name("urom_plugin_probe_rejections")
                .help("Plugin files whose probe rejected them (a file is probed again only when it changes)")
                .callback(callback -> callback.call(discovery.scanner().probeRejectionCount()))
                .register(registry);
        freshWorkerTotals = workerTotals;
        registry.register(new WorkerStatsCollector(() -> scrapedWorkerTotals));
    }

    void workerStart(String outcome, UromStatus status) {
        workerStarts.labelValues(outcome, status.name()).inc();
    }

    /** A worker process ended with {@code exitValue}; {@code crashSignal} when it left a JVM fatal error report. */
    void workerExit(int exitValue, Optional<String> crashSignal) {
        if (crashSignal.isPresent()) {
            workerExits.labelValues("crash", crashSignal.get()).inc();
        } else if (exitValue == 0) {
            workerExits.labelValues("normal", "none").inc();
        } else {
            Optional<String> signal = ExitStatus.signalName(exitValue);
            workerExits
                    .labelValues(signal.isPresent() ? "signal" : "error", signal.orElse("none"))
                    .inc();
        }
    }

    void controlConnectionAccepted() {
        controlConnections.inc();
    }

    void workerStatsTimeouts(int count) {
        if (count > 0) {
            statsTimeouts.inc(count);
        }
    }

    /** The Prometheus text format's content type. */
    String contentType() {
        return writer.getContentType();
    }

    /**
     * Asks for the workers' totals, then scrapes every metric and writes them in the Prometheus text
     * format: so that the scrape shows the stats timeouts of its own request.
     */
    void writeTo(OutputStream out) throws IOException {
        scrapedWorkerTotals = freshWorkerTotals.get();
        writer.write(out, registry.scrape());
    }
}
