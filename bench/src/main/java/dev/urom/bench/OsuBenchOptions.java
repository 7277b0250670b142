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
record OsuBenchOptions(
        Path osu,
        Path json,
        List<String> benchmarks,
        int ranks,
        long minBytes,
        long maxBytes,
        String type,
        int iterations,
        int warmup,
        CollPlacement placement,
        Path dist,
        Path plugins,
        String workerUser,
        int kernelN,
        int timeoutS,
        MpiTransport transport) {
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
        BenchCommand.Parsed line = command().parse(args);
        Path osu = line.get("--osu", null);
        if (osu == null) {
            throw new IllegalArgumentException(
                    "--osu DIR is required: the folder of the OSU Micro-Benchmarks you built; " + USAGE);
        }
        long[] sizes = line.get(
                "--sizes", new long[] {CollBenchOptions.DEFAULT_MIN_BYTES, CollBenchOptions.DEFAULT_MAX_BYTES});
        CollPlacement placement =
                CollPlacement.of(allowed, line.get("--host-cpus", null), line.get("--worker-cpus", null));
        return new OsuBenchOptions(
                osu,
                line.get("--json", null),
                line.get("--benchmarks", BENCHMARKS),
                line.get("--ranks", CollBenchOptions.DEFAULT_RANKS),
                sizes[0],
                sizes[1],
                line.get("--type", TYPES.get(0)),
                line.get("--iterations", 0),
                line.get("--warmup", -1),
                placement,
                line.get("--dist", FootprintOptions.defaultDist()),
                line.get("--plugins", null),
                line.get("--worker-user", null),
                line.get("--kernel-n", DEFAULT_KERNEL_N),
                line.get("--timeout-s", CollBenchOptions.DEFAULT_TIMEOUT_S),
                line.get("--transport", MpiTransport.SHM));
    }

    static BenchCommand command() {
        return new BenchCommand("OsuBench", USAGE)
                .path("--osu", "DIR")
                .path("--json", "FILE")
                .option("--benchmarks", "LIST", value -> CollBenchOptions.subset("--benchmarks", value, BENCHMARKS))
                .count("--ranks", 1, 1024)
                .option("--sizes", "MIN:MAX", CollBenchOptions::sizes)
                .option("--type", "T", OsuBenchOptions::type)
                .count("--iterations", 1, 1_000_000)
                .count("--warmup", 0, 1_000_000)
                .option("--host-cpus", "LIST", value -> CollBenchOptions.cpus("--host-cpus", value))
                .option("--worker-cpus", "LIST", value -> CollBenchOptions.cpus("--worker-cpus", value))
                .path("--dist", "DIR")
                .path("--plugins", "DIR")
                .text("--worker-user", "USER")
                .option("--kernel-n", "N", OsuBenchOptions::kernelN)
                .count("--timeout-s", 1, 7 * 24 * 3600)
                .option("--transport", "shm|tcp", MpiTransport::of);
    }

    private static String type(String value) {
        if (!TYPES.contains(value)) {
            throw new IllegalArgumentException("--type '" + value + "' is not one of " + String.join(",", TYPES));
        }
        return value;
    }

    /** 0, or a power of two from 8 to 16384. */
    private static int kernelN(String value) {
        int n = BenchCommand.count("--kernel-n", value, 0, 16384);
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
