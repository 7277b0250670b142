// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.ReduceOp;
import java.nio.ByteBuffer;

/**
 * Element-wise reductions as the specification defines them ({@code out[i] = op(a[i], b[i])}, a
 * on the left), on one little-endian buffer with byte offsets: integers wrap, MIN and MAX compare
 * signed or unsigned by datatype, floating point is IEEE's one element at a time with -0.0 below
 * +0.0 and every NaN result the positive canonical quiet NaN. Stands in until the shared reduction
 * kernels land; stateless and thread-safe. {@code out} may be {@code a} or {@code b}.
 */
final class InterimKernels {
    private static final int CANONICAL_NAN32 = 0x7fc00000;
    private static final long CANONICAL_NAN64 = 0x7ff8000000000000L;

    private InterimKernels() {}

    static void reduce(DataType type, ReduceOp op, ByteBuffer buf, int out, int a, int b, int count) {
        switch (type) {
            case FLOAT64 -> float64(op, buf, out, a, b, count);
            case FLOAT32 -> float32(op, buf, out, a, b, count);
            default -> integers(type, op, buf, out, a, b, count);
        }
    }

    private static void float64(ReduceOp op, ByteBuffer buf, int out, int a, int b, int count) {
        switch (op) {
            case SUM -> {
                for (int i = 0; i < count; i++) {
                    put64(buf, out + 8 * i, buf.getDouble(a + 8 * i) + buf.getDouble(b + 8 * i));
                }
            }
            case PROD -> {
                for (int i = 0; i < count; i++) {
                    put64(buf, out + 8 * i, buf.getDouble(a + 8 * i) * buf.getDouble(b + 8 * i));
                }
            }
            case MIN, MAX -> {
                boolean max = op == ReduceOp.MAX;
                for (int i = 0; i < count; i++) {
                    double x = buf.getDouble(a + 8 * i);
                    double y = buf.getDouble(b + 8 * i);
                    put64(buf, out + 8 * i, Double.isNaN(x) || Double.isNaN(y) ? Double.NaN : max ? Math.max(x, y) : Math.min(x, y));
                }
            }
            default -> throw new IllegalArgumentException(op + " on FLOAT64");
        }
    }

    private static void put64(ByteBuffer buf, int at, double v) {
        if (v != v) {
            buf.putLong(at, CANONICAL_NAN64);
        } else {
            buf.putDouble(at, v);
        }
    }

    private static void float32(ReduceOp op, ByteBuffer buf, int out, int a, int b, int count) {
        boolean max = op == ReduceOp.MAX;
        for (int i = 0; i < count; i++) {
            float x = buf.getFloat(a + 4 * i);
            float y = buf.getFloat(b + 4 * i);
            float v = switch (op) {
                case SUM -> x + y;
                case PROD -> x * y;
                case MIN, MAX -> Float.isNaN(x) || Float.isNaN(y) ? Float.NaN : max ? Math.max(x, y) : Math.min(x, y);
                default -> throw new IllegalArgumentException(op + " on FLOAT32");
            };
            if (v != v) {
                buf.putInt(out + 4 * i, CANONICAL_NAN32);
            } else {
                buf.putFloat(out + 4 * i, v);
            }
        }
    }

    private static void integers(DataType type, ReduceOp op, ByteBuffer buf, int out, int a, int b, int count) {
        int size = type.size();
        boolean signed = type.kind() == DataType.Kind.SIGNED;
        for (int i = 0; i < count; i++) {
            long x = get(buf, a + size * i, size, signed);
            long y = get(buf, b + size * i, size, signed);
            long v = switch (op) {
                case SUM -> x + y;
                case PROD -> x * y;
                case MIN -> (signed ? Long.compare(x, y) : Long.compareUnsigned(x, y)) <= 0 ? x : y;
                case MAX -> (signed ? Long.compare(x, y) : Long.compareUnsigned(x, y)) >= 0 ? x : y;
                case BAND -> x & y;
                case BOR -> x | y;
                case BXOR -> x ^ y;
            };
            switch (size) {
                case 1 -> buf.put(out + i, (byte) v);
                case 2 -> buf.putShort(out + 2 * i, (short) v);
                case 4 -> buf.putInt(out + 4 * i, (int) v);
                default -> buf.putLong(out + 8 * i, v);
            }
        }
    }

    private static long get(ByteBuffer buf, int at, int size, boolean signed) {
        return switch (size) {
            case 1 -> signed ? buf.get(at) : Byte.toUnsignedLong(buf.get(at));
            case 2 -> signed ? buf.getShort(at) : Short.toUnsignedLong(buf.getShort(at));
            case 4 -> signed ? buf.getInt(at) : Integer.toUnsignedLong(buf.getInt(at));
            default -> buf.getLong(at);
        };
    }
}
