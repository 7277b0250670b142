// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.host;

import static java.util.Objects.requireNonNull;

import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.ReduceOp;

/**
 * One collective's arguments (docs/collectives.md, "Buffers of each collective"): addresses are
 * native addresses in this process ({@link CollBuffers#address}), handles 0 or from {@link
 * CollClient#map}. The plugin checks them all; this record only holds them. Immutable.
 *
 * @param op ignored but for REDUCE and ALLREDUCE
 * @param root ignored but for BCAST and REDUCE
 * @param count elements of the vector, or per rank for ALLGATHER and ALLTOALL
 */
public record CollArgs(
        CollType coll,
        DataType dtype,
        ReduceOp op,
        long root,
        boolean inPlace,
        long count,
        long src,
        long dst,
        long srcMemh,
        long dstMemh) {

    public CollArgs {
        requireNonNull(coll, "coll is null");
        requireNonNull(dtype, "dtype is null");
        requireNonNull(op, "op is null");
    }

    public static CollArgs barrier() {
        return new CollArgs(CollType.BARRIER, DataType.UINT8, ReduceOp.SUM, 0, false, 0, 0, 0, 0, 0);
    }

    /** {@code buffer} is read at the root and written elsewhere. */
    public static CollArgs bcast(DataType dtype, long count, long root, long buffer) {
        return new CollArgs(CollType.BCAST, dtype, ReduceOp.SUM, root, false, count, 0, buffer, 0, 0);
    }

    /** {@code dst} matters at the root only. */
    public static CollArgs reduce(DataType dtype, ReduceOp op, long count, long root, long src, long dst) {
        return new CollArgs(CollType.REDUCE, dtype, op, root, false, count, src, dst, 0, 0);
    }

    public static CollArgs allreduce(DataType dtype, ReduceOp op, long count, long src, long dst) {
        return new CollArgs(CollType.ALLREDUCE, dtype, op, 0, false, count, src, dst, 0, 0);
    }

    /** {@code dst} holds one block of {@code count} elements per rank. */
    public static CollArgs allgather(DataType dtype, long count, long src, long dst) {
        return new CollArgs(CollType.ALLGATHER, dtype, ReduceOp.SUM, 0, false, count, src, dst, 0, 0);
    }

    /** {@code src} and {@code dst} hold one block of {@code count} elements per rank. */
    public static CollArgs alltoall(DataType dtype, long count, long src, long dst) {
        return new CollArgs(CollType.ALLTOALL, dtype, ReduceOp.SUM, 0, false, count, src, dst, 0, 0);
    }

    /** The same collective with {@code dst} as its source too. */
    public CollArgs asInPlace() {
        return new CollArgs(coll, dtype, op, root, true, count, 0, dst, 0, dstMemh);
    }

    /** The same collective with its ranges named by registered handles. */
    public CollArgs withHandles(long srcHandle, long dstHandle) {
        return new CollArgs(coll, dtype, op, root, inPlace, count, src, dst, srcHandle, dstHandle);
    }
}
