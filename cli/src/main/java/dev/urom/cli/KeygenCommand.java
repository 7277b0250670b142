// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.auth.AuthKey;
import dev.urom.spi.UromException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code urom keygen FILE}: writes a new key (32 random bytes as hex) into FILE, mode 0600. The
 * key's principal is the file's name less {@code .key}; the same file goes into the daemon's {@code
 * --auth-keys} directory and to the hosts of that principal ({@code --auth-key-file}, {@code
 * UROM_AUTH_KEY_FILE}).
 */
@Command(name = "keygen", description = "Write a new key file (mode 0600); its name (less .key) is the principal's.")
final class KeygenCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The key file to write; it must not exist.")
    Path file;

    @Override
    public Integer call() {
        AuthKey key;
        try {
            key = AuthKey.generate(file);
        } catch (UromException e) {
            throw new CliFailure(e.getMessage());
        }
        spec.commandLine()
                .getOut()
                .println(
                        "wrote the key of principal '" + key.name() + "' to " + file
                                + " (mode 0600): put a copy in the daemon's --auth-keys directory and give it to that principal's hosts (--auth-key-file)");
        return 0;
    }
}
