// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.worker.WorkerAnswer;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code urom exec --plugin NAME --payload-hex HEX}: loads one plugin from UROM_PLUGIN_PATH in this
 * process, sends it one command and prints the status and the notification payload. Exit status
 * 0 when the plugin answered SUCCESS; otherwise 1 and one line on stderr, {@code urom exec:
 * <STATUS>: <reason>}, the reason being the one the plugin refused the command with, when it gave one.
 */
@Command(name = "exec", description = "Load one plugin in this process, send it one command, print the answer.")
final class ExecCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = "--plugin",
            required = true,
            paramLabel = "NAME",
            description = "Plugin name (file name without extension).")
    String pluginName;

    @Option(
            names = "--payload-hex",
            required = true,
            paramLabel = "HEX",
            description = "The plugin command bytes, in hexadecimal.")
    String payloadHex;

    @Option(
            names = "--timeout-ms",
            defaultValue = "10000",
            paramLabel = "MS",
            description = "How long to wait for the answer (default: ${DEFAULT-VALUE}).")
    long timeoutMs;

    private final Environment environment;

    ExecCommand(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Integer call() {
        byte[] payload = Hex.parse("--payload-hex", payloadHex);
        DiscoveredPlugin plugin = LocalPlugins.scan(environment).require(pluginName);
        try (LocalWorker worker = LocalWorker.open(List.of(plugin))) {
            WorkerAnswer answer = worker.call(plugin, payload, Duration.ofMillis(timeoutMs));
            PrintWriter out = spec.commandLine().getOut();
            out.println("status: " + answer.status() + " (" + answer.status().code() + ")");
            out.println("payload: " + Hex.format(answer.payload()));
            if (!answer.status().isSuccess()) {
                spec.commandLine()
                        .getErr()
                        .println("urom exec: "
                                + FailureMessage.describe(
                                        answer.status(), answer.refusalReason().orElse("")));
                return Main.FAILED;
            }
            return 0;
        }
    }
}
