package dev.urom.ucx;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The one libc call the binding needs: {@code setenv}, to set UCX's options in the process
 * environment before UCX reads them. Thread-safety is libc's: call it before other threads read
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
     * Lets UCX 1.13 use its shared-memory transports (sysv, posix) on endpoints that handle peer
     * failures, unless the environment already says otherwise: without it two processes of one host
     * talk over TCP on the loopback. Read by UCX when a context's configuration is read.
     */
    static void allowSharedMemoryWithErrorHandling() {
        for (String name : new String[] {"UCX_SYSV_ERROR_HANDLING", "UCX_POSIX_ERROR_HANDLING"}) {
            if (setenv(name, "y", 0) != 0) {
                throw new IllegalStateException("setenv(" + name + ") failed: errno " + Native.getLastError());
            }
        }
    }

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
