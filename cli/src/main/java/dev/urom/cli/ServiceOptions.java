// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.auth.AuthKey;
import dev.urom.host.UromService;
import dev.urom.spi.UromException;
import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The {@code --service ADDR} and {@code --auth-key-file FILE} options of the commands that talk to a
 * running daemon. Without {@code --service}, the daemon's own default listen address is used ({@link
 * ServiceAddress#defaultListen}, the one rule both sides share). Without {@code --auth-key-file}, the
 * key file that {@value AuthKey#ENVIRONMENT_VARIABLE} names is proved, when it is set.
 */
final class ServiceOptions {
    /** The description of every {@code --service} option that defaults to the daemon's address. */
    static final String SERVICE_DESCRIPTION =
            "The daemon's address: unix:PATH or tcp:HOST:PORT (default: the daemon's default address,"
                    + " which urom address prints; see urom daemon --listen).";

    @Option(names = "--service", paramLabel = "ADDR", description = SERVICE_DESCRIPTION)
    String address;

    @Option(
            names = "--auth-key-file",
            paramLabel = "FILE",
            description =
                    "Prove the key in FILE to the daemon and its workers (urom keygen makes one; default: the file UROM_AUTH_KEY_FILE names).")
    Path authKeyFile;

    /**
     * Connects to the daemon.
     *
     * @throws CliFailure naming the address (or the key file) and why the connection failed
     */
    UromService connect() {
        String address = address();
        try {
            ServiceAddress.parse(address);
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage("--service: " + e.getMessage());
        }
        try {
            return UromService.connect(address, key());
        } catch (UromException e) {
            throw new CliFailure(e.getMessage());
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage("--service " + address + ": " + e.getMessage());
        }
    }

    /** {@code --service}, or the daemon's default listen address when it is not given. */
    String address() {
        return address != null ? address : ServiceAddress.defaultListen().toString();
    }

    /** The key to prove: {@code --auth-key-file}'s, or the environment's, or none. */
    Optional<AuthKey> key() throws UromException {
        if (authKeyFile != null) {
            try {
                return Optional.of(AuthKey.load(authKeyFile));
            } catch (UromException e) {
                throw new UromException(e.status(), "--auth-key-file: " + e.getMessage());
            }
        }
        return AuthKey.fromEnvironment(System.getenv());
    }
}
