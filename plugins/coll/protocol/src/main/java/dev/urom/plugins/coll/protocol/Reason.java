// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/**
 * Why a command or a collective failed ({@code enum urom_coll_reason}), with its wire code and the
 * {@code urom_status_t} number the specification pairs it with. Immutable.
 */
public enum Reason {
    NONE(0, Status.SUCCESS),
    BAD_COMMAND(1, Status.INVALID_VALUE),
    UNKNOWN_COLL(2, Status.INVALID_VALUE),
    UNKNOWN_DTYPE(3, Status.INVALID_VALUE),
    UNKNOWN_OP(4, Status.INVALID_VALUE),
    OP_NOT_FOR_DTYPE(5, Status.INVALID_VALUE),
    COUNT_OVERFLOW(6, Status.INVALID_VALUE),
    BAD_ROOT(7, Status.INVALID_VALUE),
    BAD_FLAGS(8, Status.INVALID_VALUE),
    NOT_MAPPED(9, Status.NOT_PERMITTED),
    NOT_READABLE(10, Status.NOT_PERMITTED),
    NOT_WRITABLE(11, Status.NOT_PERMITTED),
    OVERLAP(12, Status.INVALID_VALUE),
    BAD_MEMH(13, Status.NOT_PERMITTED),
    TEAM_UNKNOWN(14, Status.NOT_FOUND),
    TEAM_EXISTS(15, Status.ALREADY_EXIST),
    BAD_MEMBERS(16, Status.INVALID_VALUE),
    TEAM_FAILED(17, Status.CONNECTION_ABORTED),
    NO_DOMAIN(18, Status.NOT_FOUND),
    HOST_UNREACHABLE(19, Status.NOT_PERMITTED),
    MISMATCH(20, Status.INVALID_VALUE),
    PEER_REFUSED(21, Status.INVALID_VALUE),
    PEER_FAILED(22, Status.CONNECTION_ABORTED),
    TIMEOUT(23, Status.TIME_OUT),
    HOST_GONE(24, Status.SHUTDOWN),
    TOO_MANY(25, Status.FULL),
    TEAM_DESTROYED(26, Status.SHUTDOWN),
    KNOBS(27, Status.INVALID_VALUE),
    NO_MEMORY(28, Status.NO_MEMORY),
    TRANSPORT(29, Status.DRIVER);

    /** The {@code urom_status_t} (DOCA) numbers the reasons map to; the protocol depends on nothing but the JDK. */
    public static final class Status {
        public static final int SUCCESS = 0;
        public static final int NOT_PERMITTED = 2;
        public static final int INVALID_VALUE = 6;
        public static final int NO_MEMORY = 7;
        public static final int TIME_OUT = 9;
        public static final int SHUTDOWN = 10;
        public static final int CONNECTION_ABORTED = 12;
        public static final int NOT_FOUND = 16;
        public static final int DRIVER = 21;
        public static final int ALREADY_EXIST = 23;
        public static final int FULL = 24;

        private Status() {}
    }

    private static final Reason[] BY_CODE = values();

    private final int code;
    private final int status;

    Reason(int code, int status) {
        this.code = code;
        this.status = status;
    }

    public int code() {
        return code;
    }

    /** The {@code urom_status_t} number a notification with this reason carries. */
    public int status() {
        return status;
    }

    /** The reason with this code, or null when there is none. */
    public static Reason ofCode(long code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[(int) code] : null;
    }
}
