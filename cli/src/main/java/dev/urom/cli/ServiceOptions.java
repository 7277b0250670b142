package dev.urom.cli;

import dev.urom.framework.host.UromService;
import dev.urom.spi.UromException;
import picocli.CommandLine.Option;

/** The {@code --service ADDR} option of the commands that talk to a running daemon. */
final class ServiceOptions {
    @Option(names = "--service", required = true, paramLabel = "ADDR",
            description = "The daemon's address: unix:PATH or tcp:HOST:PORT.")
    String address;

    /**
     * Connects to the daemon.
     *
     * @throws CliFailure naming the address and why the connection failed
     */
    UromService connect() {
        try {
            return UromService.connect(address);
        } catch (UromException e) {
            throw new CliFailure(e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new CliFailure("--service " + address + ": " + e.getMessage());
        }
    }
}
