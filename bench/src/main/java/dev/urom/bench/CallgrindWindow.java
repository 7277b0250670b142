// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The counting window of {@link DispatchDriver}, marked for callgrind by {@code
 * libcallgrind_window.so} (bench/src/main/c/callgrind_window.c, built next to the jar; system
 * property {@value #LIBRARY_PROPERTY} names another): {@link #open} starts callgrind's
 * instrumentation and zeroes the calling thread's counters, {@link #close} dumps that thread's
 * counters since the open into a part of its own and stops the instrumentation. Outside valgrind
 * both do nothing.
 *
 * <p>Direct-mapped, so that a call costs a few hundred instructions and no proxy is set up inside
 * the window. {@link #register} throws {@link IllegalStateException} with one line when the
 * library is missing; {@link #open} and {@link #close} need it done.
 */
final class CallgrindWindow {
    static final String LIBRARY_PROPERTY = "urom.bench.callgrindwindow";
    static final String LIBRARY_FILE = "libcallgrind_window.so";

    private static boolean registered;

    private CallgrindWindow() {}

    /** Loads the library, once; before {@link #open}, so that loading it is not counted. */
    static synchronized void register() {
        if (!registered) {
            Native.register(
                    CallgrindWindow.class,
                    NativeLibrary.getInstance(NativePrograms.locate(LIBRARY_FILE, LIBRARY_PROPERTY)
                            .toString()));
            registered = true;
        }
    }

    /** Starts instrumentation and zeroes the calling thread's counters. */
    static void open() {
        urom_callgrind_window_open();
    }

    /** Dumps the calling thread's counters since {@link #open} and stops instrumentation. */
    static void close() {
        urom_callgrind_window_close();
    }

    private static native void urom_callgrind_window_open();

    private static native void urom_callgrind_window_close();
}
