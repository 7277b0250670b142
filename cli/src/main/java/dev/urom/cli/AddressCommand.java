// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.wire.ServiceAddress;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code urom address}: prints the address {@code urom daemon} listens on when given no {@code
 * --listen} here, one line ({@link ServiceAddress#defaultListen}), which is also where every client
 * command looks without {@code --service}. For scripts: {@code DOCA_UROM_SERVICE_FILE} lines and
 * {@code --service "$(urom address)"}. Stateless.
 */
@Command(
        name = "address",
        description =
                "Print the daemon's default address (where urom daemon listens without --listen, and where client commands look without --service).")
final class AddressCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getOut().println(ServiceAddress.defaultListen());
        return 0;
    }
}
