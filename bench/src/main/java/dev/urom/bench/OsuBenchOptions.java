// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@link OsuBench}: {@code --osu DIR [--json FILE] [--benchmarks LIST] [--ranks
 * N] [--sizes MIN:MAX] [--type T] [--iterations N] [--warmup N] [--host-cpus LIST] [--worker-cpus
 * LIST] [--dist DIR] [--plugins DIR] [--worker-user USER] [--kernel-n N] [--timeout-s N]}.
 *
 * <p>Immutable. {@link #parse} throws {@link IllegalArgumentException} with one line naming the
 * option and the reason.
 *
 * @param osu the folder holding the OSU Micro-Benchmarks' programs (searched below it by name)
 * @param json where the report goes as JSON, or null
 * @param benchmarks the OSU programs run, in {@link #BENCHMARKS}' order
 * @param ranks MPI ranks of every run
 * @param minBytes OSU's {@code -m MIN:MAX}, the smallest size
 * @param maxBytes the largest size
 * @param type OSU's {@code -T}
 * @param iterations OSU's {@code -i}, or 0 for its default
 * @param warmup OSU's {@code -x}, or -1 for its default
 * @param placement which CPUs run the ranks and which the daemon and its workers
 * @param dist the distribution: {@code bin/urom daemon}, {@code lib/liburom_mpi.so}, the kernel's sources
 * @param plugins the folder holding {@code worker_coll.so}, or null to look for it
 * @param workerUser the daemon's {@code --worker-user}, or null for its default
 * @param kernelN the 2-D FFT kernel's grid side, or 0 to skip the kernel
 * @param timeoutS how long one {@code mpirun} may take before it is ended
 * @param transport how the ranks' data, and their workers', moves
 */
record OsuBenchOptions(Path osu, Path json, List<String> benchmarks, int ranks, long minBytes, long maxBytes, String type, int iterations,
        int warmup, CollPlacement placement, Path dist, Path plugins, String workerUser, int kernelN, int timeoutS, MpiTransport transport) {
    /** The OSU non-blocking collectives measured, in the report's order. */
    static final List<String> BENCHMARKS = List.of("osu_iallreduce", "osu_ialltoall", "osu_iallgather", "osu_ibcast");
    /** OSU's datatypes: {@code mpi_char}'s sums overflow its own validation at 16 B, with or without the library. */
    static final List<String> TYPES = List.of("mpi_float", "mpi_int", "mpi_char");
    static final int DEFAULT_KERNEL_N = 1024;
    static final String USAGE = "usage: bench osu --osu DIR (the OSU Micro-Benchmarks, built by you) [--json FILE]"
            + " [--benchmarks LIST (default " + String.join(",", BENCHMARKS) + ")] [--ranks N (default 2)]"
            + " [--sizes MIN:MAX (default 8:4194304)] [--type " + String.join("|", TYPES) + " (default mpi_float)]"
            + " [--iterations N] [--warmup N (default OSU's)] [--host-cpus LIST] [--worker-cpus LIST] [--dist DIR (default cli/target/urom)]"
            + " [--plugins DIR (worker_coll.so)] [--worker-user USER] [--kernel-n N (the 2-D FFT's side, default 1024; 0: none)]"
            + " [--timeout-s N (per mpirun, default 3600)] [--transport shm|tcp (default shm)]";

    OsuBenchOptions {
        benchmarks = List.copyOf(benchmarks);
    }

    /** Parses {@code args} for a process that may run on the CPUs {@code allowed}. */
    static OsuBenchOptions parse(List<String> args, CpuList allowed) {
        Path[] paths = {null, null, FootprintOptions.defaultDist(), null};
        int[] counts = {CollBenchOptions.DEFAULT_RANKS, 0, -1, DEFAULT_KERNEL_N, CollBenchOptions.DEFAULT_TIMEOUT_S};
        long[] sizes = {CollBenchOptions.DEFAULT_MIN_BYTES, CollBenchOptions.DEFAULT_MAX_BYTES};
        List<List<String>> lists = new ArrayList<>(List.of(BENCHMARKS));
        String[] words = {TYPES.get(0), null};
        CpuList[] cpus = {null, null};
        MpiTransport[] transport = {MpiTransport.SHM};
        OptionPairs.parse(args, List.of("--osu", "--json", "--benchmarks", "--ranks", "--sizes", "--type", "--iterations", "--warmup",
                "--host-cpus", "--worker-cpus", "--dist", "--plugins", "--worker-user", "--kernel-n", "--timeout-s", "--transport"), USAGE, (option, value) -> {
            switch (option) {
                case "--osu" -> paths[0] = Path.of(value);
                case "--json" -> paths[1] = Path.of(value);
                case "--dist" -> paths[2] = Path.of(value);
                case "--plugins" -> paths[3] = Path.of(value);
                case "--ranks" -> counts[0] = OptionPairs.count(option, value, 1, 1024);
                case "--iterations" -> counts[1] = OptionPairs.count(option, value, 1, 1_000_000);
                case "--warmup" -> counts[2] = OptionPairs.count(option, value, 0, 1_000_000);
                case "--kernel-n" -> counts[3] = kernelN(value);
                case "--timeout-s" -> counts[4] = OptionPairs.count(option, value, 1, 7 * 24 * 3600);
                case "--sizes" -> {
                    long[] parsed = CollBenchOptions.sizes(value);
                    sizes[0] = parsed[0];
                    sizes[1] = parsed[1];
                }
                case "--transport" -> transport[0] = MpiTransport.of(value);
                case "--benchmarks" -> lists.set(0, CollBenchOptions.subset(option, value, BENCHMARKS));
                case "--type" -> {
                    if (!TYPES.contains(value)) {
                        throw new IllegalArgumentException("--type '" + value + "' is not one of " + String.join(",", TYPES));
                    }
                    words[0] = value;
                }
                case "--host-cpus", "--worker-cpus" -> {
                    try {
                        cpus[option.equals("--host-cpus") ? 0 : 1] = CpuList.parse(value);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(option + " " + e.getMessage());
                    }
                }
                default -> words[1] = value;
            }
        });
        if (paths[0] == null) {
            throw new IllegalArgumentException("--osu DIR is required: the folder of the OSU Micro-Benchmarks you built; " + USAGE);
        }
        return new OsuBenchOptions(paths[0], paths[1], lists.get(0), counts[0], sizes[0], sizes[1], words[0], counts[1], counts[2],
                CollPlacement.of(allowed, cpus[0], cpus[1]), paths[2], paths[3], words[1], counts[3], counts[4], transport[0]);
    }

    /** 0, or a power of two from 8 to 16384. */
    private static int kernelN(String value) {
        int n = OptionPairs.count("--kernel-n", value, 0, 16384);
        if (n != 0 && (n < 8 || Integer.bitCount(n) != 1)) {
            throw new IllegalArgumentException("--kernel-n " + value + " is not 0 or a power of two from 8 to 16384");
        }
        return n;
    }

    /** The message sizes OSU prints, rising: {@code minBytes}, doubling, up to {@code maxBytes}. */
    List<Long> sizes() {
        List<Long> sizes = new ArrayList<>();
        for (long bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
            sizes.add(bytes);
        }
        return sizes;
    }
}
