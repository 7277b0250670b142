// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.reduce;

import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.ReduceOp;

/**
 * The reductions element by element, written from the definition in urom_coll.h and nothing else (no shared code with the
 * kernels): integers in {@code long} arithmetic masked to their width, floating point in Java {@code float} and {@code double}
 * arithmetic with the protocol's rules for MIN, MAX and NaN. The kernels' tests and the collectives' reference
 * ({@code dev.urom.plugins.coll.Reference}) both combine elements here. Stateless.
 */
public final class Reference {
    static final int FLOAT_NAN = 0x7fc00000;
    static final long DOUBLE_NAN = 0x7ff8000000000000L;

    private Reference() {}

    /** op applied to the bits of two elements of dtype (low bits, the rest zero); returns the result's bits the same way. */
    public static long apply(DataType dtype, ReduceOp op, long x, long y) {
        return apply(Dtype.valueOf(dtype.name()), op.code(), x, y);
    }

    /** op applied to the bits of two elements (low bits, the rest zero); returns the result's bits the same way. */
    static long apply(Dtype dtype, int op, long x, long y) {
        return switch (dtype) {
            case FLOAT32 -> Integer.toUnsignedLong(applyFloat(op, (int) x, (int) y));
            case FLOAT64 -> applyDouble(op, x, y);
            default -> applyInteger(dtype, op, x, y);
        };
    }

    private static long applyInteger(Dtype dtype, int op, long x, long y) {
        long mask = dtype.mask();
        int shift = 64 - 8 * dtype.size;
        long result = switch (op) {
            case Dtype.SUM -> x + y;
            case Dtype.PROD -> x * y;
            case Dtype.MIN, Dtype.MAX -> {
                int order = dtype.unsigned
                        ? Long.compareUnsigned(x, y)
                        : Long.compare(x << shift >> shift, y << shift >> shift);
                yield (op == Dtype.MIN) == (order <= 0) ? x : y;
            }
            case Dtype.BAND -> x & y;
            case Dtype.BOR -> x | y;
            case Dtype.BXOR -> x ^ y;
            default -> throw new IllegalArgumentException("op " + op);
        };
        return result & mask;
    }

    private static int applyFloat(int op, int xBits, int yBits) {
        float x = Float.intBitsToFloat(xBits);
        float y = Float.intBitsToFloat(yBits);
        if (op == Dtype.SUM || op == Dtype.PROD) {
            float r = op == Dtype.SUM ? x + y : x * y;
            return Float.isNaN(r) ? FLOAT_NAN : Float.floatToRawIntBits(r);
        }
        if (Float.isNaN(x) || Float.isNaN(y)) {
            return FLOAT_NAN;
        }
        boolean min = op == Dtype.MIN;
        if (x < y) {
            return min ? xBits : yBits;
        }
        if (y < x) {
            return min ? yBits : xBits;
        }
        if (x == 0.0f && xBits != yBits) {
            return Float.floatToRawIntBits(min ? -0.0f : 0.0f);
        }
        return xBits;
    }

    private static long applyDouble(int op, long xBits, long yBits) {
        double x = Double.longBitsToDouble(xBits);
        double y = Double.longBitsToDouble(yBits);
        if (op == Dtype.SUM || op == Dtype.PROD) {
            double r = op == Dtype.SUM ? x + y : x * y;
            return Double.isNaN(r) ? DOUBLE_NAN : Double.doubleToRawLongBits(r);
        }
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return DOUBLE_NAN;
        }
        boolean min = op == Dtype.MIN;
        if (x < y) {
            return min ? xBits : yBits;
        }
        if (y < x) {
            return min ? yBits : xBits;
        }
        if (x == 0.0 && xBits != yBits) {
            return Double.doubleToRawLongBits(min ? -0.0 : 0.0);
        }
        return xBits;
    }
}
