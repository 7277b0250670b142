// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static java.util.Objects.requireNonNull;

import dev.urom.service.access.WorkerAccess;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;

/**
 * One line on a worker's pipes, without its line end; every type is immutable and its comment
 * gives its form on the pipe ({@link WorkerLines} writes and reads them). A worker's life on its
 * pipes, in order:
 *
 * <ol>
 *   <li>the daemon's first line on the worker's stdin: {@link Access};
 *   <li>the worker's first line on its stdout: {@link Ready}, or {@link Failed} and then nothing;
 *   <li>any number of {@link StatsRequest}s on its stdin, each answered by a {@link Stats};
 *   <li>{@link Ending} once, when the worker has decided to end, and a last {@link Stats} (tagged
 *       final) as it ends.
 * </ol>
 *
 * Lines come out in the order they were written, so a daemon that reads an answer with no ENDING
 * before it knows that the worker had not decided to end when it answered.
 */
public sealed interface WorkerLine {
    /**
     * {@code ACCESS <owner> <data key hex, or - > <seal key hex>}: who may use the worker. It
     * travels only on the pipe, never on the command line or in the environment, where other
     * processes of the worker's user could read it.
     */
    record Access(WorkerAccess access) implements WorkerLine {
        public Access {
            requireNonNull(access, "access is null");
        }
    }

    /** {@code READY <address>}: every plugin is open and the worker listens on {@code address}. */
    record Ready(ServiceAddress address) implements WorkerLine {
        public Ready {
            requireNonNull(address, "address is null");
        }
    }

    /**
     * {@code FAILED <STATUS> <reason>}: the worker could not start, and ends. The reason is kept on
     * one line (line breaks become spaces) and without spaces around it.
     *
     * @throws IllegalArgumentException for a status that is not a failure
     */
    record Failed(UromStatus status, String reason) implements WorkerLine {
        public Failed {
            requireNonNull(status, "status is null");
            if (status.isSuccess()) {
                throw new IllegalArgumentException("a FAILED line's status is a failure, not " + status);
            }
            reason = requireNonNull(reason, "reason is null")
                    .replace('\n', ' ')
                    .replace('\r', ' ')
                    .strip();
        }
    }

    /**
     * {@code STATS <n>}: the daemon asks for the worker's counts.
     *
     * @param number the request number, not negative; the answer carries it
     * @throws IllegalArgumentException for a negative number
     */
    record StatsRequest(long number) implements WorkerLine {
        public StatsRequest {
            if (number < 0) {
                throw new IllegalArgumentException("a STATS request number is not negative, not " + number);
            }
        }
    }

    /**
     * {@code STATS <n> <json>}, the answer to request n, or {@code STATS final <json>}, the counts
     * a worker writes as it ends; the JSON is the {@link WorkerStatsSnapshot} on one line.
     *
     * @param request the number of the request answered, or {@link #FINAL}
     * @throws IllegalArgumentException for a request below {@link #FINAL}
     */
    record Stats(long request, WorkerStatsSnapshot snapshot) implements WorkerLine {
        /** The request of the counts a worker writes as it ends: {@code final} on the pipe. */
        public static final long FINAL = -1;

        public Stats {
            if (request < FINAL) {
                throw new IllegalArgumentException(
                        "a STATS answer answers a request number or is final, not " + request);
            }
            requireNonNull(snapshot, "snapshot is null");
        }

        /** The counts a worker writes as it ends. */
        public static Stats last(WorkerStatsSnapshot snapshot) {
            return new Stats(FINAL, snapshot);
        }

        public boolean isFinal() {
            return request == FINAL;
        }
    }

    /**
     * {@code ENDING}: the worker has decided to end and takes no new host. It writes this once,
     * before any host can learn that its STOP was taken.
     */
    record Ending() implements WorkerLine {}
}
