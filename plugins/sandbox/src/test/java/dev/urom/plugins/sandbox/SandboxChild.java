package dev.urom.plugins.sandbox;

import dev.urom.framework.worker.PluginFailure;
import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.spi.DomainLookups;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The main class of a child JVM that hosts one sandbox plugin ({@code .so} or {@code .jar}, by the
 * worker's standard loader) alone in its domain: domain id 0 is the plugin itself, any other id is
 * unknown. What the plugin does to its process (a crash, the environment it reads when it opens)
 * stays in that process. Other domain ids become peers when the driver names their addresses
 * (another child's, for tests between worker processes). {@link SandboxChildProcess} drives it; one line each way:
 *
 * <ul>
 *   <li>at start it prints {@code opened}, or {@code open-failed <STATUS>};
 *   <li>{@code submit <uromContext> <payload hex>} submits a plugin command, prints nothing;
 *   <li>{@code await <uromContext>} progresses until that command is answered and prints {@code
 *       answer <uromContext> <STATUS> <payload hex> <packed hex>} ({@code -} for no bytes), or
 *       {@code timeout <uromContext>};
 *   <li>{@code address 0} prints {@code address <hex>}, the plugin's address;
 *   <li>{@code peer <domainId> <address hex>} makes that domain id (not 0) a peer with that
 *       address (replacing an earlier one), prints nothing;
 *   <li>the end of its input closes the host; the process then exits 0.
 * </ul>
 *
 * Logs go to stderr ({@code System.out} is stderr too, before anything logs). Arguments: the
 * plugin file and the plugin id. The host is driven from the main thread alone; a second thread
 * only reads stdin. While no line waits, the host is progressed.
 */
final class SandboxChild {
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final HexFormat HEX = HexFormat.of();
    /** How long the idle child waits for its next input line before it progresses the host again. */
    private static final Duration IDLE_PROGRESS = Duration.ofMillis(1);
    /** Not a line the driver can send (it holds a NUL): the input ended. */
    private static final String END_OF_INPUT = "\0end";

    private SandboxChild() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        Path plugin = Path.of(args[0]);
        long pluginId = Long.parseLong(args[1]);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        WorkerHost[] self = new WorkerHost[1];
        Alone domain = new Alone(self, pluginId);
        WorkerHostConfig config = WorkerHostConfig.defaults().withMaxMessageSize(4 << 20).withDomain(domain);
        try (WorkerHost host = WorkerHost.open(9, List.of(new PluginSpec(plugin, pluginId)), PluginLoader.standard(), config)) {
            self[0] = host;
            PluginFailure failure = host.failures().get(pluginId);
            out.println(failure == null ? "opened" : "open-failed " + failure.status());
            List<WorkerNotification> answers = new ArrayList<>();
            BlockingQueue<String> lines = readLinesInBackground();
            while (true) {
                // Between lines the host keeps progressing, as a worker does: a peer's UCX handshake
                // (endpoint wire-up) needs this side's progress while the driver waits on the peer.
                String line = lines.poll(IDLE_PROGRESS.toNanos(), TimeUnit.NANOSECONDS);
                if (line == null) {
                    host.progress(answers::add);
                    continue;
                }
                if (line.equals(END_OF_INPUT)) {
                    break;
                }
                String[] words = line.split(" ");
                long uromContext = Long.parseLong(words[1]);
                if (words[0].equals("submit")) {
                    host.submit(new WorkerCommand(5, pluginId, uromContext, HEX.parseHex(words[2])));
                } else if (words[0].equals("address")) {
                    out.println("address " + hex(address(host, pluginId)));
                } else if (words[0].equals("peer")) {
                    domain.peers.put(uromContext, HEX.parseHex(words[2]));
                } else {
                    out.println(await(host, pluginId, uromContext, answers));
                }
            }
        }
    }

    private static String await(WorkerHost host, long pluginId, long uromContext, List<WorkerNotification> answers) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            for (int i = 0; i < answers.size(); i++) {
                WorkerNotification answer = answers.get(i);
                if (answer.uromContext() == uromContext) {
                    answers.remove(i);
                    return "answer " + uromContext + " " + answer.status() + " " + hex(answer.payload()) + " " + hex(packed(host, pluginId, answer));
                }
            }
            if (host.progress(answers::add) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    return "timeout " + uromContext;
                }
                Thread.onSpinWait();
            }
        }
    }

    private static byte[] packed(WorkerHost host, long pluginId, WorkerNotification answer) {
        try {
            return host.plugin(pluginId).orElseThrow().packNotification(answer);
        } catch (UromException e) {
            throw new IllegalStateException("packing the answer to context " + answer.uromContext() + " failed: " + e.getMessage(), e);
        }
    }

    /** The lines of stdin, read by a daemon thread, then {@link #END_OF_INPUT}. */
    private static BlockingQueue<String> readLinesInBackground() {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                System.err.println("sandbox child: reading stdin failed: " + e.getMessage());
            }
            lines.add(END_OF_INPUT);
        }, "sandbox-child-stdin");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    private static byte[] address(WorkerHost host, long pluginId) {
        try {
            return host.plugin(pluginId).orElseThrow().address();
        } catch (UromException e) {
            throw new IllegalStateException("the plugin's address: " + e.getMessage(), e);
        }
    }

    private static String hex(byte[] bytes) {
        return bytes.length == 0 ? "-" : HEX.formatHex(bytes);
    }

    /**
     * Domain lookups of a host that is domain id 0 of its domain: id 0 is its own plugin, other ids
     * are the peers the driver named; nothing else exists.
     */
    static final class Alone implements DomainLookups {
        private final WorkerHost[] self;
        private final long pluginId;
        final Map<Long, byte[]> peers = new HashMap<>();

        Alone(WorkerHost[] self, long pluginId) {
            this.self = self;
            this.pluginId = pluginId;
        }

        @Override
        public byte[] address(long domainId) throws UromException {
            byte[] peer = peers.get(domainId);
            if (peer != null) {
                return peer;
            }
            if (domainId != 0) {
                throw new UromException(UromStatus.NOT_FOUND, "domain id " + domainId + " is unknown");
            }
            return self[0].plugin(pluginId).orElseThrow().address();
        }

        @Override
        public int segment(long domainId, long va) throws UromException {
            throw new UromException(UromStatus.NOT_SUPPORTED, "no segments");
        }

        @Override
        public byte[] memoryHandle(long domainId, int segment) throws UromException {
            throw new UromException(UromStatus.NOT_SUPPORTED, "no segments");
        }

        @Override
        public byte[] memoryKey(long domainId, int segment) throws UromException {
            throw new UromException(UromStatus.NOT_SUPPORTED, "no segments");
        }
    }
}
