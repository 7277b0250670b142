// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import com.sun.jna.Pointer;

/**
 * A receive slot and a send slot on one endpoint, posted again and again: the binding for a loop
 * of tag round trips (the sandbox's BOUNCE), where each round is one receive and one send. The
 * request params are the worker's, filled once when it was created (memory type host; receives
 * with {@code UCP_OP_ATTR_FLAG_NO_IMM_CMPL}); a post is one JNA call with primitive arguments; a
 * slot is one request handle and one status. Nothing is allocated per post, test or progress, and
 * no callback runs: {@link #test} finds completions.
 *
 * <p>Contracts: a slot holds one request at a time (posting to a pending slot throws {@link
 * IllegalStateException}); a completed request is freed by the {@link #test} that finds it. The
 * caller owns the buffers, passed as native addresses: each must stay valid while its slot is
 * pending, or, after {@link #release}, until UCX completes the request or the worker is closed.
 * The pair does not own its endpoint: the caller stops posting once the endpoint is closed.
 *
 * <p>Not thread-safe: used from the worker's thread, like the worker.
 */
public final class UcpTagPair {
    private final UcpWorker worker;
    private final long workerHandle;
    private final long endpointHandle;
    private final Pointer sendParam;
    private final Pointer receiveParam;
    private long sendRequest;
    private int sendStatus = UcpLayout.UCS_OK;
    private long receiveRequest;
    private int receiveStatus = UcpLayout.UCS_OK;

    UcpTagPair(UcpWorker worker, UcpEndpoint endpoint, Pointer sendParam, Pointer receiveParam) {
        this.worker = worker;
        this.workerHandle = worker.handle();
        this.endpointHandle = endpoint.handle();
        this.sendParam = sendParam;
        this.receiveParam = receiveParam;
    }

    /**
     * Posts a receive of at most {@code length} bytes at {@code address} for a message whose tag
     * matches {@code tag} under {@code tagMask} ({@code ucp_tag_recv_nbx}, never completed inside
     * the call's return value: a message already there completes it before the next {@link #test}).
     *
     * @return {@code UCS_INPROGRESS}, or the {@code ucs_status_t} UCX refused it with (the slot is
     *     then complete with that status)
     */
    public int postReceive(long address, long length, long tag, long tagMask) {
        if (receiveRequest != 0) {
            throw new IllegalStateException("the receive slot still holds a request");
        }
        long result = Ucp.ucp_tag_recv_nbx(workerHandle, address, length, tag, tagMask, receiveParam);
        return receiveStatus = take(result, true);
    }

    /**
     * Posts a send of {@code length} bytes at {@code address} with {@code tag} ({@code
     * ucp_tag_send_nbx}).
     *
     * @return {@code UCS_OK} when UCX sent it at once, {@code UCS_INPROGRESS}, or the {@code
     *     ucs_status_t} it failed with at once
     */
    public int postSend(long address, long length, long tag) {
        if (sendRequest != 0) {
            throw new IllegalStateException("the send slot still holds a request");
        }
        long result = Ucp.ucp_tag_send_nbx(endpointHandle, address, length, tag, sendParam);
        return sendStatus = take(result, false);
    }

    private int take(long result, boolean receive) {
        if (result == 0 || UcpLayout.isError(result)) {
            return (int) result;
        }
        if (receive) {
            receiveRequest = result;
        } else {
            sendRequest = result;
        }
        return UcpLayout.UCS_INPROGRESS;
    }

    /**
     * Tests the pending slots ({@code ucp_request_check_status}); a request that completed is freed
     * and its status kept.
     *
     * @return whether neither slot is pending now
     */
    public boolean test() {
        if (sendRequest != 0) {
            int status = Ucp.ucp_request_check_status(sendRequest);
            if (status != UcpLayout.UCS_INPROGRESS) {
                Ucp.ucp_request_free(sendRequest);
                sendRequest = 0;
                sendStatus = status;
            }
        }
        if (receiveRequest != 0) {
            int status = Ucp.ucp_request_check_status(receiveRequest);
            if (status != UcpLayout.UCS_INPROGRESS) {
                Ucp.ucp_request_free(receiveRequest);
                receiveRequest = 0;
                receiveStatus = status;
            }
        }
        return sendRequest == 0 && receiveRequest == 0;
    }

    /**
     * One {@code ucp_worker_progress} (no more: endpoint closes in flight wait for {@link
     * UcpWorker#progress}); when it progressed something, {@link #test}.
     *
     * @return what {@code ucp_worker_progress} returned: nonzero when something happened
     */
    public int progress() {
        int events = Ucp.ucp_worker_progress(workerHandle);
        if (events != 0) {
            test();
        }
        return events;
    }

    /** Whether a slot holds a request UCX has not completed (as of the last {@link #test}). */
    public boolean pending() {
        return sendRequest != 0 || receiveRequest != 0;
    }

    /** The send slot's status: {@code UCS_INPROGRESS} while pending, then {@code UCS_OK} or an error. */
    public int sendStatus() {
        return sendStatus;
    }

    /**
     * The receive slot's status: {@code UCS_INPROGRESS} while pending, then {@code UCS_OK}, {@code
     * UCS_ERR_MESSAGE_TRUNCATED} (a longer message, consumed), {@code UCS_ERR_CANCELED} or another error.
     */
    public int receiveStatus() {
        return receiveStatus;
    }

    /** Asks UCX to cancel the pending receive, if any; it completes {@code UCS_ERR_CANCELED} in a later progress. */
    public void cancelReceive() {
        if (receiveRequest != 0 && !worker.closed()) {
            Ucp.ucp_request_cancel(workerHandle, receiveRequest);
        }
    }

    /**
     * Gives pending requests back to UCX without waiting (UCX releases each when it completes); the
     * slots are then empty, with status {@code UCS_ERR_CANCELED}. Their buffers stay in UCX's use
     * until then, or until the worker is closed.
     */
    public void release() {
        if (sendRequest != 0) {
            if (!worker.closed()) {
                Ucp.ucp_request_free(sendRequest);
            }
            sendRequest = 0;
            sendStatus = UcpLayout.UCS_ERR_CANCELED;
        }
        if (receiveRequest != 0) {
            if (!worker.closed()) {
                Ucp.ucp_request_free(receiveRequest);
            }
            receiveRequest = 0;
            receiveStatus = UcpLayout.UCS_ERR_CANCELED;
        }
    }
}
