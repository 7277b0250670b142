// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.service.daemon.DaemonConfig;
import java.util.List;
import java.util.OptionalInt;
import picocli.CommandLine;

/**
 * What {@code urom daemon} makes of its options: the daemon's configuration and its HTTP
 * endpoint. {@link #parse} reads a container's {@code SERVICE_ARGS} with the daemon command itself,
 * so that manifests are checked against the options the daemon really has. Immutable.
 *
 * @param config the daemon's configuration
 * @param httpPort {@code --http-port}, empty when the endpoint is off
 * @param httpHost {@code --http-host}
 */
public record DaemonOptions(DaemonConfig config, OptionalInt httpPort, String httpHost) {

    /**
     * The options of {@code urom daemon} run with {@code SERVICE_ARGS=serviceArgs} and
     * {@code UROM_PLUGIN_PATH=pluginPath} and no command-line arguments.
     *
     * @throws IllegalArgumentException with the one line {@code urom daemon} would print
     */
    public static DaemonOptions parse(String serviceArgs, String pluginPath) {
        DaemonCommand command = new DaemonCommand(new Environment(pluginPath, serviceArgs));
        CommandLine line = new CommandLine(command);
        line.setOverwrittenOptionsAllowed(true);
        try {
            line.parseArgs(DaemonConfig.withServiceArgs(serviceArgs, List.of()).toArray(String[]::new));
            return command.options();
        } catch (CommandLine.ParameterException | CliFailure e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
