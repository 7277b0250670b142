// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import dev.urom.spi.HostProcess;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;

/**
 * The host processes of a worker's connections, which the embedding data plane knows and a {@link
 * WorkerHost} hands its plugins through {@link dev.urom.spi.WorkerContext#hostProcess(long)}.
 *
 * <p>Implementations are thread-safe (a plugin may ask from a thread of its own) and answer each
 * call with a new pidfd that the caller owns; they fail as that method documents (NOT_FOUND for a
 * connection they do not hold, NOT_SUPPORTED for one without a local process).
 */
@FunctionalInterface
public interface HostProcesses {
    /** The process at the other end of host connection {@code destId}; its pidfd is the caller's. */
    HostProcess hostProcess(long destId) throws UromException;

    /** A worker that tells no host process: every look-up fails with NOT_SUPPORTED. */
    static HostProcesses none() {
        return destId -> {
            throw new UromException(
                    UromStatus.NOT_SUPPORTED, "this worker does not tell the host processes of its connections");
        };
    }
}
