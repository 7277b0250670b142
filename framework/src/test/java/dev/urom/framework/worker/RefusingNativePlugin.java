// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The source of {@code refusing_plugin.c}, the framework tests' native plugin that refuses every command. */
public final class RefusingNativePlugin {
    private RefusingNativePlugin() {}

    /** Its C source, to compile with {@code NativeFixtures.compilePlugin} (and -DFAIL_OPEN or -DMARK_FILE="path"). */
    public static String source() {
        try (InputStream in = RefusingNativePlugin.class.getResourceAsStream("refusing_plugin.c")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
