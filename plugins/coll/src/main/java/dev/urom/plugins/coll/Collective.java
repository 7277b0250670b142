// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import dev.urom.plugins.coll.protocol.Agree;
import dev.urom.plugins.coll.protocol.CollCommand.Post;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.spi.WorkerCommand;

/**
 * One posted collective of a team: its command, its sequence number, and what the checks at
 * POST found (NONE, or the reason this rank refuses it). The checks follow {@code
 * docs/collectives.md}: collective, datatype, operation, operation for the datatype, root, flags,
 * byte sizes, then the read range and the write range (handle or host mappings), then overlap.
 * Immutable once built.
 */
final class Collective {
    /** Arena bytes above which a rank refuses a collective (NO_MEMORY): arena offsets are ints. */
    static final long ARENA_MAX = Integer.MAX_VALUE - 64;

    final WorkerCommand command;
    final Post post;
    final long sequence;
    final CollType type;
    final DataType dtype;
    final ReduceOp op;
    final boolean inPlace;
    final Reason refusal;

    Collective(WorkerCommand command, Post post, long sequence, Team team, Connection connection) {
        this.command = command;
        this.post = post;
        this.sequence = sequence;
        this.type = CollType.ofCode(post.coll());
        this.dtype = type == CollType.BARRIER ? DataType.INT8 : DataType.ofCode(post.dtype());
        this.op = ReduceOp.ofCode(post.op());
        this.inPlace = (post.flags() & CollLayout.IN_PLACE) != 0;
        this.refusal = check(team, connection);
    }

    /** This rank's agreement state before the first round. */
    Agree agreeState(int rank) {
        long dt = type == CollType.BARRIER ? 0 : post.dtype();
        long o = type == null || type.reduces() ? post.op() : 0;
        long root = type == null || type.rooted() ? post.root() : 0;
        long count = type == CollType.BARRIER ? 0 : post.count();
        return Agree.own(post.coll(), type == null ? post.dtype() : dt, o, root, count, rank, refusal);
    }

    /** Bytes of one vector (or one rank's block). */
    long bytes() {
        return post.count() * dtype.size();
    }

    private Reason check(Team team, Connection connection) {
        if (type == null) {
            return Reason.UNKNOWN_COLL;
        }
        if (type == CollType.BARRIER) {
            return (post.flags() & ~(long) CollLayout.IN_PLACE) != 0 || inPlace ? Reason.BAD_FLAGS : Reason.NONE;
        }
        if (dtype == null) {
            return Reason.UNKNOWN_DTYPE;
        }
        if (type.reduces()) {
            if (op == null) {
                return Reason.UNKNOWN_OP;
            }
            if (op.bitwise() && !dtype.isInteger()) {
                return Reason.OP_NOT_FOR_DTYPE;
            }
        }
        if (type.rooted() && post.root() >= team.size) {
            return Reason.BAD_ROOT;
        }
        if ((post.flags() & ~(long) CollLayout.IN_PLACE) != 0
                || (inPlace && type == CollType.BCAST)
                || (inPlace && type == CollType.REDUCE && post.root() != team.rank)) {
            return Reason.BAD_FLAGS;
        }
        long count = post.count();
        int p = type == CollType.ALLGATHER || type == CollType.ALLTOALL ? team.size : 1;
        if (count < 0 || count > Long.MAX_VALUE / dtype.size() / p) {
            return Reason.COUNT_OVERFLOW;
        }
        long n = count * dtype.size();
        boolean small = n <= team.smallBytes;
        Algorithms.Shape shape = new Algorithms.Shape(
                team.size, team.rank, team.teamId, sequence, 1, dtype.size(), count, 0, 0, inPlace, (int) post.root());
        if (Algorithms.arenaBytes(type, small, shape) > ARENA_MAX) {
            return Reason.NO_MEMORY;
        }
        boolean root = team.rank == post.root();
        long readAt = inPlace ? post.dst() : post.src();
        long readMemh = inPlace ? post.dstMemh() : post.srcMemh();
        long readLen = switch (type) {
            case BCAST -> root ? n : 0;
            case ALLTOALL -> p * n;
            default -> n;
        };
        if (type == CollType.BCAST) {
            readAt = post.dst();
            readMemh = post.dstMemh();
        } else if (type == CollType.ALLGATHER && inPlace) {
            readAt = post.dst() + team.rank * n;
        }
        long writeLen = switch (type) {
            case BCAST -> root ? 0 : n;
            case REDUCE -> root ? n : 0;
            case ALLGATHER, ALLTOALL -> p * n;
            default -> n;
        };
        if (!inPlace
                && readLen > 0
                && writeLen > 0
                && type != CollType.BCAST
                && Long.compareUnsigned(readAt, post.dst() + writeLen) < 0
                && Long.compareUnsigned(post.dst(), readAt + readLen) < 0) {
            return Reason.OVERLAP;
        }
        Reason reason;
        connection.memory().holdMaps();
        try {
            reason = connection.check(readMemh, readAt, readLen, false);
            if (reason == Reason.NONE) {
                reason = connection.check(post.dstMemh(), post.dst(), writeLen, true);
            }
        } finally {
            connection.memory().releaseMaps();
        }
        return reason;
    }
}
