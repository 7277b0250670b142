// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.host.Domain;
import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.oob.InProcessAllgather;
import dev.urom.oob.OobAllgather;
import dev.urom.oob.OobRequest;
import dev.urom.oob.TcpRendezvousAllgather;
import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Domains end to end: a real daemon, real worker processes, a native and a Java plugin that look
 * their peers up; the host's {@link Domain} exchanges the addresses through an allgather.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DomainEndToEndTest {
    @TempDir
    static Path pluginDir;

    @TempDir
    Path dir;

    private Daemon daemon;
    private UromService service;
    private long nativeId;
    private long javaId;

    @BeforeAll
    static void buildPlugins() throws Exception {
        WorkerFixtures.domainPeer(pluginDir);
        WorkerFixtures.javaPluginJar(
                pluginDir.resolve("domain_peer_java.jar"), "domain_peer_java", "1", DomainPeerJavaPlugin.class);
    }

    @BeforeEach
    void startDaemon() throws Exception {
        DaemonConfig config = Daemon.configureLogging(DaemonConfig.builder()
                .listen(ServiceAddress.unix(dir.resolve("urom.sock")))
                .logDir(dir.resolve("log"))
                .pluginPath(pluginDir.toString())
                .security(TestWorkers.security())
                .build());
        daemon = Daemon.start(config);
        service = UromService.connect(daemon.address().toString());
        for (Plugin p : service.plugins()) {
            if (p.name().equals("domain_peer")) {
                nativeId = p.id();
            } else if (p.name().equals("domain_peer_java")) {
                javaId = p.id();
            }
        }
        assertThat(nativeId).as("the native plugin's id").isNotZero();
        assertThat(javaId).as("the Java plugin's id").isNotZero();
    }

    @AfterEach
    void stopDaemon() {
        if (service != null) {
            service.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        Configurator.reconfigure();
    }

    private Worker started(long id) throws Exception {
        return service.newWorker()
                .id(id)
                .plugins(nativeId | javaId)
                .build()
                .start()
                .get(90, TimeUnit.SECONDS);
    }

    private static byte[] domainId(long id) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(id).array();
    }

    private static Notification lookUp(Worker worker, long pluginId, long peerDomainId) throws Exception {
        return worker.submit(pluginId, domainId(peerDomainId)).get(60, TimeUnit.SECONDS);
    }

    /** The address the table holds for {@code pluginId} at {@code domainId}. */
    private static byte[] published(Domain domain, long domainId, long pluginId) {
        Domain.Peer peer = domain.peers().stream()
                .filter(p -> p.domainId() == domainId)
                .findFirst()
                .orElseThrow();
        return peer.addresses().stream()
                .filter(a -> a.pluginId() == pluginId)
                .findFirst()
                .orElseThrow()
                .address();
    }

    private static void startBoth(Domain a, Domain b) throws Exception {
        CompletableFuture<Domain> first = a.start();
        CompletableFuture<Domain> second = b.start();
        first.get(90, TimeUnit.SECONDS);
        second.get(90, TimeUnit.SECONDS);
    }

    private static UromException failure(CompletableFuture<Domain> start) throws Exception {
        try {
            start.get(90, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(UromException.class);
            return (UromException) e.getCause();
        }
        throw new AssertionError("the domain started although it should not have");
    }

    @Test
    void pluginsOfTwoWorkersFindEachOtherThroughTheDomainTable() throws Exception {
        Worker first = started(1);
        Worker second = started(2);
        assertThat(lookUp(first, nativeId, 200).status())
                .as("before any domain")
                .isEqualTo(UromStatus.NOT_FOUND);
        assertThat(lookUp(first, javaId, 200).status()).as("before any domain").isEqualTo(UromStatus.NOT_FOUND);

        List<OobAllgather> group = InProcessAllgather.group(2);
        Domain rank0 = Domain.create(List.of(first), new long[] {100}, group.get(0));
        Domain rank1 = Domain.create(List.of(second), new long[] {200}, group.get(1));
        startBoth(rank0, rank1);

        Notification nativeAnswer = lookUp(first, nativeId, 200);
        assertThat(nativeAnswer.status()).isEqualTo(UromStatus.SUCCESS);
        byte[] secondNative = published(rank0, 200, nativeId);
        assertThat(new String(secondNative, StandardCharsets.UTF_8))
                .startsWith("native-")
                .endsWith("\0");
        assertThat(nativeAnswer.payload()).isEqualTo(Arrays.copyOf(secondNative, secondNative.length - 1));
        Notification nativeBack = lookUp(second, nativeId, 100);
        assertThat(nativeBack.payload())
                .isNotEqualTo(nativeAnswer.payload())
                .isEqualTo(Arrays.copyOf(published(rank1, 100, nativeId), published(rank1, 100, nativeId).length - 1));

        Notification javaAnswer = lookUp(first, javaId, 200);
        assertThat(javaAnswer.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(javaAnswer.payload()).isEqualTo(published(rank0, 200, javaId));
        assertThat(new String(javaAnswer.payload(), StandardCharsets.UTF_8)).startsWith("java-");
        assertThat(lookUp(second, javaId, 100).payload())
                .isEqualTo(published(rank1, 100, javaId))
                .isNotEqualTo(javaAnswer.payload());

        assertThat(lookUp(first, nativeId, 999).status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(lookUp(first, javaId, 999).status()).isEqualTo(UromStatus.NOT_FOUND);

        // a second domain over TCP replaces the first table in both workers
        try (TcpRendezvousAllgather tcp0 =
                        new TcpRendezvousAllgather(0, 2, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                TcpRendezvousAllgather tcp1 = new TcpRendezvousAllgather(1, 2, tcp0.listeningAddress())) {
            Domain again0 = Domain.create(List.of(first), new long[] {300}, tcp0);
            Domain again1 = Domain.create(List.of(second), new long[] {400}, tcp1);
            startBoth(again0, again1);
            assertThat(lookUp(first, javaId, 400).payload()).isEqualTo(published(again0, 400, javaId));
            assertThat(lookUp(second, nativeId, 300).status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(lookUp(first, javaId, 200).status())
                    .as("the old table is gone")
                    .isEqualTo(UromStatus.NOT_FOUND);
        }

        // domain ids that two ranks share are refused on both ranks
        List<OobAllgather> clash = InProcessAllgather.group(2);
        CompletableFuture<Domain> clash0 =
                Domain.create(List.of(first), new long[] {7}, clash.get(0)).start();
        CompletableFuture<Domain> clash1 =
                Domain.create(List.of(second), new long[] {7}, clash.get(1)).start();
        for (CompletableFuture<Domain> f : List.of(clash0, clash1)) {
            UromException e = failure(f);
            assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE);
            assertThat(e).hasMessage("domain id 7 is not unique: rank 0 and rank 1 both use it");
        }
    }

    @Test
    void aWorkerThatIsNotRunningIsRefused() throws Exception {
        Worker idle = service.newWorker().id(5).plugins(nativeId).build();
        UromException e = failure(Domain.create(
                        List.of(idle),
                        new long[] {1},
                        InProcessAllgather.group(1).get(0))
                .start());
        assertThat(e.status()).isEqualTo(UromStatus.BAD_STATE);
        assertThat(e).hasMessage("worker 5 is IDLE, not RUNNING");
    }

    @Test
    void anAllgatherIndexOutsideItsSizeIsRefused() throws Exception {
        OobAllgather broken = new OobAllgather() {
            @Override
            public OobRequest allgather(byte[] send, byte[] recv, int len) {
                throw new AssertionError("no allgather may start");
            }

            @Override
            public boolean test(OobRequest request) {
                return true;
            }

            @Override
            public void free(OobRequest request) {}

            @Override
            public int size() {
                return 2;
            }

            @Override
            public int index() {
                return 2;
            }
        };
        UromException e = failure(Domain.create(List.of(), new long[0], broken).start());
        assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(e).hasMessage("allgather index 2 is outside 0..1 (size 2)");
    }
}
