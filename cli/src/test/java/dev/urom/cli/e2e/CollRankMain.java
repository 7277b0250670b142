// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import dev.urom.auth.AuthKey;
import dev.urom.host.Domain;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.oob.TcpRendezvousAllgather;
import dev.urom.plugins.coll.host.CollArgs;
import dev.urom.plugins.coll.host.CollBuffers;
import dev.urom.plugins.coll.host.CollClient;
import dev.urom.plugins.coll.host.TeamSpec;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.ReduceOp;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One rank of {@link CrossHostCollTest}, a process of its own on its host: proves the key to its
 * host's daemon on the daemon's Unix socket (so that its worker learns this process and reaches its
 * memory), starts one worker running {@code PLUGIN}, joins a domain of {@code SIZE} ranks through
 * rank 0's TCP rendezvous, builds a team of all of them, then runs an allreduce (FLOAT64 SUM) and an
 * alltoall (UINT8) of direct buffers and checks both results. Prints {@code RENDEZVOUS host:port}
 * (rank 0), then one line per result; exit status 0 only if both matched.
 *
 * <p>Arguments: {@code SERVICE KEY_FILE RANK SIZE RENDEZVOUS PLUGIN COUNT}.
 */
public final class CollRankMain {
    private static final long SECONDS = 120;
    private static final int TEAM = 1;

    private CollRankMain() {}

    public static void main(String[] args) throws Exception {
        String service = args[0];
        Path keyFile = Path.of(args[1]);
        int rank = Integer.parseInt(args[2]);
        int size = Integer.parseInt(args[3]);
        String[] rendezvous = args[4].split(":");
        String plugin = args[5];
        int count = Integer.parseInt(args[6]);
        try (UromService connection = UromService.connect(service, Optional.of(AuthKey.load(keyFile)));
                TcpRendezvousAllgather oob = new TcpRendezvousAllgather(
                        rank, size, new InetSocketAddress(rendezvous[0], Integer.parseInt(rendezvous[1])))) {
            if (rank == 0) {
                System.out.println("RENDEZVOUS " + oob.listeningAddress().getHostString() + ":"
                        + oob.listeningAddress().getPort());
            }
            Plugin info = connection.plugins().stream()
                    .filter(p -> p.info().name().equals(plugin))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("the daemon does not serve " + plugin));
            try (Worker worker =
                    connection.newWorker().plugins(info.info().id()).build()) {
                worker.start().get(SECONDS, TimeUnit.SECONDS);
                Domain.create(List.of(worker), new long[] {rank}, oob).start().get(SECONDS, TimeUnit.SECONDS);
                CollClient client =
                        new CollClient(worker, info.info().id(), info.info().version());
                client.createTeam(TeamSpec.range(TEAM, size, rank, 0, 1)).get(SECONDS, TimeUnit.SECONDS);
                System.out.println("rank " + rank + ": " + plugin + " in a team of " + size);
                boolean ok = allreduce(client, rank, size, count) & alltoall(client, rank, size, count);
                client.destroyTeam(TEAM).get(SECONDS, TimeUnit.SECONDS);
                System.exit(ok ? 0 : 1);
            }
        }
    }

    private static boolean allreduce(CollClient client, int rank, int size, int count) throws Exception {
        ByteBuffer src = direct(count * Double.BYTES);
        ByteBuffer dst = direct(count * Double.BYTES);
        for (int i = 0; i < count; i++) {
            src.putDouble(i * Double.BYTES, rank + 0.25 * i);
        }
        client.post(
                        TEAM,
                        CollArgs.allreduce(
                                DataType.FLOAT64,
                                ReduceOp.SUM,
                                count,
                                CollBuffers.address(src),
                                CollBuffers.address(dst)))
                .get(SECONDS, TimeUnit.SECONDS);
        double ranks = size * (size - 1) / 2.0;
        for (int i = 0; i < count; i++) {
            double expected = ranks + size * 0.25 * i;
            if (dst.getDouble(i * Double.BYTES) != expected) {
                System.out.println("rank " + rank + ": allreduce element " + i + " is "
                        + dst.getDouble(i * Double.BYTES) + ", not " + expected);
                return false;
            }
        }
        System.out.println("rank " + rank + ": allreduce of " + count + " doubles matches");
        return true;
    }

    private static boolean alltoall(CollClient client, int rank, int size, int block) throws Exception {
        ByteBuffer src = direct(size * block);
        ByteBuffer dst = direct(size * block);
        for (int to = 0; to < size; to++) {
            for (int i = 0; i < block; i++) {
                src.put(to * block + i, (byte) (rank * 50 + to * 7 + i));
            }
        }
        client.post(TEAM, CollArgs.alltoall(DataType.UINT8, block, CollBuffers.address(src), CollBuffers.address(dst)))
                .get(SECONDS, TimeUnit.SECONDS);
        for (int from = 0; from < size; from++) {
            for (int i = 0; i < block; i++) {
                byte expected = (byte) (from * 50 + rank * 7 + i);
                if (dst.get(from * block + i) != expected) {
                    System.out.println("rank " + rank + ": alltoall byte " + i + " from rank " + from + " is "
                            + dst.get(from * block + i));
                    return false;
                }
            }
        }
        System.out.println("rank " + rank + ": alltoall of " + block + " bytes per rank matches");
        return true;
    }

    private static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
