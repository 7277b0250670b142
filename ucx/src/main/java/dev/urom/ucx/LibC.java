// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The one libc call the binding needs: {@code setenv}, to set UCX's global options in the process
 * environment before libucs reads them. Thread-safety is libc's: call it before other threads read
 * the environment natively (the binding does so once, while its class initialises).
 */
final class LibC {
    /** The UCX global option that names the signals UCX's error handler takes over. */
    static final String ERROR_SIGNALS = "UCX_ERROR_SIGNALS";

    static {
        Native.register(LibC.class, NativeLibrary.getInstance("c"));
    }

    private LibC() {}

    private static native int setenv(String name, String value, int overwrite);

    /**
     * Sets {@value #ERROR_SIGNALS} to the empty list, overriding what the environment said: in a
     * JVM, UCX must never install handlers for the signals the JVM uses itself. It only takes
     * effect if libucs is not loaded yet (a native plugin linked with UCX loads it earlier; the
     * worker's environment must then carry the same setting).
     */
    static void keepUcxOffTheJvmsSignals() {
        if (setenv(ERROR_SIGNALS, "", 1) != 0) {
            throw new IllegalStateException("setenv(" + ERROR_SIGNALS + ") failed: errno " + Native.getLastError());
        }
    }
}
