// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How the data of an MPI benchmark's job moves between ranks, and between their workers: the same
 * way on both sides, so that a run with the library and one without compare like with like.
 * Immutable.
 */
enum MpiTransport {
    /** Shared memory: Open MPI's default, and UCX's shared-memory transports for the workers. */
    SHM(List.of(), Map.of("UCX_POSIX_ERROR_HANDLING", "y", "UCX_SYSV_ERROR_HANDLING", "y")),
    /**
     * TCP over loopback on both sides, as between nodes: Open MPI's {@code tcp} BTL on {@code lo}
     * (which it leaves out unless told), and UCX's {@code tcp} for the workers.
     */
    TCP(List.of("--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"), Map.of("UCX_TLS", "tcp,self"));

    private final List<String> mpirunArguments;
    private final Map<String, String> workerEnvironment;

    MpiTransport(List<String> mpirunArguments, Map<String, String> workerEnvironment) {
        this.mpirunArguments = mpirunArguments;
        this.workerEnvironment = workerEnvironment;
    }

    /** What {@code mpirun} is given, before {@code -np}. */
    List<String> mpirunArguments() {
        return mpirunArguments;
    }

    /**
     * What the daemon passes its workers. For {@link #SHM}: UCX 1.13 keeps endpoints with
     * peer-failure handling (the plugins') off shared memory unless its shared-memory transports
     * say they handle failures, and workers on one machine would talk TCP.
     */
    Map<String, String> workerEnvironment() {
        return workerEnvironment;
    }

    /** The option's word for it: {@code shm} or {@code tcp}. */
    String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The transport {@code word} names. */
    static MpiTransport of(String word) {
        for (MpiTransport transport : values()) {
            if (transport.word().equals(word)) {
                return transport;
            }
        }
        throw new IllegalArgumentException("--transport '" + word + "' is not shm or tcp");
    }
}
