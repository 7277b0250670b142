// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.plugins.graph.host.GraphClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code urom loopback --service ADDR --value N [--plugin NAME]}: one graph LOOPBACK through a
 * daemon. N is unsigned, decimal or 0x hex, and the value that comes back is printed the same way.
 */
@Command(name = "loopback", description = "Loop a value back through the graph plugin of a daemon's worker.")
final class LoopbackCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ServiceOptions service;

    @Option(
            names = "--value",
            required = true,
            paramLabel = "N",
            converter = UnsignedValue.Converter.class,
            description = "The 64-bit value to loop back: unsigned decimal (0 to 18446744073709551615) or 0x hex.")
    UnsignedValue value;

    @Option(
            names = "--plugin",
            defaultValue = "worker_graph",
            paramLabel = "NAME",
            description = "The graph plugin (default: ${DEFAULT-VALUE}).")
    String plugin;

    @Override
    public Integer call() {
        try (RemoteWorker worker = RemoteWorker.open(service, plugin, null)) {
            long start = System.nanoTime();
            long echoed = RemoteWorker.await(
                    GraphClient.loopback(worker.worker(), worker.plugin().info().id(), value.bits()),
                    "LOOPBACK " + value + " through " + plugin);
            long micros = (System.nanoTime() - start) / 1_000;
            PrintWriter out = spec.commandLine().getOut();
            UnsignedValue answer = new UnsignedValue(echoed, value.hex());
            out.println("loopback " + value + " -> " + answer + " via " + plugin + " on worker "
                    + Long.toUnsignedString(worker.worker().id()) + " in " + micros + " us");
            return echoed == value.bits() ? 0 : Main.FAILED;
        }
    }
}
