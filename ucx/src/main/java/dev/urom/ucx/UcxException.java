// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

/**
 * A UCX call that failed: its {@code ucs_status_t} ({@link #status}, negative; 0 when the failure is
 * the binding's own, such as a missing library or an unknown version) and a one-line message naming
 * the call and UCX's description of the status.
 */
public final class UcxException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    UcxException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** A failed call: "{@code what}: {@code ucs_status_string(status)} (status)". */
    static UcxException failed(String what, int status) {
        return new UcxException(status, what + " failed: " + Ucx.describe(status));
    }

    /** The {@code ucs_status_t} of the failure, or 0 for one of the binding's own. */
    public int status() {
        return status;
    }
}
