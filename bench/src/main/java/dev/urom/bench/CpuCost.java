// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CPU time the processes on one path (a host and its worker, a floor client and its server)
 * used over one measured phase of {@code operations} operations, by the process's role on the path
 * ({@code host}, {@code worker}, ...), in the order the roles were given.
 *
 * <p>Immutable. Measure with {@link #snapshot} before and after the phase and {@link #between}.
 */
record CpuCost(Map<String, Long> nanosByProcess, long operations) {

    CpuCost {
        if (operations <= 0) {
            throw new IllegalArgumentException("a CPU cost over " + operations + " operations");
        }
        nanosByProcess = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(nanosByProcess));
    }

    /** The CPU time of each process of {@code pidsByRole} at one moment, by role. */
    record Snapshot(Map<String, ProcessCpu.Snapshot> byRole) {
        Snapshot {
            byRole = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(byRole));
        }
    }

    /** Snapshots every process of {@code pidsByRole} (role → pid), one after the other. */
    static Snapshot snapshot(Map<String, Long> pidsByRole) {
        Map<String, ProcessCpu.Snapshot> byRole = new LinkedHashMap<>();
        pidsByRole.forEach((role, pid) -> byRole.put(role, ProcessCpu.snapshot(pid)));
        return new Snapshot(byRole);
    }

    /** What each process of {@code before} used until {@code after}, over {@code operations}. */
    static CpuCost between(Snapshot before, Snapshot after, long operations) {
        Map<String, Long> used = new LinkedHashMap<>();
        before.byRole().forEach((role, first) -> {
            ProcessCpu.Snapshot last = after.byRole().get(role);
            if (last == null) {
                throw new IllegalArgumentException("no second snapshot of the " + role);
            }
            used.put(role, ProcessCpu.used(first, last));
        });
        return new CpuCost(used, operations);
    }

    /** The CPU time of the process {@code role} per operation, in nanoseconds. */
    double nanosPerOp(String role) {
        Long nanos = nanosByProcess.get(role);
        if (nanos == null) {
            throw new IllegalArgumentException("no " + role + " among " + nanosByProcess.keySet());
        }
        return nanos / (double) operations;
    }

    /** The CPU time of all the processes together per operation, in nanoseconds. */
    double totalNanosPerOp() {
        return nanosByProcess.values().stream().mapToLong(Long::longValue).sum() / (double) operations;
    }

    /** Microseconds per operation by role, for {@link Figure#parts()}. */
    Map<String, Double> microsPerOpByProcess() {
        Map<String, Double> parts = new LinkedHashMap<>();
        nanosByProcess.keySet().forEach(role -> parts.put(role, nanosPerOp(role) / 1000.0));
        return parts;
    }
}
