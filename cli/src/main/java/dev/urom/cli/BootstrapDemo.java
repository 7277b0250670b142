// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.host.Plugin;
import dev.urom.host.PluginVersions;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.plugins.graph.host.GraphClient;
import dev.urom.spi.UromException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The multi-workers bootstrap sample against a running service: four workers with gid = index % 2,
 * each loops its own id back through a graph plugin; then "workers in gid 0" must be the even ids
 * and gid 1 the odd ones. Prints what it did, with timings. Not thread-safe.
 */
final class BootstrapDemo {
    static final int WORKERS = 4;
    private static final long GRAPH_VERSION = 1;

    private final UromService service;
    private final PrintWriter out;

    BootstrapDemo(UromService service, PrintWriter out) {
        this.service = service;
        this.out = out;
    }

    /**
     * Runs the sample with the named graph plugin on workers {@code firstId .. firstId + 3}.
     *
     * @return whether every check passed
     */
    boolean run(String graphName, long firstId, int rounds) throws UromException {
        Plugin graph = PluginVersions.require(service.plugins(), graphName, GRAPH_VERSION);
        out.printf(
                "%nMulti-workers bootstrap with %s (%s, id 0x%x):%n",
                graphName, graph.kind(), graph.info().id());
        List<Worker> workers = new ArrayList<>();
        boolean ok = true;
        try {
            for (int index = 0; index < WORKERS; index++) {
                long id = firstId + index;
                Worker worker = service.newWorker()
                        .id(id)
                        .gid(index % 2)
                        .plugins(graph.info().id())
                        .build();
                workers.add(worker);
                long start = System.nanoTime();
                RemoteWorker.await(worker.start(), "starting worker " + id);
                long startMicros = (System.nanoTime() - start) / 1_000;
                long loopStart = System.nanoTime();
                long echoed = RemoteWorker.await(
                        GraphClient.loopback(worker, graph.info().id(), id), "LOOPBACK on worker " + id);
                long loopMicros = (System.nanoTime() - loopStart) / 1_000;
                boolean alike = echoed == id;
                ok &= alike;
                out.printf(
                        "  worker %d  gid %d  started in %6.1f ms   loopback %d -> %d in %d us  %s%n",
                        id, index % 2, startMicros / 1000.0, id, echoed, loopMicros, alike ? "ok" : "WRONG");
            }
            for (long gid = 0; gid < 2; gid++) {
                List<Long> expected = new ArrayList<>();
                for (int index = 0; index < WORKERS; index++) {
                    if (index % 2 == gid) {
                        expected.add(firstId + index);
                    }
                }
                List<Long> inGroup = service.workersInGroup(gid).stream()
                        .filter(id -> id >= firstId && id < firstId + WORKERS)
                        .sorted()
                        .toList();
                boolean alike = inGroup.equals(expected);
                ok &= alike;
                out.printf(
                        "  workers in gid %d: %-12s (expected %s)  %s%n",
                        gid, inGroup, expected, alike ? "ok" : "WRONG");
            }
            long[] micros = timeLoopbacks(workers.get(0), graph, rounds);
            out.printf(
                    "  %,d loopbacks on worker %d: round trip p50 %d us, p99 %d us%n",
                    rounds, firstId, micros[micros.length / 2], micros[(int) (micros.length * 0.99)]);
        } finally {
            for (Worker worker : workers) {
                worker.close();
            }
        }
        return ok;
    }

    private static long[] timeLoopbacks(Worker worker, Plugin graph, int rounds) {
        long[] micros = new long[Math.max(1, rounds)];
        for (int i = 0; i < micros.length; i++) {
            long start = System.nanoTime();
            RemoteWorker.await(GraphClient.loopback(worker, graph.info().id(), i), "LOOPBACK " + i);
            micros[i] = (System.nanoTime() - start) / 1_000;
        }
        Arrays.sort(micros);
        return micros;
    }
}
