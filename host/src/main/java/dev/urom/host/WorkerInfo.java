// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.wire.ServiceWorker;
import java.util.List;

/**
 * One worker as {@link UromService#workersInfo(long)} describes it: what its starter can know of it.
 * Immutable.
 *
 * @param id the worker id
 * @param gid its group id
 * @param pluginMask the ids of its plugins
 * @param state where it is in its life
 * @param pid its process id, or -1 before the process exists
 * @param uptimeMillis milliseconds since the daemon began to start it
 * @param commandsServed commands its plugins received, as of its latest counts (unsigned)
 * @param plugins the names of its plugins, in the order of their ids
 * @throws IllegalArgumentException (constructor) for a pid below -1 or a negative uptime
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public record WorkerInfo(
        long id,
        long gid,
        long pluginMask,
        State state,
        long pid,
        long uptimeMillis,
        long commandsServed,
        List<String> plugins) {
    /** Where a worker is in its life. */
    public enum State {
        /** The daemon is starting its process. */
        STARTING,
        /** Its process is ready for hosts. */
        RUNNING
    }

    public WorkerInfo {
        requireNonNull(state, "state is null");
        plugins = List.copyOf(requireNonNull(plugins, "plugins is null"));
        ServiceWorker.requireValid(pid, uptimeMillis);
    }
}
