// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

/**
 * Status codes of the plugin ABI, the worker and the wire, with DOCA's {@code doca_error_t}
 * numbers, so a status crosses every boundary unchanged.
 *
 * <p>Immutable; safe to share between threads.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public enum UromStatus {
    SUCCESS(0),
    UNKNOWN(1),
    NOT_PERMITTED(2),
    IN_USE(3),
    NOT_SUPPORTED(4),
    AGAIN(5),
    INVALID_VALUE(6),
    NO_MEMORY(7),
    INITIALIZATION(8),
    TIME_OUT(9),
    SHUTDOWN(10),
    CONNECTION_RESET(11),
    CONNECTION_ABORTED(12),
    CONNECTION_INPROGRESS(13),
    NOT_CONNECTED(14),
    NO_LOCK(15),
    NOT_FOUND(16),
    IO_FAILED(17),
    BAD_STATE(18),
    UNSUPPORTED_VERSION(19),
    OPERATING_SYSTEM(20),
    DRIVER(21),
    UNEXPECTED(22),
    ALREADY_EXIST(23),
    FULL(24),
    EMPTY(25),
    IN_PROGRESS(26),
    TOO_BIG(27),
    AUTHENTICATION(28),
    BAD_CONFIG(29),
    SKIPPED(30),
    DEVICE_FATAL_ERROR(31);

    private static final UromStatus[] BY_CODE = values();

    private final int code;

    UromStatus(int code) {
        this.code = code;
    }

    /** The DOCA numeric value. */
    public int code() {
        return code;
    }

    public boolean isSuccess() {
        return this == SUCCESS;
    }

    /**
     * The status with this numeric value.
     *
     * @throws IllegalArgumentException when {@code code} is not a DOCA status number
     */
    public static UromStatus fromCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException(
                    "status code " + code + " is not a DOCA status (0.." + (BY_CODE.length - 1) + ")");
        }
        return BY_CODE[code];
    }
}
