// SPDX-License-Identifier: Apache-2.0
package dev.urom.oob;

import dev.urom.spi.Api;
import dev.urom.spi.UromException;

/**
 * The out-of-band allgather a domain bootstraps through, supplied by the application (DOCA's
 * {@code doca_urom_domain_oob_coll}): each of {@link #size()} ranks contributes {@code len} bytes,
 * and every rank receives all of them, ordered by rank.
 *
 * <p>Implementations say their own thread-safety; {@code dev.urom.host.Domain} calls one instance from one
 * thread at a time.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public interface OobAllgather {
    /**
     * Starts an allgather: {@code len} bytes of {@code send} go to every rank, and {@code recv}
     * receives {@code size() * len} bytes (rank {@code i}'s block at {@code i * len}). Does not
     * block for the other ranks.
     *
     * @throws UromException when the allgather cannot start (a buffer too small, a broken link)
     */
    OobRequest allgather(byte[] send, byte[] recv, int len) throws UromException;

    /**
     * Whether {@code request} is done; by default what the request itself says, which suits an
     * implementation that completes or fails its requests.
     *
     * @throws UromException when it failed, with the reason
     */
    default boolean test(OobRequest request) throws UromException {
        return request.isDone();
    }

    /** Releases what {@code request} holds; it is not used afterwards. By default nothing is held. */
    default void free(OobRequest request) {}

    /** How many ranks take part ({@code n_oob_indexes}). */
    int size();

    /** This rank, from 0 to {@code size() - 1} ({@code oob_index}). */
    int index();
}
