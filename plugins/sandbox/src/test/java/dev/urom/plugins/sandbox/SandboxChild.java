// SPDX-License-Identifier: Apache-2.0
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The main class of a child JVM that hosts one sandbox plugin ({@code .so} or {@code .jar}, by the
 * worker's standard loader) alone in its domain: domain id 0 is the plugin itself, any other id is
 * unknown. What the plugin does to its process (a crash, the environment it reads when it opens)
 * stays in that process. Other domain ids become peers when the driver names their addresses
 * ({@code peer}): two children told each other's addresses are two workers of one domain.
 * {@link SandboxChildProcess} drives it; one line each way:
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
 * Commands are taken in order; awaits are answered in order while the host progresses all the time.
 * Logs go to stderr ({@code System.out} is stderr too, before anything logs). Arguments: the
 * plugin file and the plugin id. The host is driven from the main thread only; one more thread
 * reads the input.
 */
final class SandboxChild {
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final HexFormat HEX = HexFormat.of();
    /** Marks the end of the input in the queue of lines (never a line: lines hold no NUL). */
    private static final String END = "\0end";

    private SandboxChild() {}

    public static void main(String[] args) throws IOException {
        Path plugin = Path.of(args[0]);
        long pluginId = Long.parseLong(args[1]);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        WorkerHost[] self = new WorkerHost[1];
        Alone domain = new Alone(self, pluginId);
        WorkerHostConfig config =
                WorkerHostConfig.defaults().withMaxMessageSize(4 << 20).withDomain(domain);
        try (WorkerHost host =
                WorkerHost.open(9, List.of(new PluginSpec(plugin, pluginId)), PluginLoader.standard(), config)) {
            self[0] = host;
            PluginFailure failure = host.failures().get(pluginId);
            out.println(failure == null ? "opened" : "open-failed " + failure.status());
            serve(host, pluginId, domain, out);
        }
    }

    /**
     * Reads the input on a thread of its own and progresses the host all along on this one, so that
     * the plugin serves its peers (UCX wire-up, rendezvous) while the test talks to another child.
     */
    private static void serve(WorkerHost host, long pluginId, Alone domain, PrintStream out) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                        for (String line; (line = in.readLine()) != null; ) {
                            lines.add(line);
                        }
                    } catch (IOException e) {
                        System.err.println("sandbox child: reading the input failed: " + e.getMessage());
                    }
                    lines.add(END);
                },
                "sandbox-child-input");
        reader.setDaemon(true);
        reader.start();
        List<WorkerNotification> answers = new ArrayList<>();
        ArrayDeque<long[]> awaits = new ArrayDeque<>();
        while (true) {
            String line = lines.poll();
            if (line != null) {
                if (line.equals(END)) {
                    return;
                }
                String[] words = line.split(" ");
                long uromContext = Long.parseLong(words[1]);
                switch (words[0]) {
                    case "submit" -> host.submit(new WorkerCommand(5, pluginId, uromContext, HEX.parseHex(words[2])));
                    case "address" -> out.println("address " + hex(addressOf(host, pluginId)));
                    case "peer" -> domain.peers.put(uromContext, HEX.parseHex(words[2]));
                    default -> awaits.add(new long[] {uromContext, System.nanoTime() + TIMEOUT.toNanos()});
                }
                continue;
            }
            int progressed = host.progress(answer -> answers.add(answer.notification()));
            long[] head = awaits.peek();
            if (head != null) {
                String answered = answer(host, pluginId, head[0], answers);
                if (answered != null || System.nanoTime() - head[1] > 0) {
                    awaits.remove();
                    out.println(answered != null ? answered : "timeout " + head[0]);
                }
            }
            if (progressed == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** The answer line for {@code uromContext} if it came (removed from {@code answers}), else null. */
    private static String answer(WorkerHost host, long pluginId, long uromContext, List<WorkerNotification> answers) {
        for (int i = 0; i < answers.size(); i++) {
            WorkerNotification answer = answers.get(i);
            if (answer.uromContext() == uromContext) {
                answers.remove(i);
                return "answer " + uromContext + " " + answer.status() + " " + hex(answer.payload()) + " "
                        + hex(packed(host, pluginId, answer));
            }
        }
        return null;
    }

    private static byte[] addressOf(WorkerHost host, long pluginId) {
        try {
            return host.plugin(pluginId).orElseThrow().address();
        } catch (UromException e) {
            throw new IllegalStateException("the plugin has no address: " + e.getMessage(), e);
        }
    }

    private static byte[] packed(WorkerHost host, long pluginId, WorkerNotification answer) {
        try {
            return host.plugin(pluginId).orElseThrow().packNotification(answer);
        } catch (UromException e) {
            throw new IllegalStateException(
                    "packing the answer to context " + answer.uromContext() + " failed: " + e.getMessage(), e);
        }
    }

    private static String hex(byte[] bytes) {
        return bytes.length == 0 ? "-" : HEX.formatHex(bytes);
    }

    /**
     * Domain lookups of a host that is domain id 0 of its domain: id 0 is its own plugin, other ids
     * are the peers the driver named; nothing else exists.
     */
    private static final class Alone implements DomainLookups {
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
                return peer.clone();
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
