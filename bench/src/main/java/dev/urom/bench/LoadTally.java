// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

/**
 * What one host process of {@link LoadBench} counted, as it tells the parent: one line of JSON.
 *
 * <p>Immutable. {@link #parse} throws {@link IllegalArgumentException} with one line for a line that
 * is not a tally.
 *
 * @param elapsedNs from the parent's go to the host's last answer (or its giving up)
 */
record LoadTally(int host, long elapsedNs, List<Worker> workers) {
    private static final ObjectMapper JSON = new ObjectMapper();

    LoadTally {
        workers = List.copyOf(workers);
    }

    /**
     * One worker's LOOPBACKs.
     *
     * @param plugin the graph plugin's name, as the daemon's metrics label it
     * @param asked commands the worker was to be sent
     * @param sent commands written to the worker (fewer than asked when the host gave up)
     * @param answered answers with SUCCESS and the very bytes of their command
     * @param wrong answers with SUCCESS and other bytes (another command's value, or not a LOOPBACK)
     * @param failed answers with another status (the first one is in {@code firstProblem})
     * @param unanswered commands sent and never answered before the host gave up
     * @param firstProblem the first wrong or failed answer, or why the host gave up; null when none
     * @param elapsedNs from the first command to the last answer
     * @param latency from writing each command to reading its answer, answered ones only
     */
    record Worker(
            int worker,
            String plugin,
            long asked,
            long sent,
            long answered,
            long wrong,
            long failed,
            long unanswered,
            String firstProblem,
            long elapsedNs,
            LatencyHistogram.Data latency) {
        boolean clean() {
            return answered == asked && sent == asked && wrong == 0 && failed == 0 && unanswered == 0;
        }
    }

    String json() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the tally of host " + host + ": " + e.getOriginalMessage());
        }
    }

    static LoadTally parse(String line) {
        try {
            return JSON.readValue(line, LoadTally.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a host tally: " + e.getOriginalMessage());
        }
    }
}
