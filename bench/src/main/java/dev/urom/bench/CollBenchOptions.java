// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The command line of {@link CollBench}: {@code [--json FILE] [--ranks N] [--sizes MIN:MAX] [--colls LIST]
 * [--iterations N] [--warmup N] [--impls LIST] [--host-cpus LIST] [--worker-cpus LIST] [--dist DIR]
 * [--plugins DIR] [--program FILE] [--worker-user USER] [--timeout-s N]}.
 *
 * <p>Immutable. {@link #parse} throws {@link IllegalArgumentException} with one line naming the
 * option and the reason.
 *
 * @param json where the report goes as JSON (charts beside it), or null
 * @param ranks MPI ranks of every run ({@code mpirun -np})
 * @param minBytes the smallest message size; the sizes are it, twice it, ... up to {@code maxBytes}
 * @param maxBytes the largest message size
 * @param colls the collectives, in the sample's order
 * @param iterations measured iterations per size, or 0 for the sample's (OSU's) defaults
 * @param warmup warm-up iterations per size, or -1 for the sample's defaults
 * @param impls the implementations measured, in {@link #IMPLS}' order
 * @param placement which CPUs run the hosts, the workers and the Open MPI run on all CPUs
 * @param dist the distribution: its {@code bin/urom daemon} and the sample's sources
 * @param plugins the folder holding {@code worker_coll.so} and {@code worker_coll_java.jar}, or null
 *     to look for them ({@link CollBench#pluginFolder})
 * @param program an already built {@code urom_coll}, or null to build it from the distribution
 * @param workerUser the daemon's {@code --worker-user}, or null for its default
 * @param timeoutS how long one {@code mpirun} may take before it is ended
 */
record CollBenchOptions(
        Path json,
        int ranks,
        long minBytes,
        long maxBytes,
        List<String> colls,
        int iterations,
        int warmup,
        List<String> impls,
        CollPlacement placement,
        Path dist,
        Path plugins,
        Path program,
        String workerUser,
        int timeoutS) {
    /** The collectives the sample measures, in its order. */
    static final List<String> COLLS = List.of("allreduce", "alltoall", "allgather", "bcast");

    static final String OFFLOAD_C = "offload-c";
    static final String OFFLOAD_JAVA = "offload-java";
    static final String MPI_HOST_CPUS = "mpi-host-cpus";
    static final String MPI_ALL_CPUS = "mpi-all-cpus";
    /** The implementations, in the report's order. */
    static final List<String> IMPLS = List.of(OFFLOAD_C, OFFLOAD_JAVA, MPI_HOST_CPUS, MPI_ALL_CPUS);

    static final int DEFAULT_RANKS = 2;
    static final long DEFAULT_MIN_BYTES = 8;
    static final long DEFAULT_MAX_BYTES = 4L << 20;
    static final long MAX_BYTES = 1L << 30;
    static final int DEFAULT_TIMEOUT_S = 3600;
    static final String USAGE =
            "usage: bench coll [--json FILE] [--ranks N (default 2)] [--sizes MIN:MAX (bytes, default 8:4194304)]"
                    + " [--colls LIST (default " + String.join(",", COLLS)
                    + ")] [--iterations N (default OSU's: 1000, 100 above 8 KiB)]"
                    + " [--warmup N (default 100, 10 above 8 KiB)] [--impls LIST (default " + String.join(",", IMPLS)
                    + ")]"
                    + " [--host-cpus LIST] [--worker-cpus LIST (default: the first half of this process's CPUs and the rest)]"
                    + " [--dist DIR (default cli/target/urom)] [--plugins DIR (worker_coll.so, worker_coll_java.jar)] [--program FILE (a built urom_coll)]"
                    + " [--worker-user USER] [--timeout-s N (per mpirun, default 3600)]";

    CollBenchOptions {
        colls = List.copyOf(colls);
        impls = List.copyOf(impls);
    }

    /** Whether {@code impl} ({@link #IMPLS}) is measured. */
    boolean measures(String impl) {
        return impls.contains(impl);
    }

    /** The message sizes, rising: {@code minBytes}, doubling, up to {@code maxBytes}. */
    List<Long> sizes() {
        List<Long> sizes = new ArrayList<>();
        for (long bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
            sizes.add(bytes);
        }
        return sizes;
    }

    /** Parses {@code args} for a process that may run on the CPUs {@code allowed}. */
    static CollBenchOptions parse(List<String> args, CpuList allowed) {
        BenchCommand.Parsed line = command().parse(args);
        long[] sizes = line.get("--sizes", new long[] {DEFAULT_MIN_BYTES, DEFAULT_MAX_BYTES});
        CollPlacement placement =
                CollPlacement.of(allowed, line.get("--host-cpus", null), line.get("--worker-cpus", null));
        return new CollBenchOptions(
                line.get("--json", null),
                line.get("--ranks", DEFAULT_RANKS),
                sizes[0],
                sizes[1],
                line.get("--colls", COLLS),
                line.get("--iterations", 0),
                line.get("--warmup", -1),
                line.get("--impls", IMPLS),
                placement,
                line.get("--dist", FootprintOptions.defaultDist()),
                line.get("--plugins", null),
                line.get("--program", null),
                line.get("--worker-user", null),
                line.get("--timeout-s", DEFAULT_TIMEOUT_S));
    }

    static BenchCommand command() {
        return new BenchCommand("CollBench", USAGE)
                .path("--json", "FILE")
                .count("--ranks", 1, 1024)
                .option("--sizes", "MIN:MAX", CollBenchOptions::sizes)
                .option("--colls", "LIST", value -> subset("--colls", value, COLLS))
                .count("--iterations", 1, 1_000_000)
                .count("--warmup", 0, 1_000_000)
                .option("--impls", "LIST", value -> subset("--impls", value, IMPLS))
                .option("--host-cpus", "LIST", value -> cpus("--host-cpus", value))
                .option("--worker-cpus", "LIST", value -> cpus("--worker-cpus", value))
                .path("--dist", "DIR")
                .path("--plugins", "DIR")
                .path("--program", "FILE")
                .text("--worker-user", "USER")
                .count("--timeout-s", 1, 7 * 24 * 3600);
    }

    /** {@code value} as a CPU list; else one line naming {@code option}. */
    static CpuList cpus(String option, String value) {
        try {
            return CpuList.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " " + e.getMessage());
        }
    }

    /** {@code MIN:MAX}, 1 ≤ MIN ≤ MAX ≤ 1 GiB, as the sample (and OSU's {@code -m}) takes it. */
    static long[] sizes(String value) {
        String[] ends = value.split(":", -1);
        try {
            if (ends.length == 2) {
                long min = Long.parseLong(ends[0]);
                long max = Long.parseLong(ends[1]);
                if (min >= 1 && min <= max && max <= MAX_BYTES) {
                    return new long[] {min, max};
                }
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(
                "--sizes '" + value + "' is not MIN:MAX bytes with 1 <= MIN <= MAX <= " + MAX_BYTES);
    }

    /** The comma-separated names of {@code value}, each one of {@code known} once, in {@code known}'s order. */
    static List<String> subset(String option, String value, List<String> known) {
        LinkedHashSet<String> named = new LinkedHashSet<>();
        for (String name : value.split(",", -1)) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException(
                        option + " '" + value + "': '" + name + "' is not one of " + String.join(",", known));
            }
            if (!named.add(name)) {
                throw new IllegalArgumentException(option + " '" + value + "' names " + name + " twice");
            }
        }
        return known.stream().filter(named::contains).toList();
    }
}
