package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.spi.DomainLookups;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Two worker hosts in one JVM whose sandbox plugins find each other through a test domain: domain
 * id 0 is host A, 1 is host B; any other id is unknown. Driven from the test thread only; {@link
 * #close} closes both.
 */
final class SandboxJavaPeers implements AutoCloseable {
    /** Generous: the build machine is shared and noisy. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final long PLUGIN_ID = 1L << 5;
    static final long DOMAIN_A = 0;
    static final long DOMAIN_B = 1;

    private final Map<Long, WorkerHost> byDomain = new HashMap<>();
    private final Map<WorkerHost, List<WorkerNotification>> received = new HashMap<>();
    final WorkerHost a;
    final WorkerHost b;
    private long nextContext = 1000;

    /** Both hosts' plugins made by {@code loader} from {@code pluginA} and {@code pluginB}. */
    SandboxJavaPeers(PluginLoader loader, Path pluginA, Path pluginB) {
        WorkerHostConfig config = WorkerHostConfig.defaults().withMaxMessageSize(1 << 20).withDomain(new TestDomain());
        a = open(1, loader, pluginA, config);
        b = open(2, loader, pluginB, config);
        byDomain.put(DOMAIN_A, a);
        byDomain.put(DOMAIN_B, b);
        received.put(a, new ArrayList<>());
        received.put(b, new ArrayList<>());
    }

    /** Two {@link SandboxPlugin}s from the test class path. */
    static SandboxJavaPeers javaOnly(Path dir) {
        return new SandboxJavaPeers(path -> new SandboxPlugin(), dir.resolve("worker_sandbox_java.jar"), dir.resolve("worker_sandbox_java.jar"));
    }

    private static WorkerHost open(long workerId, PluginLoader loader, Path plugin, WorkerHostConfig config) {
        WorkerHost host = WorkerHost.open(workerId, List.of(new PluginSpec(plugin.toAbsolutePath(), PLUGIN_ID)), loader, config);
        assertThat(host.failures()).as("plugins that failed to load or open").isEmpty();
        return host;
    }

    static PluginIface plugin(WorkerHost host) {
        return host.plugin(PLUGIN_ID).orElseThrow(() -> new AssertionError("the sandbox plugin is not open"));
    }

    long context() {
        return nextContext++;
    }

    /** Submits a plugin command to {@code host}, with {@code uromContext} equal to the command's context. */
    void submit(WorkerHost host, SandboxCommand command) {
        host.submit(new WorkerCommand(7, PLUGIN_ID, command.context(), command.encode()));
    }

    /** Submits {@code command} to {@code host} and progresses both hosts until its answer comes. */
    WorkerNotification call(WorkerHost host, SandboxCommand command) {
        submit(host, command);
        return await(host, command.context());
    }

    /** Progresses both hosts until {@code host} answered the command with {@code uromContext}; removes that answer. */
    WorkerNotification await(WorkerHost host, long uromContext) {
        return awaitMatching(host, n -> n.uromContext() == uromContext, "context " + uromContext);
    }

    private WorkerNotification awaitMatching(WorkerHost host, Predicate<WorkerNotification> wanted, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            List<WorkerNotification> mine = received.get(host);
            for (int i = 0; i < mine.size(); i++) {
                if (wanted.test(mine.get(i))) {
                    return mine.remove(i);
                }
            }
            if (progressBoth() == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("no answer for " + what + " within " + TIMEOUT + "; other answers: " + mine);
                }
                Thread.onSpinWait();
            }
        }
    }

    /** One progress round of each host; what comes out is kept for {@link #await}. */
    int progressBoth() {
        return a.progress(received.get(a)::add) + b.progress(received.get(b)::add);
    }

    /** Answers {@code host} gave that no {@link #await} took yet. */
    List<WorkerNotification> unclaimed(WorkerHost host) {
        return received.get(host);
    }

    /** The plugin address of the host at {@code domainId}. */
    byte[] addressOf(long domainId) throws UromException {
        return plugin(byDomain.get(domainId)).address();
    }

    @Override
    public void close() {
        try {
            a.close();
        } finally {
            b.close();
        }
    }

    private final class TestDomain implements DomainLookups {
        @Override
        public byte[] address(long domainId) throws UromException {
            WorkerHost host = byDomain.get(domainId);
            if (host == null) {
                throw new UromException(UromStatus.NOT_FOUND, "domain id " + domainId + " is not in the test domain");
            }
            return plugin(host).address();
        }

        @Override
        public int segment(long domainId, long va) throws UromException {
            throw new UromException(UromStatus.NOT_SUPPORTED, "no segments in the test domain");
        }

        @Override
        public byte[] memoryHandle(long domainId, int segment) throws UromException {
            throw new UromException(UromStatus.NOT_SUPPORTED, "no segments in the test domain");
        }

        @Override
        public byte[] memoryKey(long domainId, int segment) throws UromException {
            throw new UromException(UromStatus.NOT_SUPPORTED, "no segments in the test domain");
        }
    }
}
