package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.nativebridge.NativePlugin;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.DomainLookups;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Two worker hosts in one JVM, each with its own copy of {@code worker_sandbox.so} (a library
 * opened twice under one name would be one library), that find each other through a test domain:
 * domain id 0 is host A, 1 is host B. Driven from the test thread only; {@link #close} closes both.
 */
final class SandboxNativePeers implements AutoCloseable {
    /** Generous: the build machine is shared and noisy. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final long PLUGIN_ID = 1L << 4;
    static final long DOMAIN_A = 0;
    static final long DOMAIN_B = 1;
    static final String SO_PROPERTY = "urom.sandbox.so";

    private final Map<Long, WorkerHost> byDomain = new ConcurrentHashMap<>();
    final WorkerHost a;
    final WorkerHost b;
    private final Map<WorkerHost, List<WorkerNotification>> received = new ConcurrentHashMap<>();
    private long nextContext = 100;

    SandboxNativePeers(Path dir) throws IOException {
        Path so = NativeFixtures.builtFile(SO_PROPERTY);
        Path soA = Files.copy(so, dir.resolve("worker_sandbox_a.so"), StandardCopyOption.REPLACE_EXISTING);
        Path soB = Files.copy(so, dir.resolve("worker_sandbox_b.so"), StandardCopyOption.REPLACE_EXISTING);
        WorkerHostConfig config = WorkerHostConfig.defaults().withDomain(new TestDomain());
        PluginLoader loader = PluginLoader.byExtension(NativePlugin::load, path -> {
            throw new UromException(UromStatus.NOT_SUPPORTED, "only native plugins here: " + path);
        });
        a = open(1, soA, loader, config);
        b = open(2, soB, loader, config);
        byDomain.put(DOMAIN_A, a);
        byDomain.put(DOMAIN_B, b);
        received.put(a, new ArrayList<>());
        received.put(b, new ArrayList<>());
    }

    private static WorkerHost open(long workerId, Path so, PluginLoader loader, WorkerHostConfig config) {
        WorkerHost host = WorkerHost.open(workerId, List.of(new PluginSpec(so, PLUGIN_ID)), loader, config);
        assertThat(host.failures()).as("plugins that failed to load or open").isEmpty();
        return host;
    }

    static PluginIface plugin(WorkerHost host) {
        return host.plugin(PLUGIN_ID).orElseThrow(() -> new AssertionError("the sandbox plugin is not open"));
    }

    /** The plugin's published address as text. */
    static String address(WorkerHost host) throws UromException {
        return new String(plugin(host).address(), java.nio.charset.StandardCharsets.US_ASCII);
    }

    long context() {
        return nextContext++;
    }

    /** Submits a command (payload built by {@link SandboxNativeCodec}) to a host's plugin. */
    WorkerCommand submit(WorkerHost host, long uromContext, byte[] payload) {
        WorkerCommand command = new WorkerCommand(7, PLUGIN_ID, uromContext, payload);
        host.submit(command);
        return command;
    }

    /**
     * Progresses both hosts until {@code host} has answered {@code uromContext}; notifications for
     * other contexts are kept for later calls.
     */
    WorkerNotification await(WorkerHost host, long uromContext) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            WorkerNotification found = take(host, uromContext);
            if (found != null) {
                return found;
            }
            progressBoth();
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no answer to context " + uromContext + " within " + TIMEOUT);
            }
            Thread.onSpinWait();
        }
    }

    /** Progresses both hosts a number of rounds and says whether {@code host} answered {@code uromContext}. */
    boolean answeredAfterRounds(WorkerHost host, long uromContext, int rounds) {
        for (int i = 0; i < rounds; i++) {
            progressBoth();
        }
        return received.get(host).stream().anyMatch(n -> n.uromContext() == uromContext);
    }

    void progressBoth() {
        for (WorkerHost host : List.of(a, b)) {
            if (byDomain.containsValue(host)) {
                host.progress(received.get(host)::add);
            }
        }
    }

    private WorkerNotification take(WorkerHost host, long uromContext) {
        List<WorkerNotification> list = received.get(host);
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).uromContext() == uromContext) {
                return list.remove(i);
            }
        }
        return null;
    }

    /** Closes one host alone (its plugin says BYE); the other keeps running. */
    void closeHost(WorkerHost host) {
        byDomain.values().remove(host);
        host.close();
    }

    @Override
    public void close() {
        byDomain.clear();
        a.close();
        b.close();
    }

    /** Domain id 0 → A's plugin address, 1 → B's; anything else NOT_FOUND. */
    private final class TestDomain implements DomainLookups {
        @Override
        public byte[] address(long domainId) throws UromException {
            WorkerHost host = byDomain.get(domainId);
            if (host == null) {
                throw new UromException(UromStatus.NOT_FOUND, "no peer with domain id " + domainId);
            }
            return plugin(host).address();
        }

        @Override
        public int segment(long domainId, long va) throws UromException {
            throw new UromException(UromStatus.NOT_SUPPORTED, "no segments in this test domain");
        }

        @Override
        public byte[] memoryHandle(long domainId, int segment) throws UromException {
            throw new UromException(UromStatus.NOT_SUPPORTED, "no memory handles in this test domain");
        }

        @Override
        public byte[] memoryKey(long domainId, int segment) throws UromException {
            throw new UromException(UromStatus.NOT_SUPPORTED, "no memory keys in this test domain");
        }
    }
}
