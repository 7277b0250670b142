// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import com.sun.jna.Callback;
import com.sun.jna.CallbackThreadInitializer;
import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Sends native plugin logs ({@code urom_log_write}, reached through {@code UROM_LOG_*} and {@code
 * DOCA_LOG_*}) to Log4j2: the logger is the plugin's log source (e.g. {@code UROM::WORKER::GRAPH}),
 * the level is mapped from the service's numeric scale, the message is the formatted text, and the
 * native file, line and function become the event's location.
 *
 * <p>{@link #install()} loads {@code liburom_bridge.so} {@code RTLD_GLOBAL}, so that every plugin
 * loaded afterwards resolves its weak {@code urom_log_write} there; a plugin loaded before that
 * logs to stderr. Installing is idempotent and thread-safe; the bridge stays for the life of the
 * process. Native code may log from any thread.
 */
public final class NativeLogBridge {
    private static final int RTLD_LAZY = 0x1;
    private static final int RTLD_GLOBAL = 0x100;
    private static final String UNNAMED_SOURCE = "UROM::NATIVE";

    /** The callback the C library calls; {@code const char *} arguments arrive as pointers. */
    interface LogSink extends Callback {
        void invoke(int level, Pointer source, Pointer file, int line, Pointer function, Pointer message);
    }

    private static final Object LOCK = new Object();
    /** Per thread: the last error a plugin logged while a {@link #captureErrors()} is open, or null when none is. */
    private static final ThreadLocal<String[]> CAPTURE = new ThreadLocal<>();
    // Strong references for the life of the process: native code holds the callback's address.
    private static NativeLibrary bridgeLibrary;
    private static LogSink sink;

    private NativeLogBridge() {}

    /**
     * Loads the bridge library and registers the Log4j2 sink, once per process.
     *
     * @throws IllegalStateException when the bridge library cannot be found or loaded
     */
    public static void install() {
        synchronized (LOCK) {
            if (sink != null) {
                return;
            }
            String path = NativeArtifacts.bridgeLibrary().toString();
            NativeLibrary library;
            try {
                library = NativeLibrary.getInstance(path, Map.of(Library.OPTION_OPEN_FLAGS, RTLD_LAZY | RTLD_GLOBAL));
            } catch (UnsatisfiedLinkError e) {
                throw new IllegalStateException(
                        "cannot load the native log bridge " + path + ": " + firstLine(e.getMessage()), e);
            }
            LogSink newSink = NativeLogBridge::deliver;
            Native.setCallbackThreadInitializer(newSink, new CallbackThreadInitializer(true, false, "urom-native-log"));
            Function setSink = library.getFunction("urom_bridge_set_log_sink");
            setSink.invokeVoid(new Object[] {newSink});
            bridgeLibrary = library;
            sink = newSink;
        }
    }

    /** The bridge library, loaded by {@link #install()} (called first when needed). */
    static NativeLibrary library() {
        install();
        synchronized (LOCK) {
            return bridgeLibrary;
        }
    }

    /** Whether {@link #install()} has completed in this process. */
    public static boolean installed() {
        synchronized (LOCK) {
            return sink != null && bridgeLibrary != null;
        }
    }

    /** Maps the service's numeric level (20 critical ... 70 trace) to a Log4j2 level; null for disabled. */
    static Level level(int nativeLevel) {
        if (nativeLevel <= 10) {
            return null;
        } else if (nativeLevel <= 20) {
            return Level.FATAL;
        } else if (nativeLevel <= 30) {
            return Level.ERROR;
        } else if (nativeLevel <= 40) {
            return Level.WARN;
        } else if (nativeLevel <= 50) {
            return Level.INFO;
        } else if (nativeLevel <= 60) {
            return Level.DEBUG;
        }
        return Level.TRACE;
    }

    /**
     * Starts remembering, on this thread, the last message of level ERROR or worse that native code
     * logs (whatever the loggers' levels), until {@link ErrorCapture#close()}: a plugin's reason for
     * refusing the call made in between. Captures do not nest.
     */
    public static ErrorCapture captureErrors() {
        String[] last = new String[1];
        CAPTURE.set(last);
        return new ErrorCapture(last);
    }

    /** What {@link #captureErrors()} caught on its thread. Not thread-safe: one thread opens and closes it. */
    public static final class ErrorCapture implements AutoCloseable {
        private final String[] last;

        private ErrorCapture(String[] last) {
            this.last = last;
        }

        /** The last error message logged since the capture opened, if any. */
        public Optional<String> lastError() {
            return Optional.ofNullable(last[0]);
        }

        @Override
        public void close() {
            CAPTURE.remove();
        }
    }

    private static void deliver(
            int nativeLevel, Pointer source, Pointer file, int line, Pointer function, Pointer message) {
        // An exception must never unwind into native code.
        try {
            Level level = level(nativeLevel);
            if (level == null) {
                return;
            }
            String[] capture = CAPTURE.get();
            if (capture != null && level.isMoreSpecificThan(Level.ERROR)) {
                capture[0] = text(message);
            }
            String loggerName = text(source);
            Logger logger =
                    LogManager.getLogger(loggerName == null || loggerName.isEmpty() ? UNNAMED_SOURCE : loggerName);
            if (!logger.isEnabled(level)) {
                return;
            }
            String fileName = text(file);
            String functionName = text(function);
            String body = text(message);
            logger.atLevel(level)
                    .withLocation(new StackTraceElement(
                            logger.getName(), functionName == null ? "?" : functionName, fileName, line))
                    .log(body == null ? "" : body);
        } catch (Throwable t) {
            try {
                LogManager.getLogger(NativeLogBridge.class).error("a native log message was lost: {}", t.toString());
            } catch (Throwable ignored) {
                // nothing more can be done from inside a native callback
            }
        }
    }

    private static String text(Pointer p) {
        return p == null ? null : p.getString(0, StandardCharsets.UTF_8.name());
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }
}
