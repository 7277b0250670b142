// SPDX-License-Identifier: Apache-2.0
package dev.urom.examples;

import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.PluginVersions;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.spi.UromException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ExecutionException;

/**
 * One LOOPBACK through the graph plugin of a running daemon: {@code GraphLoopback [ADDRESS [VALUE]]};
 * without an address, the daemon's default one ({@code urom address} prints it).
 */
public final class GraphLoopback {
    public static void main(String[] args) throws ExecutionException, InterruptedException {
        try {
            run(args);
        } catch (UromException e) {
            System.err.println("graph-loopback: " + e.getMessage()); // one line: what failed and why
            System.exit(1);
        }
    }

    static void run(String[] args) throws UromException, ExecutionException, InterruptedException {
        long value = args.length > 1 ? Long.parseUnsignedLong(args[1]) : 42;
        // The key in the file UROM_AUTH_KEY_FILE names, if it is set (always needed on TCP).
        // No address: where `urom daemon` listens by default.
        try (UromService service = args.length > 0 ? UromService.connect(args[0]) : UromService.connect()) {
            Plugin graph = PluginVersions.require(service.plugins(), "worker_graph", 1);
            try (Worker worker = service.newWorker()
                    .gid(0)
                    .plugins(graph.id())
                    .maxInflight(64)
                    .build()) {
                worker.start().get(); // IDLE -> STARTING -> RUNNING
                // LOOPBACK: { uint64 type = 0; uint64 data; }, little-endian; the plugin answers the same.
                byte[] command = ByteBuffer.allocate(16)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(0)
                        .putLong(value)
                        .array();
                Notification answer = worker.submit(graph.id(), command).get();
                if (!answer.status().isSuccess()) {
                    throw new UromException(answer.status(), "LOOPBACK failed");
                }
                long echoed = ByteBuffer.wrap(answer.payload())
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .getLong(8);
                System.out.println("loopback " + Long.toUnsignedString(value) + " -> " + Long.toUnsignedString(echoed)
                        + " via worker " + worker.id());
            } // STOP: the worker process ends
        }
    }
}
