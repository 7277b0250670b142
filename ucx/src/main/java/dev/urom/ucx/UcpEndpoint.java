// SPDX-License-Identifier: Apache-2.0
package dev.urom.ucx;

/**
 * A UCP endpoint ({@code ucp_ep_h}) from a {@link UcpWorker} to a remote worker address, created in
 * error-handling mode PEER: when UCX finds the peer gone, {@link UcpWorker#progress} records the
 * status ({@link #failure}) and lists the endpoint in {@link UcpWorker#takeFailedEndpoints}; UCX
 * completes its sends in progress with an error.
 *
 * <p>Owned by its worker and used from the worker's thread. {@link #close} closes it (forced once it
 * failed); {@link UcpWorker#close} closes every endpoint still open.
 */
public final class UcpEndpoint {
    private final UcpWorker worker;
    private final long id;
    private long handle;
    private int failure;

    UcpEndpoint(UcpWorker worker, long id) {
        this.worker = worker;
        this.id = id;
    }

    void attach(long handle) {
        this.handle = handle;
    }

    long id() {
        return id;
    }

    long handle() {
        if (handle == 0) {
            throw new IllegalStateException("the UCP endpoint is closed");
        }
        return handle;
    }

    void failed(int status) {
        if (failure == 0) {
            failure = status;
        }
    }

    /** The {@code ucs_status_t} UCX reported for the endpoint's error, or 0 while it is healthy. */
    public int failure() {
        return failure;
    }

    /** Whether {@link #close} was called (or the worker closed it). */
    public boolean closed() {
        return handle == 0;
    }

    /**
     * Closes the endpoint ({@code ucp_ep_close_nbx}): forced when it failed or {@code force} is
     * set (sends still in progress complete with an error), else flushed. Returns at once; the
     * worker finishes the close in later progress. A second call does nothing.
     */
    public void close(boolean force) {
        if (handle != 0) {
            worker.closeEndpoint(this, handle, force || failure != 0);
            handle = 0;
        }
    }
}
