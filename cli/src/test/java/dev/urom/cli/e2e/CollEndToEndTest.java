// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.host.Domain;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.oob.InProcessAllgather;
import dev.urom.plugins.coll.host.CollArgs;
import dev.urom.plugins.coll.host.CollBuffers;
import dev.urom.plugins.coll.host.CollClient;
import dev.urom.plugins.coll.host.CollException;
import dev.urom.plugins.coll.host.TeamSpec;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.wire.Protocol;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The coll plugins end to end through the Java host helper: a real daemon serving {@code
 * worker_coll.so} and {@code worker_coll_java.jar}, two real worker processes in one domain, this
 * test's JVM the host of both (so each worker reads and writes this process's direct buffers), with
 * the C plugin on both, the Java plugin on both, and one of each. After every test no worker is left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CollEndToEndTest {
    private static final long SECONDS = ServiceHarness.LIMIT.toSeconds();
    private static final int TEAM = 7;

    @TempDir
    static Path shared;

    private ServiceHarness daemon;
    private UromService service;
    private final List<Worker> workers = new ArrayList<>();

    @BeforeAll
    void startDaemon() throws Exception {
        Path plugins = Files.createDirectories(shared.resolve("coll-plugins"));
        Path build = Path.of(System.getProperty("urom.coll.build", "../plugins/coll/target"));
        Files.copy(build.resolve("worker_coll.so"), plugins.resolve("worker_coll.so"));
        Files.copy(build.resolve("worker_coll_java.jar"), plugins.resolve("worker_coll_java.jar"));
        daemon = ServiceHarness.start(shared, plugins, Map.of(), "--max-workers", "8");
        service = UromService.connect(daemon.address);
    }

    @AfterEach
    void noWorkerLeft() throws Exception {
        for (int i = workers.size() - 1; i >= 0; i--) {
            workers.get(i).close();
        }
        workers.clear();
        ServiceHarness.awaitExit(daemon.workers());
        long deadline = System.nanoTime() + ServiceHarness.LIMIT.toNanos();
        while (!service.workersInGroup(Protocol.ALL_GROUPS).isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertThat(service.workersInGroup(Protocol.ALL_GROUPS)).isEmpty();
    }

    @AfterAll
    void stopDaemon() throws Exception {
        service.close();
        daemon.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"worker_coll", "worker_coll_java", "mixed"})
    void twoWorkersAllreduceAndAlltoallThisProcesssBuffersWhileItWaitsForNothing(String plugins) throws Exception {
        List<CollClient> clients = team(plugins);
        int count = 100_003;
        List<ByteBuffer> sources = new ArrayList<>();
        List<ByteBuffer> results = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            ByteBuffer src = direct(count * Double.BYTES);
            for (int i = 0; i < count; i++) {
                src.putDouble(i * Double.BYTES, (rank + 1) * 0.5 + i);
            }
            sources.add(src);
            results.add(direct(count * Double.BYTES));
        }

        List<CompletableFuture<Long>> posted = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            posted.add(clients.get(rank)
                    .post(
                            TEAM,
                            CollArgs.allreduce(
                                    DataType.FLOAT64,
                                    ReduceOp.SUM,
                                    count,
                                    CollBuffers.address(sources.get(rank)),
                                    CollBuffers.address(results.get(rank)))));
        }
        for (CompletableFuture<Long> each : posted) {
            assertThat(each.get(SECONDS, TimeUnit.SECONDS))
                    .as("the first collective of the team")
                    .isZero();
        }
        for (int rank = 0; rank < 2; rank++) {
            for (int i = 0; i < count; i++) {
                assertThat(results.get(rank).getDouble(i * Double.BYTES))
                        .as("rank %d element %d", rank, i)
                        .isEqualTo(1.5 + 2.0 * i);
            }
        }

        int block = 4099;
        List<ByteBuffer> outs = new ArrayList<>();
        posted.clear();
        for (int rank = 0; rank < 2; rank++) {
            ByteBuffer src = direct(2 * block);
            for (int i = 0; i < 2 * block; i++) {
                src.put(i, (byte) (rank * 100 + i / block * 10 + i % 7));
            }
            ByteBuffer dst = direct(2 * block);
            outs.add(dst);
            sources.set(rank, src);
            posted.add(clients.get(rank)
                    .post(
                            TEAM,
                            CollArgs.alltoall(
                                    DataType.UINT8, block, CollBuffers.address(src), CollBuffers.address(dst))));
        }
        for (CompletableFuture<Long> each : posted) {
            assertThat(each.get(SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
        }
        for (int rank = 0; rank < 2; rank++) {
            for (int from = 0; from < 2; from++) {
                for (int i = 0; i < block; i++) {
                    assertThat(outs.get(rank).get(from * block + i))
                            .as("rank %d, block from %d, byte %d", rank, from, i)
                            .isEqualTo((byte) (from * 100 + rank * 10 + (rank * block + i) % 7));
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"worker_coll", "mixed"})
    void ranksThatPostDifferentCountsBothLearnItAndNothingIsWritten(String plugins) throws Exception {
        List<CollClient> clients = team(plugins);
        List<ByteBuffer> results = new ArrayList<>();
        List<CompletableFuture<Long>> posted = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            ByteBuffer src = direct(64 * Integer.BYTES);
            ByteBuffer dst = direct(64 * Integer.BYTES);
            results.add(dst);
            posted.add(clients.get(rank)
                    .post(
                            TEAM,
                            CollArgs.allreduce(
                                    DataType.INT32,
                                    ReduceOp.MAX,
                                    32 + 32 * rank,
                                    CollBuffers.address(src),
                                    CollBuffers.address(dst))));
        }
        for (CompletableFuture<Long> each : posted) {
            assertThatThrownBy(() -> each.get(SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOfSatisfying(CollException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.MISMATCH);
                        assertThat(e.detail()).as("the count differs").isEqualTo(5);
                    });
        }
        for (ByteBuffer dst : results) {
            for (int i = 0; i < 64; i++) {
                assertThat(dst.getInt(i * Integer.BYTES)).as("untouched").isZero();
            }
        }
    }

    /** Two workers (domain ids 0 and 1) with the plugins named, and a team over both; the client of each rank. */
    private List<CollClient> team(String plugins) throws Exception {
        List<String> names = switch (plugins) {
            case "mixed" -> List.of("worker_coll", "worker_coll_java");
            default -> List.of(plugins, plugins);
        };
        List<CollClient> clients = new ArrayList<>();
        List<Worker> members = new ArrayList<>();
        for (String name : names) {
            var info = service.plugins().stream()
                    .filter(p -> p.info().name().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the daemon does not serve " + name))
                    .info();
            Worker worker = service.newWorker().plugins(info.id()).build();
            workers.add(worker);
            worker.start().get(SECONDS, TimeUnit.SECONDS);
            members.add(worker);
            clients.add(new CollClient(worker, info.id(), info.version()));
        }
        Domain.create(members, new long[] {0, 1}, InProcessAllgather.group(1).get(0))
                .start()
                .get(SECONDS, TimeUnit.SECONDS);
        List<CompletableFuture<CollClient.Team>> created = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            created.add(clients.get(rank).createTeam(TeamSpec.range(TEAM, 2, rank, 0, 1)));
        }
        for (int rank = 0; rank < 2; rank++) {
            assertThat(created.get(rank).get(SECONDS, TimeUnit.SECONDS)).isEqualTo(new CollClient.Team(TEAM, rank, 2));
        }
        return clients;
    }

    private static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
