// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import java.util.Arrays;

/**
 * Numbered request slots for tag sends and receives on any endpoints of one worker, posted again
 * and again with no allocation: a slot is a request handle and a status in two arrays, a post is
 * one JNA call with primitive arguments, and {@link #test} finds completions (no callback). The
 * generalisation of {@link UcpTagPair} to many messages in flight at once.
 *
 * <p>Contracts: {@link #acquire} hands out a free slot (growing the arrays when none is left, the
 * only allocation) and {@link #free} takes it back once it is not pending. A slot holds one
 * request at a time; a completed request is freed by the {@link #test} that finds it. The caller
 * owns the buffers, passed as native addresses: each must stay valid while its slot is pending, or
 * after {@link #release}, until the worker is closed. Not thread-safe: the worker's thread only.
 */
public final class UcpTagSlots {
    private final UcpWorker worker;
    private final long workerHandle;
    private final com.sun.jna.Pointer sendParam;
    private final com.sun.jna.Pointer receiveParam;
    private long[] requests;
    private int[] statuses;
    private int[] freeSlots;
    private int freeCount;

    UcpTagSlots(UcpWorker worker, com.sun.jna.Pointer sendParam, com.sun.jna.Pointer receiveParam, int capacity) {
        this.worker = worker;
        this.workerHandle = worker.handle();
        this.sendParam = sendParam;
        this.receiveParam = receiveParam;
        requests = new long[0];
        statuses = new int[0];
        freeSlots = new int[0];
        grow(Math.max(1, capacity));
    }

    private void grow(int capacity) {
        int old = requests.length;
        requests = Arrays.copyOf(requests, capacity);
        statuses = Arrays.copyOf(statuses, capacity);
        freeSlots = Arrays.copyOf(freeSlots, capacity);
        for (int slot = capacity - 1; slot >= old; slot--) {
            freeSlots[freeCount++] = slot;
        }
    }

    /** A free slot, its status {@code UCS_OK}. */
    public int acquire() {
        if (freeCount == 0) {
            grow(requests.length * 2);
        }
        int slot = freeSlots[--freeCount];
        statuses[slot] = UcpLayout.UCS_OK;
        return slot;
    }

    /**
     * Gives a slot back.
     *
     * @throws IllegalStateException when it still holds a request
     */
    public void free(int slot) {
        if (requests[slot] != 0) {
            throw new IllegalStateException("slot " + slot + " still holds a request");
        }
        freeSlots[freeCount++] = slot;
    }

    /** Slots handed out and not given back. */
    public int inUse() {
        return requests.length - freeCount;
    }

    /**
     * Posts a send of {@code length} bytes at {@code address} with {@code tag} on {@code endpoint}
     * ({@code ucp_tag_send_nbx}).
     *
     * @return {@code UCS_OK} when UCX sent it at once, {@code UCS_INPROGRESS}, or the error it failed with at once
     */
    public int postSend(int slot, UcpEndpoint endpoint, long address, long length, long tag) {
        check(slot);
        return take(slot, Ucp.ucp_tag_send_nbx(endpoint.handle(), address, length, tag, sendParam));
    }

    /**
     * Posts a receive of at most {@code length} bytes at {@code address} for a message whose tag
     * matches {@code tag} under {@code tagMask} ({@code ucp_tag_recv_nbx}, never completed inside the call).
     *
     * @return {@code UCS_INPROGRESS}, or the error UCX refused it with
     */
    public int postReceive(int slot, long address, long length, long tag, long tagMask) {
        check(slot);
        return take(slot, Ucp.ucp_tag_recv_nbx(workerHandle, address, length, tag, tagMask, receiveParam));
    }

    private void check(int slot) {
        if (requests[slot] != 0) {
            throw new IllegalStateException("slot " + slot + " still holds a request");
        }
    }

    private int take(int slot, long result) {
        if (result == 0 || UcpLayout.isError(result)) {
            return statuses[slot] = (int) result;
        }
        requests[slot] = result;
        return statuses[slot] = UcpLayout.UCS_INPROGRESS;
    }

    /**
     * The slot's status, testing its request ({@code ucp_request_check_status}) when pending; a
     * request that completed is freed. {@code UCS_ERR_MESSAGE_TRUNCATED}: a longer message.
     */
    public int test(int slot) {
        long request = requests[slot];
        if (request != 0) {
            int status = Ucp.ucp_request_check_status(request);
            if (status != UcpLayout.UCS_INPROGRESS) {
                Ucp.ucp_request_free(request);
                requests[slot] = 0;
                statuses[slot] = status;
            }
        }
        return statuses[slot];
    }

    public boolean pending(int slot) {
        return requests[slot] != 0;
    }

    /** Asks UCX to cancel the slot's request (a receive); it completes {@code UCS_ERR_CANCELED} in a later progress. */
    public void cancel(int slot) {
        if (requests[slot] != 0 && !worker.closed()) {
            Ucp.ucp_request_cancel(workerHandle, requests[slot]);
        }
    }

    /**
     * Gives the slot's request back to UCX without waiting (UCX releases it when it completes); the
     * slot is then not pending, with status {@code UCS_ERR_CANCELED}. Its buffer stays in UCX's use
     * until the request completes or the worker is closed.
     */
    public void release(int slot) {
        if (requests[slot] != 0) {
            if (!worker.closed()) {
                Ucp.ucp_request_free(requests[slot]);
            }
            requests[slot] = 0;
            statuses[slot] = UcpLayout.UCS_ERR_CANCELED;
        }
    }
}
