// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;

/**
 * A snapshot of one worker the daemon supervises. Immutable.
 *
 * @param id the worker id
 * @param gid its group id
 * @param pluginMask the ids of the plugins it loads
 * @param pid its process id, or -1 before the process exists
 * @param address where it listens ({@code ""} until it is ready)
 * @param state STARTING until its READY line, then RUNNING
 * @param owner the principal that started it
 */
public record WorkerInfo(long id, long gid, long pluginMask, long pid, String address, State state, Principal owner) {
    /** Where a worker is in its life, as the daemon sees it. */
    public enum State {
        STARTING,
        RUNNING
    }
}
