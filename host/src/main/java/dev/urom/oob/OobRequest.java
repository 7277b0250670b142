// SPDX-License-Identifier: Apache-2.0
package dev.urom.oob;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.spi.UromException;
import java.util.concurrent.CompletableFuture;

/**
 * One allgather in progress, handed out by {@link OobAllgather#allgather}. Completes once, either
 * successfully or with the {@link UromException} that says why it failed.
 *
 * <p>Thread-safe: the allgather's own thread completes it, the caller polls it through {@link
 * OobAllgather#test}.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public final class OobRequest {
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    /** Marks the allgather done: the receive buffer holds every rank's block. */
    public void complete() {
        done.complete(null);
    }

    /** Marks the allgather failed with {@code reason}. */
    public void fail(UromException reason) {
        done.completeExceptionally(requireNonNull(reason, "reason is null"));
    }

    /**
     * Whether the allgather is done.
     *
     * @throws UromException the reason it failed
     */
    public boolean isDone() throws UromException {
        if (!done.isDone()) {
            return false;
        }
        if (done.isCompletedExceptionally()) {
            try {
                done.join();
            } catch (java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof UromException u) {
                    throw u;
                }
                throw e;
            }
        }
        return true;
    }
}
