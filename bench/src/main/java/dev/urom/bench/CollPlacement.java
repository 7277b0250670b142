// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

/**
 * Where {@link CollBench}'s processes run: the MPI ranks of the offloaded runs (and of the Open MPI
 * run beside them) on {@code hosts}, the daemon and its workers on {@code workers} (disjoint from
 * {@code hosts}), and the Open MPI run without a daemon on {@code all}.
 *
 * <p>Immutable. {@link #of} throws {@link IllegalArgumentException} with one line naming the option.
 */
record CollPlacement(CpuList hosts, CpuList workers, CpuList all) {

    /**
     * The placement on {@code allowed} (this process's CPUs): {@code hosts} and {@code workers} as
     * given (null: the first half of {@code allowed}, at least one, and the rest; or, with one of
     * them given, the other takes the allowed CPUs it leaves); {@code all} is every allowed CPU.
     *
     * @throws IllegalArgumentException when a list names a CPU not allowed, the two share a CPU, or
     *     one of them ends up empty (a single allowed CPU)
     */
    static CollPlacement of(CpuList allowed, CpuList hosts, CpuList workers) {
        allowedOnly("--host-cpus", hosts, allowed);
        allowedOnly("--worker-cpus", workers, allowed);
        if (hosts == null && workers == null) {
            hosts = allowed.first(Math.max(1, allowed.size() / 2));
            workers = allowed.minus(hosts);
        } else if (hosts == null) {
            hosts = allowed.minus(workers);
        } else if (workers == null) {
            workers = allowed.minus(hosts);
        }
        if (hosts.size() == 0 || workers.size() == 0) {
            throw new IllegalArgumentException("hosts and workers need a CPU each and none is left for the "
                    + (hosts.size() == 0 ? "hosts" : "workers") + " (allowed: " + allowed
                    + "); give --host-cpus and --worker-cpus");
        }
        if (!hosts.disjoint(workers)) {
            throw new IllegalArgumentException(
                    "--host-cpus " + hosts + " and --worker-cpus " + workers + " share CPUs");
        }
        return new CollPlacement(hosts, workers, allowed);
    }

    private static void allowedOnly(String option, CpuList list, CpuList allowed) {
        if (list != null && !allowed.containsAll(list)) {
            throw new IllegalArgumentException(
                    option + " " + list + " names CPUs this process may not use (allowed: " + allowed + ")");
        }
    }

    /** One line for the report's header: which CPUs whom. */
    String describe() {
        return "hosts (MPI ranks) on CPUs " + hosts + ", daemon and workers on " + workers + "; Open MPI alone on all: "
                + all;
    }
}
