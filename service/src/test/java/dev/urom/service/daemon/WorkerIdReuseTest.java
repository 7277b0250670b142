// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.service.daemon.testing.Await;
import dev.urom.service.daemon.testing.DaemonLog;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.wire.ServiceAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker id used again at once: a host that stops the worker it alone used and at once starts one
 * with the same id gets a new worker, never the one that is ending (whose handshake would fail), and
 * a start of the id of a worker that still serves a host joins that worker. One daemon on a Unix
 * socket for the class, real worker processes ({@code WorkerMain}) with the graph sample plugin,
 * compiled from its source, driven through the Java host API.
 */
class WorkerIdReuseTest {
    private static final String GRAPH_SOURCE = "../plugins/graph/src/main/c/worker_graph.c";
    private static final int ROUNDS = 20;
    private static final long WAIT_SECONDS = Await.PATIENCE.toSeconds();

    @TempDir
    static Path dir;

    private static DaemonLog log;
    private static Daemon daemon;
    private static UromService service;
    private static long graphId;

    @BeforeAll
    static void startDaemon() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        NativeFixtures.compilePlugin(
                plugins, "worker_graph.so", Files.readString(Path.of(GRAPH_SOURCE)), "-Wextra", "-Werror");
        DaemonConfig config = Daemon.configureLogging(DaemonConfig.builder()
                .listen(ServiceAddress.unix(dir.resolve("urom.sock")))
                .logDir(dir.resolve("log"))
                .pluginPath(plugins.toString())
                .workerIdleTimeout(Duration.ofMinutes(10))
                .security(TestWorkers.security())
                .build());
        log = new DaemonLog(Daemon.logFile(config));
        daemon = Daemon.start(config);
        service = UromService.connect(daemon.address().toString(), Optional.empty());
        graphId = service.plugins().stream()
                .filter(p -> p.name().equals("worker_graph"))
                .mapToLong(Plugin::id)
                .findFirst()
                .orElseThrow();
    }

    @AfterAll
    static void stopDaemon() {
        if (service != null) {
            service.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        Configurator.reconfigure();
    }

    @Test
    void aStartRightAfterTheLastHostStoppedTheWorkerGetsANewWorker() throws Exception {
        long id = 3;
        Set<Long> pids = new HashSet<>();
        for (int round = 0; round < ROUNDS; round++) {
            Worker worker = service.newWorker().id(id).plugins(graphId).build();
            worker.start().get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertLoopback(worker);
            pids.add(pid(id));
            worker.stop().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        assertThat(pids).as("a new worker process each round").hasSize(ROUNDS);
        assertThat(log.linesWith("worker 3 (pid", "joined by"))
                .as("joins of worker 3")
                .isEmpty();
        Await.until(
                "the last worker 3 is reaped", () -> daemon.workers().stream().noneMatch(w -> w.id() == id));
    }

    @Test
    void aStartOfTheIdOfAWorkerThatServesAHostJoinsIt() throws Exception {
        long id = 4;
        Worker first = service.newWorker().id(id).plugins(graphId).build();
        first.start().get(WAIT_SECONDS, TimeUnit.SECONDS);
        long pid = pid(id);
        Worker second = service.newWorker().id(id).plugins(graphId).build();
        second.start().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(pid(id)).as("the joined worker's pid").isEqualTo(pid);
        assertThat(log.awaitLinesWith("worker 4 (pid " + pid + ") joined by")).hasSize(1);
        assertLoopback(first);
        assertLoopback(second);

        second.stop().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertLoopback(first);
        Worker third = service.newWorker().id(id).plugins(graphId).build();
        third.start().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(pid(id)).as("the worker after one of its two hosts stopped").isEqualTo(pid);
        assertLoopback(third);
        first.stop().get(WAIT_SECONDS, TimeUnit.SECONDS);
        third.stop().get(WAIT_SECONDS, TimeUnit.SECONDS);
        Await.until("worker 4 is reaped", () -> daemon.workers().stream().noneMatch(w -> w.id() == id));
    }

    private static void assertLoopback(Worker worker) throws Exception {
        long value = System.nanoTime();
        assertThat(GraphClient.loopback(worker, graphId, value).get(WAIT_SECONDS, TimeUnit.SECONDS))
                .isEqualTo(value);
    }

    private static long pid(long id) {
        return daemon.workers().stream()
                .filter(w -> w.id() == id)
                .findFirst()
                .orElseThrow(() -> new AssertionError("the daemon has no worker " + id + ": " + daemon.workers()))
                .pid();
    }
}
