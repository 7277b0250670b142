// SPDX-License-Identifier: Apache-2.0
package dev.urom.oob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AllgatherTest {
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<TcpRendezvousAllgather> tcp = new ArrayList<>();

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        tcp.forEach(TcpRendezvousAllgather::close);
    }

    /** Rank r's block: len bytes of value 10 * round + r. */
    private static byte[] block(int round, int rank, int len) {
        byte[] b = new byte[len];
        java.util.Arrays.fill(b, (byte) (10 * round + rank));
        return b;
    }

    private static byte[] await(OobAllgather oob, OobRequest request) throws UromException {
        while (!oob.test(request)) {
            LockSupport.parkNanos(100_000);
        }
        oob.free(request);
        return null;
    }

    /** Like {@link #await}, but an AssertionError when the request is not done within 30 s. */
    private static void awaitWithin(OobAllgather oob, OobRequest request) throws UromException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!oob.test(request)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the allgather request was not done within 30 s");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    /** Runs two rounds on every rank, each on its own thread; returns what each rank received per round. */
    private List<List<byte[]>> twoRounds(List<? extends OobAllgather> ranks, int[] lens) throws Exception {
        List<Future<List<byte[]>>> futures = new ArrayList<>();
        for (OobAllgather oob : ranks) {
            futures.add(threads.submit(() -> {
                List<byte[]> got = new ArrayList<>();
                for (int round = 0; round < 2; round++) {
                    int len = lens[oob.index()] + round;
                    byte[] recv = new byte[len * oob.size()];
                    await(oob, oob.allgather(block(round, oob.index(), len), recv, len));
                    got.add(recv);
                }
                return got;
            }));
        }
        List<List<byte[]>> out = new ArrayList<>();
        for (Future<List<byte[]>> f : futures) {
            out.add(f.get(60, TimeUnit.SECONDS));
        }
        return out;
    }

    private static void assertGathered(List<List<byte[]>> got, int size, int len) {
        for (List<byte[]> rank : got) {
            for (int round = 0; round < 2; round++) {
                byte[] expected = new byte[size * (len + round)];
                for (int r = 0; r < size; r++) {
                    System.arraycopy(block(round, r, len + round), 0, expected, r * (len + round), len + round);
                }
                assertThat(rank.get(round)).isEqualTo(expected);
            }
        }
    }

    private List<TcpRendezvousAllgather> tcpGroup(int size, int[] sizes) throws UromException {
        TcpRendezvousAllgather root =
                new TcpRendezvousAllgather(0, sizes[0], new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        tcp.add(root);
        List<TcpRendezvousAllgather> ranks = new ArrayList<>(List.of(root));
        for (int r = 1; r < size; r++) {
            TcpRendezvousAllgather rank = new TcpRendezvousAllgather(r, sizes[r], root.listeningAddress());
            tcp.add(rank);
            ranks.add(rank);
        }
        return ranks;
    }

    @Test
    void inProcessGroupsOfTwoAndThreeGatherEveryBlockInRankOrder() throws Exception {
        assertGathered(twoRounds(InProcessAllgather.group(2), new int[] {5, 5}), 2, 5);
        assertGathered(twoRounds(InProcessAllgather.group(3), new int[] {3, 3, 3}), 3, 3);
    }

    @Test
    void tcpGroupsOfTwoAndThreeGatherEveryBlockInRankOrder() throws Exception {
        assertGathered(twoRounds(tcpGroup(2, new int[] {2, 2}), new int[] {7, 7}), 2, 7);
        assertGathered(twoRounds(tcpGroup(3, new int[] {3, 3, 3}), new int[] {4, 4, 4}), 3, 4);
    }

    private List<Throwable> failures(List<? extends OobAllgather> ranks, int[] lens) throws Exception {
        List<Future<Throwable>> futures = new ArrayList<>();
        for (OobAllgather oob : ranks) {
            futures.add(threads.submit(() -> {
                int len = lens[oob.index()];
                try {
                    await(oob, oob.allgather(new byte[len], new byte[len * oob.size()], len));
                    return null;
                } catch (UromException e) {
                    return e;
                }
            }));
        }
        List<Throwable> out = new ArrayList<>();
        for (Future<Throwable> f : futures) {
            out.add(f.get(60, TimeUnit.SECONDS));
        }
        return out;
    }

    @Test
    void inProcessRanksThatDisagreeOnTheLengthAllFail() throws Exception {
        assertThat(failures(InProcessAllgather.group(3), new int[] {4, 4, 6}))
                .allSatisfy(e -> assertThat(e)
                        .isInstanceOf(UromException.class)
                        .hasMessage("allgather ranks disagree on the length: rank 0 sends 4 bytes, rank 2 sends 6"));
    }

    @Test
    void tcpRanksThatDisagreeOnTheLengthAllFail() throws Exception {
        assertThat(failures(tcpGroup(2, new int[] {2, 2}), new int[] {4, 9}))
                .allSatisfy(e -> assertThat(e)
                        .isInstanceOf(UromException.class)
                        .hasMessage("allgather ranks disagree on the length: rank 0 sends 4 bytes, rank 1 sends 9"));
    }

    @Test
    void tcpRanksThatDisagreeOnTheSizeAllFail() throws Exception {
        assertThat(failures(tcpGroup(2, new int[] {2, 3}), new int[] {4, 4}))
                .allSatisfy(e -> assertThat(e)
                        .isInstanceOf(UromException.class)
                        .satisfies(u -> assertThat(((UromException) u).status()).isEqualTo(UromStatus.INVALID_VALUE))
                        .hasMessage("allgather ranks disagree on the size: rank 0 has 2, rank 1 has 3"));
    }

    @Test
    void closingFailsTheRoundInProgressAndTheRoundsQueuedBehindIt() throws Exception {
        try (java.net.ServerSocket silentRoot = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            TcpRendezvousAllgather rank1 =
                    new TcpRendezvousAllgather(1, 2, (InetSocketAddress) silentRoot.getLocalSocketAddress());
            tcp.add(rank1);
            OobRequest running = rank1.allgather(block(0, 1, 4), new byte[8], 4);
            OobRequest queued = rank1.allgather(block(1, 1, 4), new byte[8], 4);
            try (java.net.Socket fromRank1 = silentRoot.accept()) {
                assertThat(fromRank1.getInputStream().readNBytes(16))
                        .as("rank 1's header and block")
                        .hasSize(16);

                rank1.close();

                assertThatThrownBy(() -> awaitWithin(rank1, running))
                        .isInstanceOfSatisfying(
                                UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.IO_FAILED));
                assertThatThrownBy(() -> awaitWithin(rank1, queued))
                        .isInstanceOfSatisfying(
                                UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.BAD_STATE))
                        .hasMessage("the allgather of rank 1 was closed before this round ran");
            }
        }
    }

    @Test
    void aRankOutsideTheGroupIsRefused() {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        assertThatThrownBy(() -> new TcpRendezvousAllgather(2, 2, any))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("allgather index 2 is outside 0..1 (size 2)");
        assertThatThrownBy(() -> new TcpRendezvousAllgather(-1, 2, any))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("allgather index -1 is outside 0..1 (size 2)");
    }

    @Test
    void aReceiveBufferTooSmallIsRefusedAtOnce() {
        OobAllgather oob = InProcessAllgather.group(2).get(0);
        assertThatThrownBy(() -> oob.allgather(new byte[4], new byte[7], 4))
                .isInstanceOf(UromException.class)
                .hasMessage("allgather receive buffer of 7 bytes is smaller than 2 ranks x 4 bytes");
    }
}
