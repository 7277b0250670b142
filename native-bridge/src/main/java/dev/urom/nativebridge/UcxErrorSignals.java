// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * Keeps UCX's error handler off the JVM's signals: sets {@value #VARIABLE} to the empty list in the
 * process environment, overriding what it said, before a native plugin is opened. A plugin linked
 * with UCX loads libucs, which reads the variable as it loads and otherwise installs its own
 * handlers for SIGSEGV, SIGBUS, SIGILL and SIGFPE; those take the signals the JVM raises on purpose
 * (implicit null checks, safepoint polls), treat them as crashes and kill the process, at random
 * moments. Workers get the same setting from the daemon; this covers every other JVM that opens a
 * plugin ({@code urom exec}, the test kits, an embedding daemon). The UCX binding sets it for
 * itself as well, being usable without this module.
 *
 * <p>Thread-safe: {@code setenv} is called once, under this class's lock; it takes effect only if
 * libucs is not loaded yet.
 *
 * @throws IllegalStateException from {@link #keepOffTheJvmsSignals} when {@code setenv} fails
 */
final class UcxErrorSignals {
    static final String VARIABLE = "UCX_ERROR_SIGNALS";

    static {
        Native.register(UcxErrorSignals.class, NativeLibrary.getInstance("c"));
    }

    /** Whether the variable has been set: once is enough, and setenv races every getenv of other threads. */
    private static boolean set;

    private UcxErrorSignals() {}

    private static native int setenv(String name, String value, int overwrite);

    static synchronized void keepOffTheJvmsSignals() {
        if (set) {
            return;
        }
        if (setenv(VARIABLE, "", 1) != 0) {
            throw new IllegalStateException("setenv(" + VARIABLE + ") failed: errno " + Native.getLastError());
        }
        set = true;
    }
}
