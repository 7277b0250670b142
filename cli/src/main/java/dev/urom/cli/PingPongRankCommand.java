// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.host.Domain;
import dev.urom.host.Plugin;
import dev.urom.host.PluginVersions;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.oob.TcpRendezvousAllgather;
import dev.urom.plugins.sandbox.host.SandboxClient;
import dev.urom.spi.UromException;
import dev.urom.wire.ServiceAddress;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * One rank of the ping-pong sample, as its own process: {@code urom ping-pong} starts them on one
 * machine, and a launcher ({@code mpirun}, a batch system, a shell loop over ssh) starts them on
 * several, each rank with the daemon of its own machine ({@code --service}). It starts a sandbox
 * worker, joins the domain of all ranks through the TCP rendezvous (rank 0 listens on it, the others
 * connect), then passes the message around the ring: rank 0 sends it to rank 1 and waits for it to
 * come back (tag 0x1234), every other rank waits for it (tag 0x5678) and sends it on to {@code (rank
 * + 1) % size}. Mask 0xffff. Prints one line per thing it did; rank 0 adds the round-trip times.
 */
@Command(
        name = "ping-pong-rank",
        description =
                "One rank of the ping-pong sample: run one per host with that host's daemon (urom ping-pong runs them all here).")
final class PingPongRankCommand implements Callable<Integer> {
    static final long RANK0_TAG = 0x1234;
    static final long OTHERS_TAG = 0x5678;
    static final long MASK = 0xffff;

    @Spec
    CommandSpec spec;

    @Mixin
    ServiceOptions service;

    @Option(
            names = "--rank",
            required = true,
            paramLabel = "N",
            description = "This rank, 0 to --size - 1 (mpirun's OMPI_COMM_WORLD_RANK or PMI_RANK).")
    int rank;

    @Option(names = "--size", required = true, paramLabel = "N", description = "How many ranks there are, at least 2.")
    int size;

    @Option(
            names = "--rendezvous",
            required = true,
            paramLabel = "HOST:PORT",
            description =
                    "Where rank 0 listens for the others (rank 0: an address of its own host, port 0 picks one and prints it).")
    String rendezvous;

    @Option(names = "--message", required = true, paramLabel = "TEXT", description = "What the ranks pass around.")
    String message;

    @Option(
            names = "--plugin",
            required = true,
            paramLabel = "NAME",
            description = "The sandbox plugin of this rank's worker: worker_sandbox or worker_sandbox_java.")
    String plugin;

    @Option(
            names = "--rounds",
            defaultValue = "100",
            paramLabel = "N",
            description = "Round trips rank 0 times (default: ${DEFAULT-VALUE}); the same on every rank.")
    int rounds;

    @Option(
            names = "--worker-env",
            paramLabel = "NAME=VALUE",
            description =
                    "Put NAME=VALUE in the worker's environment, e.g. UCX_TLS=tcp or UCX_NET_DEVICES=eth0 (repeatable; the daemon's --worker-env-allow decides).")
    List<String> workerEnv = new ArrayList<>();

    private long context;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (size < 2) {
            throw CliFailure.usage("--size " + size + ": the ping-pong needs at least 2 ranks");
        }
        if (rank < 0 || rank >= size) {
            throw CliFailure.usage("--rank " + rank + ": not between 0 and --size - 1 (" + (size - 1) + ")");
        }
        for (String entry : workerEnv) {
            if (entry.indexOf('=') <= 0) {
                throw CliFailure.usage("--worker-env " + entry + ": not NAME=VALUE");
            }
        }
        InetSocketAddress address = rendezvousAddress();
        try (UromService connection = service.connect();
                TcpRendezvousAllgather oob = new TcpRendezvousAllgather(rank, size, address)) {
            if (rank == 0) {
                InetSocketAddress bound = oob.listeningAddress();
                out.println("RENDEZVOUS " + bound.getHostString() + ":" + bound.getPort());
                out.flush();
            }
            Plugin sandbox = PluginVersions.require(connection.plugins(), plugin, 1);
            long id = sandbox.info().id();
            try (Worker worker = connection
                    .newWorker()
                    .plugins(id)
                    .env(workerEnv.toArray(String[]::new))
                    .build()) {
                RemoteWorker.await(worker.start(), "starting a worker with " + plugin);
                RemoteWorker.await(
                        Domain.create(List.of(worker), new long[] {rank}, oob).start(), "starting the domain");
                out.printf(
                        "rank %d: worker %d with %s (%s) joined the domain of %d ranks%n",
                        rank, worker.id(), plugin, sandbox.kind(), size);
                byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
                int next = (rank + 1) % size;
                long sendTag = next == 0 ? RANK0_TAG : OTHERS_TAG;
                long[] micros = new long[rounds];
                for (int round = 0; round < rounds; round++) {
                    long start = System.nanoTime();
                    if (rank == 0) {
                        send(worker, id, next, sendTag, bytes);
                        SandboxClient.Received back = recv(worker, id, RANK0_TAG, bytes.length);
                        micros[round] = (System.nanoTime() - start) / 1_000;
                        if (round == 0) {
                            out.printf(
                                    "rank 0: sent '%s' to rank %d; received '%s' (tag 0x%x) back from rank %d%n",
                                    message, next, text(back), back.senderTag(), size - 1);
                        }
                    } else {
                        SandboxClient.Received got = recv(worker, id, OTHERS_TAG, bytes.length);
                        send(worker, id, next, sendTag, got.data());
                        if (round == 0) {
                            out.printf(
                                    "rank %d: received '%s' (tag 0x%x); sent it to rank %d%n",
                                    rank, text(got), got.senderTag(), next);
                        }
                    }
                }
                if (rank == 0) {
                    Arrays.sort(micros);
                    out.printf(
                            "rank 0: %d round trips through %d ranks: p50 %d us, p99 %d us%n",
                            rounds, size, micros[rounds / 2], micros[Math.min(rounds - 1, (int) (rounds * 0.99))]);
                }
            }
        } catch (UromException e) {
            throw new CliFailure("rank " + rank + ": " + e.getMessage());
        }
        return 0;
    }

    /** {@code --rendezvous}, read as a TCP service address is ({@code HOST:PORT}, an IPv6 host in brackets). */
    private InetSocketAddress rendezvousAddress() {
        try {
            ServiceAddress parsed = ServiceAddress.parse("tcp:" + rendezvous);
            return new InetSocketAddress(parsed.host(), parsed.port());
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage("--rendezvous " + rendezvous + ": not HOST:PORT with a port from 0 to 65535");
        }
    }

    private void send(Worker worker, long id, long dest, long tag, byte[] bytes) {
        RemoteWorker.await(
                SandboxClient.tagSend(worker, id, ++context, dest, tag, bytes),
                "rank " + rank + " TAG_SEND to " + dest);
    }

    private SandboxClient.Received recv(Worker worker, long id, long tag, int max) {
        return RemoteWorker.await(
                SandboxClient.tagRecv(worker, id, ++context, tag, MASK, max), "rank " + rank + " TAG_RECV");
    }

    private static String text(SandboxClient.Received received) {
        return new String(received.data(), StandardCharsets.UTF_8);
    }
}
