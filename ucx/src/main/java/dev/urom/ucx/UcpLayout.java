// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

/**
 * The facts of UCX 1.13's C API that this binding relies on (LP64): the sizes and field offsets of
 * the structs it fills or reads, the enum and flag values it passes, and the {@code ucs_status_t}
 * codes it tells apart. They are read from the headers of UCX 1.13 ({@code ucp/api/ucp.h}, {@code
 * ucp/api/ucp_def.h}, {@code ucs/type/status.h}); a test compiles a C program against the installed
 * headers and compares every value. {@link UcpContext#open} refuses a library of another major.minor
 * version, whose layouts have not been checked.
 *
 * <p>Constants only; nothing to synchronise.
 */
public final class UcpLayout {
    /** The UCP API version whose layouts these are ({@code UCP_API_MAJOR}, {@code UCP_API_MINOR}). */
    public static final int API_MAJOR = 1;

    public static final int API_MINOR = 13;

    /** {@code ucp_params_t}. */
    public static final int PARAMS_SIZE = 80;

    public static final int PARAMS_FIELD_MASK = 0;
    public static final int PARAMS_FEATURES = 8;

    /** {@code ucp_worker_params_t}. */
    public static final int WORKER_PARAMS_SIZE = 200;

    public static final int WORKER_PARAMS_FIELD_MASK = 0;
    public static final int WORKER_PARAMS_THREAD_MODE = 8;

    /** {@code ucp_ep_params_t}. */
    public static final int EP_PARAMS_SIZE = 104;

    public static final int EP_PARAMS_FIELD_MASK = 0;
    public static final int EP_PARAMS_ADDRESS = 8;
    public static final int EP_PARAMS_ERR_MODE = 16;
    public static final int EP_PARAMS_ERR_HANDLER_CB = 24;
    public static final int EP_PARAMS_ERR_HANDLER_ARG = 32;

    /** {@code ucp_request_param_t}. */
    public static final int REQUEST_PARAM_SIZE = 72;

    public static final int REQUEST_PARAM_OP_ATTR_MASK = 0;
    public static final int REQUEST_PARAM_FLAGS = 4;
    public static final int REQUEST_PARAM_MEMORY_TYPE = 48;

    /** {@code ucp_tag_recv_info_t}. */
    public static final int TAG_RECV_INFO_SIZE = 16;

    public static final int TAG_RECV_INFO_SENDER_TAG = 0;
    public static final int TAG_RECV_INFO_LENGTH = 8;

    public static final long PARAM_FIELD_FEATURES = 1L;
    public static final long FEATURE_TAG = 1L;
    public static final long FEATURE_WAKEUP = 1L << 4;
    public static final long WORKER_PARAM_FIELD_THREAD_MODE = 1L;
    public static final int THREAD_MODE_SINGLE = 0;
    public static final long EP_PARAM_FIELD_REMOTE_ADDRESS = 1L;
    public static final long EP_PARAM_FIELD_ERR_HANDLING_MODE = 1L << 1;
    public static final long EP_PARAM_FIELD_ERR_HANDLER = 1L << 2;
    public static final int ERR_HANDLING_MODE_PEER = 1;
    public static final int OP_ATTR_FIELD_FLAGS = 1 << 4;
    public static final int OP_ATTR_FIELD_MEMORY_TYPE = 1 << 6;
    public static final int OP_ATTR_FLAG_NO_IMM_CMPL = 1 << 16;
    public static final int EP_CLOSE_FLAG_FORCE = 1;
    /** {@code UCS_MEMORY_TYPE_HOST}, a 4-byte enum in {@code ucp_request_param_t}. */
    public static final int MEMORY_TYPE_HOST = 0;

    /** {@code sizeof(ucs_status_t)}: a packed enum, one signed byte (returned in the low byte of a register). */
    public static final int STATUS_SIZE = 1;

    /** {@code ucs_status_t} codes. */
    public static final int UCS_OK = 0;

    public static final int UCS_INPROGRESS = 1;
    public static final int UCS_ERR_NO_MESSAGE = -1;
    public static final int UCS_ERR_UNREACHABLE = -6;
    public static final int UCS_ERR_MESSAGE_TRUNCATED = -9;
    public static final int UCS_ERR_BUSY = -15;
    public static final int UCS_ERR_CANCELED = -16;
    public static final int UCS_ERR_CONNECTION_RESET = -25;
    public static final int UCS_ERR_ENDPOINT_TIMEOUT = -80;
    /** {@code UCS_ERR_LAST}: a {@code ucs_status_ptr_t} in {@code [UCS_ERR_LAST, 0)} (as a signed word) is an error status. */
    public static final int UCS_ERR_LAST = -100;

    private UcpLayout() {}

    /** Whether a {@code ucs_status_ptr_t} is an error ({@code UCS_PTR_IS_ERR}). */
    static boolean isError(long statusPointer) {
        return statusPointer < 0 && statusPointer >= UCS_ERR_LAST;
    }
}
