// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

import com.sun.jna.CallbackReference;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A UCP worker ({@code ucp_worker_h}, thread mode single) with its address, wake-up descriptor,
 * endpoints and tag operations. Operations never block and take no callbacks: {@link #tagSend} and
 * {@link #tagReceive} return a {@link UcpRequest} that is complete at once or is polled after
 * {@link #progress}. The only callback is the endpoints' error handler, which UCX calls from inside
 * {@link #progress} on this thread; it only records the failure.
 *
 * <p>Not thread-safe: created, used and closed from one thread (UCX's single-thread mode). Owns its
 * endpoints; {@link #close} closes them and destroys the worker, after which no buffer handed to a
 * request is touched by UCX again. Does not own its {@link UcpContext}.
 */
public final class UcpWorker implements AutoCloseable {
    /**
     * How long {@link #close} progresses endpoint closes that are still flushing (a flush may wait
     * for a peer that is not progressing; the worker is destroyed after this either way).
     */
    private static final Duration CLOSE_WAIT = Duration.ofMillis(200);

    private static final int INFO_OFFSET = 80;

    private final Memory scratch = new Memory(INFO_OFFSET + UcpLayout.TAG_RECV_INFO_SIZE);
    /**
     * The request params of every {@link UcpTagPair}, filled once here and never written again: a
     * send's (memory type host), then a receive's (memory type host, no immediate completion).
     */
    private final Memory pairParams = pairParams();

    private final Map<Long, UcpEndpoint> endpoints = new HashMap<>();
    private final List<UcpEndpoint> failed = new ArrayList<>();
    private final List<Long> closing = new ArrayList<>();
    /** Kept reachable for as long as an endpoint may call it. */
    private final Ucp.ErrorHandler errorHandler = this::endpointFailed;

    private final long errorHandlerPointer = Pointer.nativeValue(CallbackReference.getFunctionPointer(errorHandler));
    private long handle;
    private long nextEndpointId = 1;

    private UcpWorker(long handle) {
        this.handle = handle;
    }

    /**
     * Creates a worker of {@code context} in single-thread mode.
     *
     * @throws UcxException when UCX refuses
     */
    public static UcpWorker open(UcpContext context) throws UcxException {
        long[] worker = new long[1];
        try (Memory params = new Memory(UcpLayout.WORKER_PARAMS_SIZE)) {
            params.clear();
            params.setLong(UcpLayout.WORKER_PARAMS_FIELD_MASK, UcpLayout.WORKER_PARAM_FIELD_THREAD_MODE);
            params.setInt(UcpLayout.WORKER_PARAMS_THREAD_MODE, UcpLayout.THREAD_MODE_SINGLE);
            int status = Ucp.ucp_worker_create(context.handle(), params, worker);
            if (status != UcpLayout.UCS_OK) {
                throw UcxException.failed("ucp_worker_create", status);
            }
        }
        return new UcpWorker(worker[0]);
    }

    long handle() {
        if (handle == 0) {
            throw new IllegalStateException("the UCP worker is closed");
        }
        return handle;
    }

    boolean closed() {
        return handle == 0;
    }

    /**
     * The worker's address ({@code ucp_worker_get_address}): opaque bytes a peer passes to {@link
     * #connect}.
     */
    public byte[] address() throws UcxException {
        long[] address = new long[1];
        long[] length = new long[1];
        int status = Ucp.ucp_worker_get_address(handle(), address, length);
        if (status != UcpLayout.UCS_OK) {
            throw UcxException.failed("ucp_worker_get_address", status);
        }
        try {
            return new Pointer(address[0]).getByteArray(0, Math.toIntExact(length[0]));
        } finally {
            Ucp.ucp_worker_release_address(handle, address[0]);
        }
    }

    /**
     * One {@code ucp_worker_progress}, then the endpoint closes in flight are checked.
     *
     * @return what {@code ucp_worker_progress} returned: nonzero when something happened
     */
    public int progress() {
        int events = Ucp.ucp_worker_progress(handle());
        for (int i = closing.size() - 1; i >= 0; i--) {
            long request = closing.get(i);
            if (Ucp.ucp_request_check_status(request) != UcpLayout.UCS_INPROGRESS) {
                Ucp.ucp_request_free(request);
                closing.remove(i);
            }
        }
        return events;
    }

    /**
     * The worker's event descriptor ({@code ucp_worker_get_efd}); UCX owns it.
     *
     * @throws UcxException when UCX has none
     */
    public int eventFd() throws UcxException {
        int[] fd = new int[1];
        int status = Ucp.ucp_worker_get_efd(handle(), fd);
        if (status != UcpLayout.UCS_OK) {
            throw UcxException.failed("ucp_worker_get_efd", status);
        }
        return fd[0];
    }

    /**
     * Arms the event descriptor ({@code ucp_worker_arm}).
     *
     * @return true when armed (nothing pending), false on {@code UCS_ERR_BUSY} (progress first)
     * @throws UcxException on any other failure
     */
    public boolean arm() throws UcxException {
        int status = Ucp.ucp_worker_arm(handle());
        if (status == UcpLayout.UCS_OK) {
            return true;
        }
        if (status == UcpLayout.UCS_ERR_BUSY) {
            return false;
        }
        throw UcxException.failed("ucp_worker_arm", status);
    }

    /**
     * Creates an endpoint to the worker at {@code remoteAddress} (error-handling mode PEER).
     *
     * @throws UcxException when UCX refuses the address or the endpoint
     */
    public UcpEndpoint connect(byte[] remoteAddress) throws UcxException {
        if (remoteAddress.length == 0) {
            throw new UcxException(0, "ucp_ep_create refused: the remote worker address is empty");
        }
        UcpEndpoint endpoint = new UcpEndpoint(this, nextEndpointId++);
        long[] ep = new long[1];
        try (Memory address = new Memory(remoteAddress.length);
                Memory params = new Memory(UcpLayout.EP_PARAMS_SIZE)) {
            address.write(0, remoteAddress, 0, remoteAddress.length);
            params.clear();
            params.setLong(
                    UcpLayout.EP_PARAMS_FIELD_MASK,
                    UcpLayout.EP_PARAM_FIELD_REMOTE_ADDRESS
                            | UcpLayout.EP_PARAM_FIELD_ERR_HANDLING_MODE
                            | UcpLayout.EP_PARAM_FIELD_ERR_HANDLER);
            params.setPointer(UcpLayout.EP_PARAMS_ADDRESS, address);
            params.setInt(UcpLayout.EP_PARAMS_ERR_MODE, UcpLayout.ERR_HANDLING_MODE_PEER);
            params.setLong(UcpLayout.EP_PARAMS_ERR_HANDLER_CB, errorHandlerPointer);
            params.setLong(UcpLayout.EP_PARAMS_ERR_HANDLER_ARG, endpoint.id());
            int status = Ucp.ucp_ep_create(handle(), params, ep);
            if (status != UcpLayout.UCS_OK) {
                throw UcxException.failed("ucp_ep_create", status);
            }
        }
        endpoint.attach(ep[0]);
        endpoints.put(endpoint.id(), endpoint);
        return endpoint;
    }

    /**
     * A receive slot and a send slot on {@code endpoint}, for posting round after round without
     * allocating ({@link UcpTagPair}).
     */
    public UcpTagPair tagPair(UcpEndpoint endpoint) {
        return new UcpTagPair(this, endpoint, pairParams, pairParams.share(UcpLayout.REQUEST_PARAM_SIZE));
    }

    /**
     * Numbered request slots on this worker's endpoints ({@link UcpTagSlots}), {@code capacity} to
     * begin with; they share the request params of {@link #tagPair}.
     */
    public UcpTagSlots tagSlots(int capacity) {
        handle();
        return new UcpTagSlots(this, pairParams, pairParams.share(UcpLayout.REQUEST_PARAM_SIZE), capacity);
    }

    private static Memory pairParams() {
        Memory params = new Memory(2L * UcpLayout.REQUEST_PARAM_SIZE);
        params.clear();
        params.setInt(UcpLayout.REQUEST_PARAM_OP_ATTR_MASK, UcpLayout.OP_ATTR_FIELD_MEMORY_TYPE);
        params.setInt(UcpLayout.REQUEST_PARAM_MEMORY_TYPE, UcpLayout.MEMORY_TYPE_HOST);
        params.setInt(
                UcpLayout.REQUEST_PARAM_SIZE + UcpLayout.REQUEST_PARAM_OP_ATTR_MASK,
                UcpLayout.OP_ATTR_FIELD_MEMORY_TYPE | UcpLayout.OP_ATTR_FLAG_NO_IMM_CMPL);
        params.setInt(UcpLayout.REQUEST_PARAM_SIZE + UcpLayout.REQUEST_PARAM_MEMORY_TYPE, UcpLayout.MEMORY_TYPE_HOST);
        return params;
    }

    /** The endpoints whose error {@link #progress} reported since the last call, oldest first. */
    public List<UcpEndpoint> takeFailedEndpoints() {
        List<UcpEndpoint> taken = List.copyOf(failed);
        failed.clear();
        return taken;
    }

    /**
     * Starts sending {@code length} bytes at {@code buffer} with {@code tag} ({@code ucp_tag_send_nbx}).
     * A send that UCX finished or failed at once comes back complete.
     */
    public UcpRequest tagSend(UcpEndpoint endpoint, Pointer buffer, long length, long tag) {
        Memory param = requestParam(0);
        long result = Ucp.ucp_tag_send_nbx(endpoint.handle(), Pointer.nativeValue(buffer), length, tag, param);
        if (result == 0 || UcpLayout.isError(result)) {
            return new UcpRequest(this, false, 0, (int) result, 0, 0);
        }
        return new UcpRequest(this, false, result, UcpLayout.UCS_INPROGRESS, 0, 0);
    }

    /**
     * Posts a receive of at most {@code length} bytes into {@code buffer} for messages whose tag
     * matches {@code tag} under {@code tagMask} ({@code ucp_tag_recv_nbx}). It always returns a
     * request ({@code UCP_OP_ATTR_FLAG_NO_IMM_CMPL}): UCX 1.13 does not fill {@code
     * recv_info.tag_info} when a receive completes at once, and the request is how the sender's
     * tag and the length are learnt. A receive that matched a message already there is complete
     * at its first {@link UcpRequest#poll}; one refused at once comes back complete with its status.
     */
    public UcpRequest tagReceive(Pointer buffer, long length, long tag, long tagMask) {
        Memory param = requestParam(UcpLayout.OP_ATTR_FLAG_NO_IMM_CMPL);
        long result = Ucp.ucp_tag_recv_nbx(handle(), Pointer.nativeValue(buffer), length, tag, tagMask, param);
        if (result == 0 || UcpLayout.isError(result)) {
            return new UcpRequest(this, true, 0, (int) result, 0, 0);
        }
        return new UcpRequest(this, true, result, UcpLayout.UCS_INPROGRESS, 0, 0);
    }

    /**
     * Whether a message whose tag matches {@code tag} under {@code tagMask} has arrived and waits
     * for a receive ({@code ucp_tag_probe_nb}, not removing it).
     */
    public boolean messageWaiting(long tag, long tagMask) {
        return Ucp.ucp_tag_probe_nb(handle(), tag, tagMask, 0, infoAddress()) != 0;
    }

    /** The scratch {@code ucp_request_param_t}, cleared, with {@code opAttrMask}. */
    private Memory requestParam(int opAttrMask) {
        scratch.clear();
        scratch.setInt(UcpLayout.REQUEST_PARAM_OP_ATTR_MASK, opAttrMask);
        return scratch;
    }

    long infoAddress() {
        scratch.setLong(INFO_OFFSET + UcpLayout.TAG_RECV_INFO_SENDER_TAG, 0);
        scratch.setLong(INFO_OFFSET + UcpLayout.TAG_RECV_INFO_LENGTH, 0);
        return Pointer.nativeValue(scratch) + INFO_OFFSET;
    }

    long infoSenderTag() {
        return scratch.getLong(INFO_OFFSET + UcpLayout.TAG_RECV_INFO_SENDER_TAG);
    }

    long infoLength() {
        return scratch.getLong(INFO_OFFSET + UcpLayout.TAG_RECV_INFO_LENGTH);
    }

    void closeEndpoint(UcpEndpoint endpoint, long ep, boolean force) {
        endpoints.remove(endpoint.id());
        failed.remove(endpoint);
        Memory param = requestParam(force ? UcpLayout.OP_ATTR_FIELD_FLAGS : 0);
        param.setInt(UcpLayout.REQUEST_PARAM_FLAGS, force ? UcpLayout.EP_CLOSE_FLAG_FORCE : 0);
        long result = Ucp.ucp_ep_close_nbx(ep, param);
        if (result != 0 && !UcpLayout.isError(result)) {
            closing.add(result);
        }
    }

    /** Endpoint closes still in flight (for tests). */
    int closesInFlight() {
        return closing.size();
    }

    private void endpointFailed(long arg, long ep, byte status) {
        UcpEndpoint endpoint = endpoints.get(arg);
        if (endpoint != null && endpoint.failure() == 0) {
            endpoint.failed(status);
            failed.add(endpoint);
        }
    }

    /**
     * Closes every endpoint (flushed; failed ones forced), progresses their closes for at most
     * 200 ms, and destroys the worker. A second call does nothing.
     */
    @Override
    public void close() {
        if (handle == 0) {
            return;
        }
        for (UcpEndpoint endpoint : List.copyOf(endpoints.values())) {
            endpoint.close(false);
        }
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        while (!closing.isEmpty() && System.nanoTime() - deadline < 0) {
            progress();
        }
        for (long request : closing) {
            Ucp.ucp_request_free(request);
        }
        closing.clear();
        Ucp.ucp_worker_destroy(handle);
        handle = 0;
        scratch.close();
        pairParams.close();
    }
}
