// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import dev.urom.spi.UromStatus;

/**
 * The UCX {@code ucs_status_t} that a DOCA-layout answer carries in place of our status ({@code
 * docs/sandbox-protocol.md}, "DOCA-sized commands"): the nearest UCX status to each of ours, the
 * same mapping as {@code worker_sandbox.so}'s.
 *
 * <p>The values are those of UCX's {@code ucs/type/status.h} (the same from UCX 1.10 to 1.20), written
 * out because the Java plugin cannot include the header; a DOCA-layout answer carries one as a
 * little-endian {@code i32} (the header's {@code ucs_status_t} is a one-byte enum, the i32's first
 * byte). Stateless; safe to use from any thread.
 */
final class UcsStatus {
    /** {@code UCS_OK}. */
    static final int UCS_OK = 0;
    /** {@code UCS_ERR_NO_MESSAGE}: what a status of ours with no nearer UCX counterpart becomes. */
    static final int UCS_ERR_NO_MESSAGE = -1;
    /** {@code UCS_ERR_IO_ERROR}. */
    static final int UCS_ERR_IO_ERROR = -3;
    /** {@code UCS_ERR_INVALID_PARAM}. */
    static final int UCS_ERR_INVALID_PARAM = -5;
    /** {@code UCS_ERR_MESSAGE_TRUNCATED}. */
    static final int UCS_ERR_MESSAGE_TRUNCATED = -9;
    /** {@code UCS_ERR_NO_ELEM}. */
    static final int UCS_ERR_NO_ELEM = -12;
    /** {@code UCS_ERR_CONNECTION_RESET}. */
    static final int UCS_ERR_CONNECTION_RESET = -25;

    private UcsStatus() {}

    /**
     * The {@code ucs_status_t} nearest to {@code status}: SUCCESS {@code UCS_OK}, TOO_BIG {@code
     * UCS_ERR_MESSAGE_TRUNCATED}, CONNECTION_RESET {@code UCS_ERR_CONNECTION_RESET}, NOT_FOUND {@code
     * UCS_ERR_NO_ELEM}, INVALID_VALUE {@code UCS_ERR_INVALID_PARAM}, IO_FAILED {@code
     * UCS_ERR_IO_ERROR}, any other {@code UCS_ERR_NO_MESSAGE}.
     */
    static int of(UromStatus status) {
        return switch (status) {
            case SUCCESS -> UCS_OK;
            case TOO_BIG -> UCS_ERR_MESSAGE_TRUNCATED;
            case CONNECTION_RESET -> UCS_ERR_CONNECTION_RESET;
            case NOT_FOUND -> UCS_ERR_NO_ELEM;
            case INVALID_VALUE -> UCS_ERR_INVALID_PARAM;
            case IO_FAILED -> UCS_ERR_IO_ERROR;
            default -> UCS_ERR_NO_MESSAGE;
        };
    }
}
