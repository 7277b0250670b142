// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.host.Notification;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code urom cmd --service ADDR --plugin NAME|ID --payload-hex HEX [--worker-id N]}: starts or
 * joins a worker with that plugin, sends one command, prints the status and the payload. Exit
 * status 0 when the plugin answered SUCCESS; otherwise 1 and one line on stderr, {@code urom cmd:
 * <STATUS>: <message>}, the message being the one a Java plugin failed with (the answer's payload).
 */
@Command(name = "cmd", description = "Send one command to a plugin through a daemon's worker, print the answer.")
final class CmdCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ServiceOptions service;

    @Option(
            names = "--plugin",
            required = true,
            paramLabel = "NAME|ID",
            description = "Plugin name, or its id (decimal or 0x hex).")
    String plugin;

    @Option(
            names = "--payload-hex",
            required = true,
            paramLabel = "HEX",
            description = "The plugin command bytes, in hexadecimal.")
    String payloadHex;

    @Option(
            names = "--worker-id",
            paramLabel = "N",
            description = "Start or join the worker with this id (default: any new worker).")
    Long workerId;

    @Override
    public Integer call() {
        byte[] payload = Hex.parse("--payload-hex", payloadHex);
        try (RemoteWorker worker = RemoteWorker.open(service, plugin, workerId)) {
            Notification answer = worker.send(payload);
            PrintWriter out = spec.commandLine().getOut();
            out.println("worker: " + Long.toUnsignedString(worker.worker().id()));
            out.println("status: " + answer.status() + " (" + answer.status().code() + ")");
            out.println("payload: " + Hex.format(answer.payload()));
            if (!answer.status().isSuccess()) {
                spec.commandLine()
                        .getErr()
                        .println("urom cmd: " + FailureMessage.describe(answer.status(), answer.reason()));
                return Main.FAILED;
            }
            return 0;
        }
    }
}
