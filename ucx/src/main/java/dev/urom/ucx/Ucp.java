// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import com.sun.jna.Callback;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

/**
 * The libucp functions the binding calls, bound by JNA direct mapping to {@code libucp.so.0} (found
 * by the dynamic loader's usual search; {@code ucs_status_string} is reached through libucp's own
 * dependency on libucs). Handles and addresses are passed as {@code long} (LP64), out-parameters as
 * one-element arrays. {@code ucs_status_t} is a packed enum, one signed byte ({@link UcpLayout}):
 * it is returned and passed as {@code byte}. Loading happens once per class loader; a failure is kept in {@link
 * #loadFailure} instead of failing class initialisation, and then every native call would throw
 * {@link UnsatisfiedLinkError}.
 *
 * <p>Before libucp (and with it libucs) is loaded, {@code UCX_ERROR_SIGNALS} is set to the empty
 * list in the process environment ({@link LibC}): libucs reads it when it loads and otherwise
 * installs its own handlers for SIGSEGV, SIGBUS, SIGILL and SIGFPE, which take the signals the JVM
 * raises on purpose (implicit null checks, safepoint polls) for crashes and kill the process.
 *
 * <p>Thread-safety is UCX's: the binding creates its workers in single-thread mode, so a worker and
 * everything made from it are used from one thread.
 */
final class Ucp {
    static final String LIBRARY = "libucp.so.0";

    private static final String LOAD_FAILURE;

    static {
        String failure = null;
        try {
            LibC.keepUcxOffTheJvmsSignals();
            Native.register(Ucp.class, NativeLibrary.getInstance(LIBRARY));
        } catch (LinkageError | RuntimeException e) {
            failure = LIBRARY + " cannot be loaded (install UCX 1.13, Debian's libucx0): " + oneLine(e.getMessage());
        }
        LOAD_FAILURE = failure;
    }

    private Ucp() {}

    /** Why libucp could not be bound, or {@code null} when it was. */
    static String loadFailure() {
        return LOAD_FAILURE;
    }

    private static String oneLine(String text) {
        return text == null ? "no reason given" : text.replaceAll("\\s+", " ").strip();
    }

    /** {@code ucp_err_handler_cb_t}: {@code void (*)(void *arg, ucp_ep_h ep, ucs_status_t status)}. */
    interface ErrorHandler extends Callback {
        void invoke(long arg, long ep, byte status);
    }

    static native void ucp_get_version(int[] major, int[] minor, int[] release);

    static native String ucs_status_string(byte status);

    static native byte ucp_config_read(String envPrefix, String filename, long[] config);

    static native void ucp_config_release(long config);

    static native byte ucp_init_version(int apiMajor, int apiMinor, Pointer params, long config, long[] context);

    static native void ucp_cleanup(long context);

    static native byte ucp_worker_create(long context, Pointer params, long[] worker);

    static native void ucp_worker_destroy(long worker);

    static native byte ucp_worker_get_address(long worker, long[] address, long[] length);

    static native void ucp_worker_release_address(long worker, long address);

    static native int ucp_worker_progress(long worker);

    static native byte ucp_worker_get_efd(long worker, int[] fd);

    static native byte ucp_worker_arm(long worker);

    static native byte ucp_ep_create(long worker, Pointer params, long[] ep);

    static native long ucp_ep_close_nbx(long ep, Pointer param);

    static native long ucp_tag_send_nbx(long ep, long buffer, long count, long tag, Pointer param);

    static native long ucp_tag_recv_nbx(long worker, long buffer, long count, long tag, long tagMask, Pointer param);

    static native long ucp_tag_probe_nb(long worker, long tag, long tagMask, int remove, long info);

    static native byte ucp_request_check_status(long request);

    static native byte ucp_tag_recv_request_test(long request, long info);

    static native void ucp_request_cancel(long worker, long request);

    static native void ucp_request_free(long request);
}
