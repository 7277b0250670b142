// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;

/** The {@code java} launcher of the running JVM, for child JVMs. Stateless. */
final class JavaCommand {
    private JavaCommand() {}

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
