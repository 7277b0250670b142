// SPDX-License-Identifier: Apache-2.0
package dev.urom.oob;

import dev.urom.spi.Api;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An allgather among the threads of one JVM: {@link #group(int)} makes the {@code n} views of one
 * group, one per rank. Each view's k-th allgather joins the group's k-th round; the round
 * completes when every rank has joined, or fails for every rank when their lengths differ.
 *
 * <p>Thread-safe: each rank's view may be used from its own thread.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public final class InProcessAllgather implements OobAllgather {
    private final Group group;
    private final int index;
    private int nextRound;

    private InProcessAllgather(Group group, int index) {
        this.group = group;
        this.index = index;
    }

    /** The {@code n} ranks of a new group, by index. */
    public static List<OobAllgather> group(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("an allgather group needs at least one rank, not " + n);
        }
        Group group = new Group(n);
        List<OobAllgather> views = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            views.add(new InProcessAllgather(group, i));
        }
        return List.copyOf(views);
    }

    @Override
    public OobRequest allgather(byte[] send, byte[] recv, int len) throws UromException {
        AllgatherChecks.checkBuffers(send, recv, len, group.size);
        int round;
        synchronized (this) {
            round = nextRound++;
        }
        OobRequest request = new OobRequest();
        group.join(round, index, send, recv, len, request);
        return request;
    }

    @Override
    public int size() {
        return group.size;
    }

    @Override
    public int index() {
        return index;
    }

    private static final class Group {
        final int size;
        final Map<Integer, Round> rounds = new HashMap<>();

        Group(int size) {
            this.size = size;
        }

        void join(int number, int rank, byte[] send, byte[] recv, int len, OobRequest request) {
            Round round;
            synchronized (this) {
                round = rounds.computeIfAbsent(number, k -> new Round(size));
                round.sends[rank] = send.clone();
                round.lens[rank] = len;
                round.recvs[rank] = recv;
                round.requests[rank] = request;
                if (++round.joined < size) {
                    return;
                }
                rounds.remove(number);
            }
            round.finish();
        }
    }

    private static final class Round {
        final byte[][] sends;
        final byte[][] recvs;
        final int[] lens;
        final OobRequest[] requests;
        int joined;

        Round(int size) {
            sends = new byte[size][];
            recvs = new byte[size][];
            lens = new int[size];
            requests = new OobRequest[size];
        }

        void finish() {
            int len = lens[0];
            for (int rank = 1; rank < lens.length; rank++) {
                if (lens[rank] != len) {
                    UromException e = new UromException(
                            UromStatus.INVALID_VALUE,
                            "allgather ranks disagree on the length: rank 0 sends " + len + " bytes, rank " + rank
                                    + " sends " + lens[rank]);
                    for (OobRequest r : requests) {
                        r.fail(e);
                    }
                    return;
                }
            }
            for (int to = 0; to < recvs.length; to++) {
                for (int from = 0; from < sends.length; from++) {
                    System.arraycopy(sends[from], 0, recvs[to], from * len, len);
                }
            }
            for (OobRequest r : requests) {
                r.complete();
            }
        }
    }
}
