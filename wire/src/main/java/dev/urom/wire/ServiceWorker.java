// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import java.util.List;

/**
 * One worker as the daemon reports it in WORKERS_INFO_REPLY: what its starter can know of it.
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
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public record ServiceWorker(
        long id,
        long gid,
        long pluginMask,
        State state,
        long pid,
        long uptimeMillis,
        long commandsServed,
        List<String> plugins) {
    /** A worker's state on the wire: its code is the {@code u32 state} field. */
    public enum State {
        STARTING(1),
        RUNNING(2);

        private final int code;

        State(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** The state with this code, or {@code null}. */
        static State fromCode(long code) {
            for (State s : values()) {
                if (s.code == code) {
                    return s;
                }
            }
            return null;
        }
    }

    public ServiceWorker {
        requireNonNull(state, "state is null");
        plugins = List.copyOf(requireNonNull(plugins, "plugins is null"));
        requireValid(pid, uptimeMillis);
    }

    /**
     * Checks a worker's pid and uptime, for this record and for the host API's view of it.
     *
     * @throws IllegalArgumentException for a pid below -1 or a negative uptime
     */
    public static void requireValid(long pid, long uptimeMillis) {
        if (pid < -1) {
            throw new IllegalArgumentException("pid " + pid + " is neither a process id nor -1");
        }
        if (uptimeMillis < 0) {
            throw new IllegalArgumentException("uptime " + uptimeMillis + " ms is negative");
        }
    }
}
