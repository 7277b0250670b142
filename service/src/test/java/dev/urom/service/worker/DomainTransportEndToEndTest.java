// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.host.Domain;
import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.oob.InProcessAllgather;
import dev.urom.oob.OobAllgather;
import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A C and a Java plugin under different ids meet through the transport they both name, end to end:
 * a real daemon, two worker processes, the host's {@link Domain} passing each address's transport
 * and seal through; a plugin that names no transport never gets their addresses.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DomainTransportEndToEndTest {
    private static final long LOOKUP = 3;

    @TempDir
    Path dir;

    private Daemon daemon;
    private UromService service;

    @AfterEach
    void stop() {
        if (service != null) {
            service.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        Configurator.reconfigure();
    }

    private static long id(List<Plugin> plugins, String name) {
        return plugins.stream()
                .filter(p -> p.name().equals(name))
                .mapToLong(Plugin::id)
                .findFirst()
                .orElseThrow();
    }

    private static Notification lookUp(Worker worker, long pluginId, long domainId) throws Exception {
        byte[] command = ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(LOOKUP)
                .putLong(domainId)
                .array();
        return worker.submit(pluginId, command).get(60, TimeUnit.SECONDS);
    }

    @Test
    void aNativeAndAJavaPluginOfTheSameTransportFindEachOther() throws Exception {
        Path plugins = dir.resolve("plugins");
        NativeFixtures.compileWakeupPlugin(
                plugins, "ucp_native.so", "-DTRANSPORT=\"ucp-tag\"", "-DADDRESS_PREFIX=\"native\"");
        NativeFixtures.compileWakeupPlugin(plugins, "plain_native.so", "-DADDRESS_PREFIX=\"plain\"");
        WorkerFixtures.javaPluginJar(plugins.resolve("ucp_java.jar"), "ucp_java", "1", WakeupJavaPlugin.class);
        DaemonConfig config = Daemon.configureLogging(DaemonConfig.builder()
                .listen(ServiceAddress.unix(dir.resolve("urom.sock")))
                .logDir(dir.resolve("log"))
                .pluginPath(plugins.toString())
                .security(TestWorkers.security())
                .build());
        daemon = Daemon.start(config);
        service = UromService.connect(daemon.address().toString());
        List<Plugin> listed = service.plugins();
        long nativeId = id(listed, "ucp_native");
        long plainId = id(listed, "plain_native");
        long javaId = id(listed, "ucp_java");

        Worker first = service.newWorker()
                .id(1)
                .plugins(nativeId | plainId)
                .build()
                .start()
                .get(90, TimeUnit.SECONDS);
        Worker second =
                service.newWorker().id(2).plugins(javaId).build().start().get(90, TimeUnit.SECONDS);
        List<OobAllgather> group = InProcessAllgather.group(2);
        Domain rank0 = Domain.create(List.of(first), new long[] {100}, group.get(0));
        Domain rank1 = Domain.create(List.of(second), new long[] {200}, group.get(1));
        CompletableFuture<Domain> a = rank0.start();
        CompletableFuture<Domain> b = rank1.start();
        a.get(90, TimeUnit.SECONDS);
        b.get(90, TimeUnit.SECONDS);

        Domain.Peer secondPeer = rank0.peers().stream()
                .filter(p -> p.domainId() == 200)
                .findFirst()
                .orElseThrow();
        assertThat(secondPeer.addresses())
                .singleElement()
                .satisfies(address -> assertThat(address.transport()).isEqualTo("ucp-tag"));
        Domain.Peer firstPeer = rank1.peers().stream()
                .filter(p -> p.domainId() == 100)
                .findFirst()
                .orElseThrow();
        assertThat(firstPeer.addresses())
                .extracting(Domain.PeerAddress::transport)
                .containsExactlyInAnyOrder("ucp-tag", "");

        Notification fromNative = lookUp(first, nativeId, 200);
        assertThat(fromNative.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(new String(fromNative.payload(), StandardCharsets.UTF_8))
                .startsWith("java-")
                .isEqualTo(new String(secondPeer.addresses().get(0).address(), StandardCharsets.UTF_8));

        Notification fromJava = lookUp(second, javaId, 100);
        assertThat(fromJava.status()).isEqualTo(UromStatus.SUCCESS);
        byte[] nativeAddress = firstPeer.addresses().stream()
                .filter(p -> p.pluginId() == nativeId)
                .findFirst()
                .orElseThrow()
                .address();
        assertThat(fromJava.payload())
                .as("the ucp-tag address, not the plain plugin's")
                .startsWith("native-".getBytes(StandardCharsets.UTF_8))
                .isEqualTo(nativeAddress);

        assertThat(lookUp(first, plainId, 200).status())
                .as("a plugin without a transport")
                .isEqualTo(UromStatus.NOT_FOUND);
    }
}
