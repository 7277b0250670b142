// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * What each collective must leave in each destination, computed here in the order
 * docs/collectives.md fixes (so FLOAT64 sums can be compared bit for bit).
 */
final class Reference {
    private Reference() {}

    /** op(left, right), element by element, as the spec defines each operation. */
    static byte[] reduce(int dtype, int op, byte[] left, byte[] right) {
        int size = Coll.dtypeSize(dtype);
        ByteBuffer l = ByteBuffer.wrap(left).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer r = ByteBuffer.wrap(right).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer out = ByteBuffer.allocate(left.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < left.length; i += size) {
            if (dtype == Coll.FLOAT64) {
                out.putDouble(i, floatOp(op, l.getDouble(i), r.getDouble(i)));
            } else if (dtype == Coll.FLOAT32) {
                double v = floatOp(op, l.getFloat(i), r.getFloat(i));
                out.putFloat(i, Double.isNaN(v) ? Float.NaN : (float) v);
            } else {
                boolean signed = dtype <= Coll.INT64;
                long a = read(l, i, size, signed);
                long b = read(r, i, size, signed);
                long v = switch (op) {
                    case Coll.SUM -> a + b;
                    case Coll.PROD -> a * b;
                    case Coll.MIN -> (signed ? Long.compare(a, b) : Long.compareUnsigned(a, b)) <= 0 ? a : b;
                    case Coll.MAX -> (signed ? Long.compare(a, b) : Long.compareUnsigned(a, b)) >= 0 ? a : b;
                    case Coll.BAND -> a & b;
                    case 5 -> a | b;
                    default -> a ^ b;
                };
                write(out, i, size, v);
            }
        }
        return out.array();
    }

    private static double floatOp(int op, double a, double b) {
        return switch (op) {
            case Coll.SUM -> a + b;
            case Coll.PROD -> a * b;
            case Coll.MIN -> Double.isNaN(a) || Double.isNaN(b) ? Double.NaN : Math.min(a, b);
            default -> Double.isNaN(a) || Double.isNaN(b) ? Double.NaN : Math.max(a, b);
        };
    }

    private static long read(ByteBuffer b, int at, int size, boolean signed) {
        return switch (size) {
            case 1 -> signed ? b.get(at) : Byte.toUnsignedLong(b.get(at));
            case 2 -> signed ? b.getShort(at) : Short.toUnsignedLong(b.getShort(at));
            case 4 -> signed ? b.getInt(at) : Integer.toUnsignedLong(b.getInt(at));
            default -> b.getLong(at);
        };
    }

    private static void write(ByteBuffer b, int at, int size, long v) {
        switch (size) {
            case 1 -> b.put(at, (byte) v);
            case 2 -> b.putShort(at, (short) v);
            case 4 -> b.putInt(at, (int) v);
            default -> b.putLong(at, v);
        }
    }

    /** The first element of block b of a vector of count elements cut into p blocks, and its length. */
    static long blockStart(long count, int p, int b) {
        return b * (count / p) + Math.min(b, count % p);
    }

    static long blockLength(long count, int p, int b) {
        return count / p + (b < count % p ? 1 : 0);
    }

    /** ALLREDUCE's result: recursive doubling at or below small bytes, else the ring's order. */
    static byte[] allreduce(int dtype, int op, byte[][] src, int smallBytes) {
        int p = src.length;
        int n = src[0].length;
        if (n <= smallBytes) {
            return recursiveDoubling(dtype, op, src);
        }
        return ringReduce(dtype, op, src);
    }

    static byte[] recursiveDoubling(int dtype, int op, byte[][] src) {
        int p = src.length;
        int q = Integer.highestOneBit(p);
        byte[][] acc = new byte[p][];
        for (int r = 0; r < p; r++) {
            acc[r] = src[r].clone();
        }
        for (int r = 0; r < p - q; r++) {
            acc[r] = reduce(dtype, op, acc[r], acc[r + q]);
        }
        for (int d = 1; d < q; d <<= 1) {
            byte[][] next = acc.clone();
            for (int r = 0; r < q; r++) {
                int partner = r ^ d;
                next[r] = partner < r ? reduce(dtype, op, acc[partner], acc[r]) : reduce(dtype, op, acc[r], acc[partner]);
            }
            acc = next;
        }
        return acc[0];
    }

    static byte[] ringReduce(int dtype, int op, byte[][] src) {
        int p = src.length;
        int size = Coll.dtypeSize(dtype);
        long count = src[0].length / size;
        byte[] out = new byte[src[0].length];
        for (int b = 0; b < p; b++) {
            int from = (int) (blockStart(count, p, b) * size);
            int to = from + (int) (blockLength(count, p, b) * size);
            byte[] acc = Arrays.copyOfRange(src[b], from, to);
            for (int j = 1; j < p; j++) {
                acc = reduce(dtype, op, acc, Arrays.copyOfRange(src[(b + j) % p], from, to));
            }
            System.arraycopy(acc, 0, out, from, acc.length);
        }
        return out;
    }

    /** REDUCE's result at the root: the binomial tree at or below small bytes, else the ring's order. */
    static byte[] reduce(int dtype, int op, byte[][] src, int root, int smallBytes) {
        int p = src.length;
        if (src[0].length > smallBytes) {
            return ringReduce(dtype, op, src);
        }
        byte[][] acc = new byte[p][];
        for (int v = 0; v < p; v++) {
            acc[v] = src[(v + root) % p].clone();
        }
        for (int bit = 1; bit < p; bit <<= 1) {
            for (int v = 0; v < p; v++) {
                if ((v & (bit - 1)) == 0 && (v & bit) == 0 && v + bit < p) {
                    acc[v] = reduce(dtype, op, acc[v], acc[v + bit]);
                }
            }
        }
        return acc[0];
    }
}
