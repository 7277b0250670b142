// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.nio.file.Path;

/** The two built sandbox plugins, for tests that run each (or one against the other) in child JVMs. */
enum SandboxPluginFile {
    NATIVE("urom.sandbox.so"),
    JAVA("urom.sandbox.jar");

    private final String property;

    SandboxPluginFile(String property) {
        this.property = property;
    }

    /** The built file, as the build names it in its system property. */
    Path file() {
        return NativeFixtures.builtFile(property);
    }
}
