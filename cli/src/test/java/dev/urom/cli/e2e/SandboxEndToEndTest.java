// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.urom.host.Domain;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.oob.InProcessAllgather;
import dev.urom.plugins.sandbox.host.SandboxClient;
import dev.urom.plugins.sandbox.host.SandboxClient.Received;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Protocol;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sandbox plugins end to end: a real daemon serving {@code worker_sandbox.so} and {@code
 * worker_sandbox_java.jar}, two real worker processes in one domain (domain ids 0 and 1) held by
 * this test as the only host, and messages between them over UCX. Each test runs with the C plugin
 * on both workers, the Java plugin on both, and (where two plugins talk) w0 C with w1 Java. After
 * every test no worker process is left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxEndToEndTest {
    private static final long SECONDS = ServiceHarness.LIMIT.toSeconds();
    private static final long ALL_BITS = -1L;
    /** 4096 max message size, less the command header (24) and the TAG_SEND fixed part (56). */
    private static final int LARGEST_INLINE = 4096 - 24 - SandboxClient.TAG_COMMAND_BYTES;

    @TempDir
    static Path shared;

    private ServiceHarness daemon;
    private UromService service;
    private long nativeId;
    private long javaId;
    private final List<Worker> workers = new ArrayList<>();
    private final List<ProcessHandle> processes = new ArrayList<>();
    private final List<Path> shmFiles = new ArrayList<>();
    private long nextContext = 1;

    /** Two workers of one domain: {@code w0} (domain id 0) and {@code w1} (domain id 1), with their plugin ids. */
    private record Pair(Worker w0, long p0, Worker w1, long p1, ProcessHandle w1Process) {}

    @BeforeAll
    void startDaemon() throws Exception {
        daemon = ServiceHarness.start(
                shared, ServiceHarness.sandboxPluginFolder(shared), Map.of(), "-l", "60", "--max-workers", "8");
        service = UromService.connect(daemon.address);
        nativeId = pluginId("worker_sandbox");
        javaId = pluginId("worker_sandbox_java");
        assertThat(service.maxMessageSize()).isEqualTo(4096);
    }

    @AfterEach
    void noWorkerLeft() throws Exception {
        for (int i = workers.size() - 1; i >= 0; i--) {
            workers.get(i).close();
        }
        workers.clear();
        for (Path file : shmFiles) {
            Files.deleteIfExists(file);
        }
        shmFiles.clear();
        ServiceHarness.awaitExit(processes);
        processes.clear();
        ServiceHarness.awaitExit(daemon.workers());
        // The daemon reaps an ended worker on its own thread: its table may still list it for a moment.
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
    @ValueSource(strings = {"worker_sandbox", "worker_sandbox_java", "mixed"})
    void aRegionTagSendLandsInTheReceiversMappedFileAtItsOffset(String plugins) throws Exception {
        Pair pair = pair(plugins);
        int fileBytes = 1 << 20;
        int sendOffset = 4321;
        int recvOffset = 100_003;
        int count = 300_000;
        byte[] pattern = new byte[fileBytes];
        for (int i = 0; i < fileBytes; i++) {
            pattern[i] = (byte) (i * 31 + 7 + (i >>> 8));
        }
        Path senderFile = shmFile(pattern);
        Path receiverFile = shmFile(new byte[fileBytes]);
        long senderMemh = get(SandboxClient.memMap(pair.w0, pair.p0, context(), senderFile.toString(), fileBytes));
        long receiverMemh = get(SandboxClient.memMap(pair.w1, pair.p1, context(), receiverFile.toString(), fileBytes));
        assertThat(senderMemh).isNotZero();
        assertThat(receiverMemh).isNotZero();

        CompletableFuture<Received> received = SandboxClient.tagRecvRegion(
                pair.w1, pair.p1, context(), 0x5a, ALL_BITS, receiverMemh, recvOffset, count + 1000);
        get(SandboxClient.tagSendRegion(pair.w0, pair.p0, context(), 1, 0x5a, senderMemh, sendOffset, count));

        Received answer = get(received);
        assertThat(answer.senderTag()).isEqualTo(0x5a);
        assertThat(answer.count()).isEqualTo(count);
        assertThat(answer.data()).as("a region receive carries no inline bytes").isEmpty();
        byte[] landed = Files.readAllBytes(receiverFile);
        byte[] expected = new byte[fileBytes];
        System.arraycopy(pattern, sendOffset, expected, recvOffset, count);
        assertThat(Arrays.mismatch(landed, expected))
                .as("first differing byte of the receiver's file")
                .isEqualTo(-1);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"worker_sandbox", "worker_sandbox_java", "mixed"})
    void theLargestInlineMessageArrivesIntactAndOneByteMoreIsTooBigAtOnce(String plugins) throws Exception {
        Pair pair = pair(plugins);
        byte[] largest = pattern(LARGEST_INLINE, 11);

        CompletableFuture<Received> received =
                SandboxClient.tagRecv(pair.w1, pair.p1, context(), 0x77, ALL_BITS, LARGEST_INLINE);
        get(SandboxClient.tagSend(pair.w0, pair.p0, context(), 1, 0x77, largest));
        Received answer = get(received);
        assertThat(answer.count()).isEqualTo(LARGEST_INLINE);
        assertThat(answer.data()).isEqualTo(largest);

        CompletableFuture<Void> tooBig =
                SandboxClient.tagSend(pair.w0, pair.p0, context(), 1, 0x78, pattern(LARGEST_INLINE + 1, 12));
        assertThat(tooBig).as("refused by the host, nothing sent").isDone();
        assertThat(failure(tooBig).status()).isEqualTo(UromStatus.TOO_BIG);

        // A receive matching any tag gets the next message: the refused one never left the host.
        CompletableFuture<Received> next = SandboxClient.tagRecv(pair.w1, pair.p1, context(), 0, 0, LARGEST_INLINE + 1);
        get(SandboxClient.tagSend(pair.w0, pair.p0, context(), 1, 0x79, bytes("still usable")));
        Received after = get(next);
        assertThat(after.senderTag()).isEqualTo(0x79);
        assertThat(after.data()).isEqualTo(bytes("still usable"));
    }

    /**
     * Over UCP (docs/sandbox-protocol.md, "Worker to worker") a peer's death shows in the sends to
     * it: they fail, within a bounded number of tries. A receive is not tied to a peer, so one that
     * was waiting keeps waiting and takes the next matching message, here the survivor's own.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"worker_sandbox", "worker_sandbox_java", "mixed"})
    void aPeerKilledFailsTheSendsToItWhileAPendingReceiveWaitsAndTheSurvivorGoesOn(String plugins) throws Exception {
        Pair pair = pair(plugins);
        assertThat(exchange(pair.w0, pair.p0, 1, pair.w1, pair.p1, 0x10, "ping").data())
                .isEqualTo(bytes("ping"));
        assertThat(exchange(pair.w1, pair.p1, 0, pair.w0, pair.p0, 0x11, "pong").data())
                .isEqualTo(bytes("pong"));
        CompletableFuture<Received> pending = SandboxClient.tagRecv(pair.w0, pair.p0, context(), 0x999, ALL_BITS, 64);

        assertThat(pair.w1Process.destroyForcibly()).isTrue();
        ServiceHarness.awaitExit(List.of(pair.w1Process));

        UromStatus failed = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        while (failed == null && System.nanoTime() - deadline < 0) {
            try {
                get(SandboxClient.tagSend(pair.w0, pair.p0, context(), 1, 0x10, bytes("anyone?")));
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(UromException.class);
                failed = ((UromException) e.getCause()).status();
            }
        }
        assertThat(failed).as("a send to the dead peer").isIn(UromStatus.CONNECTION_RESET, UromStatus.NOT_CONNECTED);
        assertThat(pending).as("the receive posted before the death").isNotDone();

        CompletableFuture<Received> mine = SandboxClient.tagRecv(pair.w0, pair.p0, context(), 0x12, ALL_BITS, 256);
        get(SandboxClient.tagSend(pair.w0, pair.p0, context(), 0, 0x12, bytes("to myself")));
        assertThat(get(mine).data()).isEqualTo(bytes("to myself"));
        get(SandboxClient.tagSend(pair.w0, pair.p0, context(), 0, 0x999, bytes("still waiting")));
        assertThat(get(pending).data()).isEqualTo(bytes("still waiting"));
        awaitWorkersListed(List.of(pair.w0.id()));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"worker_sandbox", "worker_sandbox_java"})
    void aTagSendToADomainIdNobodyHasIsNotFound(String plugins) throws Exception {
        Pair pair = pair(plugins);

        UromException unknown = failure(SandboxClient.tagSend(pair.w0, pair.p0, context(), 7, 0x1, bytes("nobody")));

        assertThat(unknown.status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(exchange(pair.w0, pair.p0, 1, pair.w1, pair.p1, 0x2, "somebody")
                        .data())
                .isEqualTo(bytes("somebody"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"worker_sandbox", "worker_sandbox_java", "mixed"})
    void queuedMessagesGoToReceivesByTagAndMaskOldestFirst(String plugins) throws Exception {
        Pair pair = pair(plugins);
        long[] tags = {0x1001, 0x2002, 0x1003};
        for (long tag : tags) {
            get(SandboxClient.tagSend(
                    pair.w0, pair.p0, context(), 1, tag, bytes("message 0x" + Long.toHexString(tag))));
        }
        // One connection keeps order: once this last message is received, the three wait unexpected at w1.
        assertThat(exchange(pair.w0, pair.p0, 1, pair.w1, pair.p1, 0x7000, "sentinel")
                        .senderTag())
                .isEqualTo(0x7000);

        Received first = get(SandboxClient.tagRecv(pair.w1, pair.p1, context(), 0x1000, 0xf000, 64));
        Received second = get(SandboxClient.tagRecv(pair.w1, pair.p1, context(), 0x1000, 0xf000, 64));
        Received third = get(SandboxClient.tagRecv(pair.w1, pair.p1, context(), 0x2002, 0xffff, 64));

        assertThat(List.of(first, second, third))
                .extracting(Received::senderTag)
                .containsExactly(0x1001L, 0x1003L, 0x2002L);
        assertThat(List.of(first, second, third))
                .extracting(r -> new String(r.data(), StandardCharsets.UTF_8))
                .containsExactly("message 0x1001", "message 0x1003", "message 0x2002");
    }

    /** Starts w1 (recording its process), then w0, and forms their domain. */
    private Pair pair(String plugins) throws Exception {
        long p0 = plugins.equals("worker_sandbox_java") ? javaId : nativeId;
        long p1 = plugins.equals("worker_sandbox") ? nativeId : javaId;
        Set<Long> before = daemon.workers().stream().map(ProcessHandle::pid).collect(Collectors.toSet());
        Worker w1 = started(p1);
        List<ProcessHandle> fresh =
                daemon.workers().stream().filter(p -> !before.contains(p.pid())).toList();
        assertThat(fresh).as("the process spawned for w1").hasSize(1);
        Worker w0 = started(p0);
        processes.addAll(daemon.workers());
        Domain domain = Domain.create(
                        List.of(w0, w1),
                        new long[] {0, 1},
                        InProcessAllgather.group(1).get(0))
                .start()
                .get(SECONDS, TimeUnit.SECONDS);
        assertThat(domain.peers()).hasSize(2);
        return new Pair(w0, p0, w1, p1, fresh.get(0));
    }

    private Worker started(long pluginId) throws Exception {
        Worker worker = service.newWorker().plugins(pluginId).build();
        workers.add(worker);
        worker.start().get(SECONDS, TimeUnit.SECONDS);
        return worker;
    }

    /** Posts a receive at {@code to}, then sends {@code text} from {@code from} to domain id {@code dest}. */
    private Received exchange(Worker from, long fromPlugin, long dest, Worker to, long toPlugin, long tag, String text)
            throws Exception {
        CompletableFuture<Received> received = SandboxClient.tagRecv(to, toPlugin, context(), tag, ALL_BITS, 256);
        get(SandboxClient.tagSend(from, fromPlugin, context(), dest, tag, bytes(text)));
        Received answer = get(received);
        assertThat(answer.senderTag()).isEqualTo(tag);
        return answer;
    }

    private void awaitWorkersListed(List<Long> expected) throws Exception {
        long deadline = System.nanoTime() + ServiceHarness.LIMIT.toNanos();
        List<Long> listed = service.workersInGroup(Protocol.ALL_GROUPS);
        while (!listed.equals(expected) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            listed = service.workersInGroup(Protocol.ALL_GROUPS);
        }
        assertThat(listed).as("the workers the daemon lists").isEqualTo(expected);
    }

    private Path shmFile(byte[] content) throws Exception {
        Path file = Path.of("/dev/shm", "urom-e2e-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID());
        shmFiles.add(file);
        Files.write(file, content);
        return file;
    }

    private long pluginId(String name) throws UromException {
        return service.plugins().stream()
                .filter(p -> p.info().name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the daemon does not serve " + name))
                .info()
                .id();
    }

    private long context() {
        return nextContext++;
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(SECONDS, TimeUnit.SECONDS);
    }

    private static UromException failure(CompletableFuture<?> future) throws Exception {
        try {
            future.get(SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(UromException.class);
            return (UromException) e.getCause();
        }
        return fail("expected a failure, but it completed normally");
    }

    private static byte[] pattern(int length, int seed) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (i * seed + (i >>> 7));
        }
        return data;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
