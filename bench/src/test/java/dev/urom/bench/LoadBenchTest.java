// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.plugins.graph.host.GraphClient;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadBenchTest {
    private static final LatencyHistogram.Data NO_LATENCY = new LatencyHistogram().data();

    @Test
    void aWorkerWithUnansweredCommandsIsNamedWithItsHostAndTheCount() {
        LoadTally.Worker worker =
                new LoadTally.Worker(2, "worker_graph", 100, 100, 88, 0, 0, 12, "no answer for 60 s", 1, NO_LATENCY);

        assertThat(LoadBench.workerFailure(3, worker))
                .contains("host 3 worker 2 (worker_graph): 12 LOOPBACKs unanswered; first: no answer for 60 s");
    }

    @Test
    void wrongBytesFailuresAndCommandsNeverSentAreEachCounted() {
        LoadTally.Worker worker = new LoadTally.Worker(
                0, "worker_graph_java", 100, 90, 85, 3, 2, 0, "LOOPBACK of 7 came back as 8", 1, NO_LATENCY);

        assertThat(LoadBench.workerFailure(1, worker))
                .contains("host 1 worker 0 (worker_graph_java): 10 LOOPBACKs never sent, 3 answered with wrong"
                        + " bytes, 2 failed; first: LOOPBACK of 7 came back as 8");
        assertThat(LoadBench.workerFailure(
                        1, new LoadTally.Worker(0, "worker_graph", 100, 100, 100, 0, 0, 0, null, 1, NO_LATENCY)))
                .isEmpty();
    }

    @Test
    void aTallyTravelsAsOneLineOfJson() {
        LatencyHistogram latency = new LatencyHistogram();
        latency.record(12_345);
        LoadTally tally = new LoadTally(
                5, 99, List.of(new LoadTally.Worker(1, "worker_graph", 3, 3, 3, 0, 0, 0, null, 42, latency.data())));

        String line = tally.json();
        LoadTally back = LoadTally.parse(line);

        assertThat(line).doesNotContain("\n");
        assertThat(back.host()).isEqualTo(5);
        assertThat(back.workers().get(0).answered()).isEqualTo(3);
        assertThat(LatencyHistogram.of(back.workers().get(0).latency()).percentileNs(0.5))
                .isEqualTo(latency.percentileNs(0.5));
    }

    @Test
    void onlyALoopbackAnswerYieldsItsValue() {
        long value = LoadHostMain.value(7, 3, 99);

        assertThat(LoadHostMain.Traffic.echoed(GraphClient.loopbackCommand(value)))
                .isEqualTo(value);
        assertThat(LoadHostMain.Traffic.echoed(new byte[15])).isEqualTo(-1);
        byte[] otherType = GraphClient.loopbackCommand(value);
        otherType[0] = 1;
        assertThat(LoadHostMain.Traffic.echoed(otherType)).isEqualTo(-1);
        assertThat(LoadHostMain.value(7, 3, 99))
                .isNotEqualTo(LoadHostMain.value(7, 2, 99))
                .isNotEqualTo(LoadHostMain.value(6, 3, 99));
    }

    @Test
    void aWorkerIsToldApartByItsPluginArgumentsNotByItsClassPath() {
        List<String> java = List.of(
                "/usr/bin/java",
                "-cp",
                "/repo/plugins/graph/target/worker_graph_java.jar:/repo/lib/a.jar",
                "dev.urom.service.worker.WorkerMain",
                "--worker-id",
                "3",
                "/run/plugins/worker_graph_java.jar:2");
        List<String> c = List.of(
                "/usr/bin/java",
                "-cp",
                "/repo/plugins/graph/target/worker_graph_java.jar:/repo/lib/a.jar",
                "dev.urom.service.worker.WorkerMain",
                "--worker-id",
                "4",
                "/run/plugins/worker_graph.so:1");
        List<String> both = List.of("java", "/run/plugins/worker_graph.so:1", "/run/plugins/worker_graph_java.jar:2");

        assertThat(LoadBench.pluginOf(java)).isEqualTo("worker_graph_java");
        assertThat(LoadBench.pluginOf(c)).isEqualTo("worker_graph");
        assertThat(LoadBench.pluginOf(both)).isEqualTo("other");
        assertThat(LoadBench.pluginOf(List.of("java", "-cp", "/x/worker_graph.so")))
                .isEqualTo("other");
    }
}
