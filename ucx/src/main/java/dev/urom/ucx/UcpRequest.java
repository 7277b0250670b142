// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

/**
 * One tag send or tag receive: either completed when it was started ({@link #poll} answers its
 * status at once) or in progress, a UCP request that {@link #poll} tests after {@link
 * UcpWorker#progress} and frees once it completed. No callback is involved.
 *
 * <p>The caller owns the buffer it passed: it must stay valid until {@link #poll} answers a status
 * other than {@code UCS_INPROGRESS}, or until the worker is closed. Not thread-safe: used from the
 * worker's thread.
 */
public final class UcpRequest {
    private final UcpWorker worker;
    private final boolean receive;
    private long handle;
    private int status;
    private long senderTag;
    private long length;

    UcpRequest(UcpWorker worker, boolean receive, long handle, int status, long senderTag, long length) {
        this.worker = worker;
        this.receive = receive;
        this.handle = handle;
        this.status = status;
        this.senderTag = senderTag;
        this.length = length;
    }

    /**
     * The request's status: {@code UCS_INPROGRESS} (1) while it runs, then {@code UCS_OK} (0) or a
     * negative {@code ucs_status_t} ({@code UCS_ERR_MESSAGE_TRUNCATED} for a receive whose message
     * was longer than its buffer, {@code UCS_ERR_CANCELED}, an endpoint's error...).
     */
    public int poll() {
        if (handle == 0) {
            return status;
        }
        int now;
        if (receive) {
            long info = worker.infoAddress();
            now = Ucp.ucp_tag_recv_request_test(handle, info);
            if (now != UcpLayout.UCS_INPROGRESS) {
                senderTag = worker.infoSenderTag();
                length = worker.infoLength();
            }
        } else {
            now = Ucp.ucp_request_check_status(handle);
        }
        if (now != UcpLayout.UCS_INPROGRESS) {
            Ucp.ucp_request_free(handle);
            handle = 0;
            status = now;
        }
        return now;
    }

    /** Whether UCX still owns the request (and the buffer). */
    public boolean inProgress() {
        return handle != 0;
    }

    /** A completed receive: the matched message's tag (also after truncation). */
    public long senderTag() {
        return senderTag;
    }

    /** A completed receive: the length UCX reports for the message. */
    public long length() {
        return length;
    }

    /** Asks UCX to cancel a receive in progress; it then completes with {@code UCS_ERR_CANCELED} on a later progress. */
    public void cancel() {
        if (handle != 0 && !worker.closed()) {
            Ucp.ucp_request_cancel(worker.handle(), handle);
        }
    }

    /**
     * Gives the request back to UCX without waiting for it (a request in progress is released by UCX
     * when it completes): the buffer stays in UCX's use until then, or until the worker is closed.
     */
    public void release() {
        if (handle != 0) {
            if (!worker.closed()) {
                Ucp.ucp_request_free(handle);
            }
            handle = 0;
            status = UcpLayout.UCS_ERR_CANCELED;
        }
    }
}
