// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.ReduceOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * What each collective must leave in each destination, computed rank by rank in the order
 * docs/collectives.md fixes, over little-endian byte vectors of any datatype, so that results can
 * be compared byte for byte (and FLOAT64 sums bit for bit); each element is combined by
 * {@link dev.urom.plugins.coll.reduce.Reference}, the one definition of the operations. Both
 * workers' tests use it. Stateless.
 */
final class Reference {
    private Reference() {}

    /** op(left, right), element by element. */
    static byte[] combine(DataType dtype, ReduceOp op, byte[] left, byte[] right) {
        int size = dtype.size();
        ByteBuffer l = le(left);
        ByteBuffer r = le(right);
        ByteBuffer out = le(new byte[left.length]);
        for (int i = 0; i < left.length; i += size) {
            write(
                    out,
                    i,
                    size,
                    dev.urom.plugins.coll.reduce.Reference.apply(dtype, op, read(l, i, size), read(r, i, size)));
        }
        return out.array();
    }

    /** The element at byte {@code at}: its bits in the low bits of the result, the rest zero. */
    private static long read(ByteBuffer b, int at, int size) {
        return switch (size) {
            case 1 -> Byte.toUnsignedLong(b.get(at));
            case 2 -> Short.toUnsignedLong(b.getShort(at));
            case 4 -> Integer.toUnsignedLong(b.getInt(at));
            default -> b.getLong(at);
        };
    }

    private static void write(ByteBuffer b, int at, int size, long bits) {
        switch (size) {
            case 1 -> b.put(at, (byte) bits);
            case 2 -> b.putShort(at, (short) bits);
            case 4 -> b.putInt(at, (int) bits);
            default -> b.putLong(at, bits);
        }
    }

    private static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The first element of block b of a vector of count elements cut into p blocks. */
    private static long blockStart(long count, int p, int b) {
        return b * (count / p) + Math.min(b, count % p);
    }

    /** The number of elements of block b of a vector of count elements cut into p blocks. */
    private static long blockLength(long count, int p, int b) {
        return count / p + (b < count % p ? 1 : 0);
    }

    /** ALLREDUCE's result on every rank: recursive doubling when a vector fits small_bytes, else the ring's order. */
    static byte[][] allreduce(DataType dtype, ReduceOp op, byte[][] src, long smallBytes) {
        if (src[0].length <= smallBytes) {
            return recursiveDoubling(dtype, op, src);
        }
        byte[][] out = new byte[src.length][];
        Arrays.fill(out, ring(dtype, op, src));
        return out;
    }

    /**
     * Recursive doubling over the ranks' vectors, every rank's result: with q the largest power of
     * two at most p, rank r &lt; p − q first takes op(its own, rank r + q's); then, for each bit d of
     * q, ranks r and r ^ d each take op(the lower rank's, the higher rank's); rank r ≥ q gets rank
     * r − q's result.
     */
    private static byte[][] recursiveDoubling(DataType dtype, ReduceOp op, byte[][] src) {
        int p = src.length;
        int q = Integer.highestOneBit(p);
        byte[][] acc = new byte[p][];
        for (int r = 0; r < p; r++) {
            acc[r] = src[r].clone();
        }
        for (int r = 0; r < p - q; r++) {
            acc[r] = combine(dtype, op, acc[r], src[r + q]);
        }
        for (int d = 1; d < q; d <<= 1) {
            byte[][] before = acc.clone();
            for (int r = 0; r < q; r++) {
                int partner = r ^ d;
                acc[r] = partner < r
                        ? combine(dtype, op, before[partner], before[r])
                        : combine(dtype, op, before[r], before[partner]);
            }
        }
        for (int r = q; r < p; r++) {
            acc[r] = acc[r - q].clone();
        }
        return acc;
    }

    /** The ring's order: element i of block b is op(...op(op(x_b, x_b+1), x_b+2)..., x_b-1), ranks mod p. */
    private static byte[] ring(DataType dtype, ReduceOp op, byte[][] src) {
        int p = src.length;
        int size = dtype.size();
        long count = src[0].length / size;
        byte[] out = new byte[src[0].length];
        for (int b = 0; b < p; b++) {
            int from = (int) (blockStart(count, p, b) * size);
            int to = from + (int) (blockLength(count, p, b) * size);
            byte[] acc = Arrays.copyOfRange(src[b], from, to);
            for (int j = 1; j < p; j++) {
                acc = combine(dtype, op, acc, Arrays.copyOfRange(src[(b + j) % p], from, to));
            }
            System.arraycopy(acc, 0, out, from, acc.length);
        }
        return out;
    }

    /** REDUCE's result at the root: the binomial tree when a vector fits small_bytes, else the ring's order. */
    static byte[] reduce(DataType dtype, ReduceOp op, byte[][] src, int root, long smallBytes) {
        return src[0].length <= smallBytes ? binomial(dtype, op, src, root) : ring(dtype, op, src);
    }

    /**
     * The binomial tree to {@code root} on the relative rank v = (r − root) mod p: for each bit k,
     * a v whose bits below k are clear and whose bit k is clear takes op(its own, v + 2^k's) when
     * v + 2^k &lt; p; the root's result.
     */
    private static byte[] binomial(DataType dtype, ReduceOp op, byte[][] src, int root) {
        int p = src.length;
        byte[][] acc = new byte[p][];
        for (int v = 0; v < p; v++) {
            acc[v] = src[(v + root) % p].clone();
        }
        for (int bit = 1; bit < p; bit <<= 1) {
            for (int v = 0; v < p; v++) {
                if ((v & (bit - 1)) == 0 && (v & bit) == 0 && v + bit < p) {
                    acc[v] = combine(dtype, op, acc[v], acc[v + bit]);
                }
            }
        }
        return acc[0];
    }

    /** ALLGATHER's result on every rank: block i is rank i's source. */
    static byte[] allgather(byte[][] src) {
        int n = src[0].length;
        byte[] out = new byte[n * src.length];
        for (int i = 0; i < src.length; i++) {
            System.arraycopy(src[i], 0, out, i * n, n);
        }
        return out;
    }

    /** ALLTOALL's result on {@code rank}: block i is block {@code rank} of rank i's source. */
    static byte[] alltoall(byte[][] src, int rank) {
        int p = src.length;
        int n = src[0].length / p;
        byte[] out = new byte[n * p];
        for (int i = 0; i < p; i++) {
            System.arraycopy(src[i], rank * n, out, i * n, n);
        }
        return out;
    }

    /** FLOAT64 elements as little-endian bytes. */
    static byte[] float64(double[] values) {
        ByteBuffer b = le(new byte[8 * values.length]);
        b.asDoubleBuffer().put(values);
        return b.array();
    }

    /** Each rank's FLOAT64 elements as little-endian bytes. */
    static byte[][] float64(double[][] values) {
        byte[][] out = new byte[values.length][];
        for (int r = 0; r < values.length; r++) {
            out[r] = float64(values[r]);
        }
        return out;
    }

    /** Little-endian bytes as FLOAT64 elements, bits unchanged. */
    static double[] doubles(byte[] bytes) {
        double[] out = new double[bytes.length / 8];
        le(bytes).asDoubleBuffer().get(out);
        return out;
    }
}
