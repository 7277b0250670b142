// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.reduce;

import java.util.Arrays;

/**
 * The element loops of {@link Reductions}: each computes {@code a[i] = op(a[i], b[i])} for {@code i < n} on heap arrays and
 * touches nothing else (the floating-point sums and products also accumulate into {@code flags}); stateless, so safe from any
 * thread on arrays no other thread uses.
 *
 * <p>Each loop is a small static method without branches, the shape C2's SuperWord vectorises in JDK 17 (each
 * was timed against {@code -XX:-UseSuperWord}): arithmetic, bitwise operations and shifts, and none of
 *
 * <ul>
 *   <li>compares, {@code Math.min} or {@code Math.max} (C2 makes conditional moves of them): MIN and MAX
 *       compare by an overflow-corrected subtraction, and floating-point MIN and MAX run on the raw bits;
 *   <li>moves between {@code double} and {@code long};
 *   <li>a select written {@code (x & mask) | (y & ~mask)}, which C2 left scalar in the 8-bit lanes: it is
 *       written {@code y ^ ((x ^ y) & mask)}.
 * </ul>
 *
 * <p>A NaN produced by SUM or PROD is found through {@code flags} ({@code s * 0.0} is NaN exactly where
 * {@code s} is infinite or NaN) and canonicalised afterwards, in the rare call that has one. SUM and PROD
 * work on two half-blocks at once ({@code a, b} and {@code c, d}), so that one flag serves two elements:
 * the flags' loads and stores cost more than the arithmetic.
 */
final class Kernels {
    private static final int F32_ABS = 0x7fffffff;
    private static final int F32_INF = 0x7f800000;
    private static final int F32_NAN = 0x7fc00000;
    private static final long F64_ABS = 0x7fffffffffffffffL;
    private static final long F64_INF = 0x7ff0000000000000L;
    private static final long F64_NAN = 0x7ff8000000000000L;

    private Kernels() {}

    // 8 bits

    static void sum(byte[] a, byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (byte) (a[i] + b[i]);
        }
    }

    static void prod(byte[] a, byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (byte) (a[i] * b[i]);
        }
    }

    static void and(byte[] a, byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (byte) (a[i] & b[i]);
        }
    }

    static void or(byte[] a, byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (byte) (a[i] | b[i]);
        }
    }

    static void xor(byte[] a, byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (byte) (a[i] ^ b[i]);
        }
    }

    // 16 bits

    static void sum(short[] a, short[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (short) (a[i] + b[i]);
        }
    }

    static void prod(short[] a, short[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (short) (a[i] * b[i]);
        }
    }

    static void and(short[] a, short[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (short) (a[i] & b[i]);
        }
    }

    static void or(short[] a, short[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (short) (a[i] | b[i]);
        }
    }

    static void xor(short[] a, short[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = (short) (a[i] ^ b[i]);
        }
    }

    // 32 bits

    static void sum(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] += b[i];
        }
    }

    static void prod(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] *= b[i];
        }
    }

    static void min(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            int less = less(x, y);
            a[i] = y ^ ((x ^ y) & less);
        }
    }

    static void max(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            int greater = less(y, x);
            a[i] = y ^ ((x ^ y) & greater);
        }
    }

    /** Unsigned order is signed order with both sign bits flipped. */
    static void minUnsigned(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            int less = less(x ^ Integer.MIN_VALUE, y ^ Integer.MIN_VALUE);
            a[i] = y ^ ((x ^ y) & less);
        }
    }

    static void maxUnsigned(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            int greater = less(y ^ Integer.MIN_VALUE, x ^ Integer.MIN_VALUE);
            a[i] = y ^ ((x ^ y) & greater);
        }
    }

    static void and(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] &= b[i];
        }
    }

    static void or(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] |= b[i];
        }
    }

    static void xor(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] ^= b[i];
        }
    }

    // 64 bits

    static void sum(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] += b[i];
        }
    }

    static void prod(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] *= b[i];
        }
    }

    static void min(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            long x = a[i];
            long y = b[i];
            long less = less(x, y);
            a[i] = y ^ ((x ^ y) & less);
        }
    }

    static void max(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            long x = a[i];
            long y = b[i];
            long greater = less(y, x);
            a[i] = y ^ ((x ^ y) & greater);
        }
    }

    static void minUnsigned(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            long x = a[i];
            long y = b[i];
            long less = less(x ^ Long.MIN_VALUE, y ^ Long.MIN_VALUE);
            a[i] = y ^ ((x ^ y) & less);
        }
    }

    static void maxUnsigned(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            long x = a[i];
            long y = b[i];
            long greater = less(y ^ Long.MIN_VALUE, x ^ Long.MIN_VALUE);
            a[i] = y ^ ((x ^ y) & greater);
        }
    }

    static void and(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] &= b[i];
        }
    }

    static void or(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] |= b[i];
        }
    }

    static void xor(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] ^= b[i];
        }
    }

    /** All ones where {@code x < y}, else 0: the sign of {@code x - y} corrected for overflow, without a compare. */
    private static int less(int x, int y) {
        int d = x - y;
        return (d ^ ((x ^ y) & (d ^ x))) >> 31;
    }

    /** All ones where {@code x < y}, else 0, like {@link #less(int, int)}. */
    private static long less(long x, long y) {
        long d = x - y;
        return -((d ^ ((x ^ y) & (d ^ x))) >>> 63);
    }

    // MIN and MAX of 8- and 16-bit lanes, four or two to each int (SWAR): C2 vectorised no form of them on bytes and
    // shorts

    private static final int HIGH8 = 0x80808080;
    private static final int LOW8 = 0x01010101;
    private static final int HIGH16 = 0x80008000;
    private static final int LOW16 = 0x00010001;

    /** All ones in each byte lane where x's byte is below y's, unsigned: the borrow out of the lane's subtraction. */
    private static int less8(int x, int y) {
        int difference = ((x | HIGH8) - (y & ~HIGH8)) ^ ((x ^ ~y) & HIGH8);
        int borrow = (~x & y) | (~(x ^ y) & difference);
        return ((borrow >>> 7) & LOW8) * 0xff;
    }

    private static int less16(int x, int y) {
        int difference = ((x | HIGH16) - (y & ~HIGH16)) ^ ((x ^ ~y) & HIGH16);
        int borrow = (~x & y) | (~(x ^ y) & difference);
        return ((borrow >>> 15) & LOW16) * 0xffff;
    }

    static void minUnsigned8(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            a[i] = y ^ ((x ^ y) & less8(x, y));
        }
    }

    static void maxUnsigned8(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            a[i] = y ^ ((x ^ y) & less8(y, x));
        }
    }

    /** Signed order is unsigned order with each lane's sign bit flipped. */
    static void minSigned8(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            a[i] = y ^ ((x ^ y) & less8(x ^ HIGH8, y ^ HIGH8));
        }
    }

    static void maxSigned8(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            a[i] = y ^ ((x ^ y) & less8(y ^ HIGH8, x ^ HIGH8));
        }
    }

    static void minUnsigned16(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            a[i] = y ^ ((x ^ y) & less16(x, y));
        }
    }

    static void maxUnsigned16(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            a[i] = y ^ ((x ^ y) & less16(y, x));
        }
    }

    static void minSigned16(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            a[i] = y ^ ((x ^ y) & less16(x ^ HIGH16, y ^ HIGH16));
        }
    }

    static void maxSigned16(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            a[i] = y ^ ((x ^ y) & less16(y ^ HIGH16, x ^ HIGH16));
        }
    }

    // FLOAT32: SUM and PROD on the values, MIN and MAX on the bits

    static void sum(float[] a, float[] b, float[] c, float[] d, float[] flags, int n) {
        for (int i = 0; i < n; i++) {
            float s = a[i] + b[i];
            float t = c[i] + d[i];
            a[i] = s;
            c[i] = t;
            flags[i] += (s + t) * 0.0f;
        }
    }

    static void sum(float[] a, float[] b, float[] flags, int from, int to) {
        for (int i = from; i < to; i++) {
            float s = a[i] + b[i];
            a[i] = s;
            flags[i] += s * 0.0f;
        }
    }

    static void prod(float[] a, float[] b, float[] c, float[] d, float[] flags, int n) {
        for (int i = 0; i < n; i++) {
            float s = a[i] * b[i];
            float t = c[i] * d[i];
            a[i] = s;
            c[i] = t;
            flags[i] += (s + t) * 0.0f;
        }
    }

    static void prod(float[] a, float[] b, float[] flags, int from, int to) {
        for (int i = from; i < to; i++) {
            float s = a[i] * b[i];
            a[i] = s;
            flags[i] += s * 0.0f;
        }
    }

    /**
     * MIN of FLOAT32 bits. {@link #order(int)} maps the bits of non-NaN floats to ints in the floats' order, -0.0 before
     * +0.0.
     */
    static void minFloat(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            int less = less(order(x), order(y));
            a[i] = nanOr(x, y, y ^ ((x ^ y) & less));
        }
    }

    static void maxFloat(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[i];
            int y = b[i];
            int greater = less(order(y), order(x));
            a[i] = nanOr(x, y, y ^ ((x ^ y) & greater));
        }
    }

    private static int order(int bits) {
        return bits ^ ((bits >> 31) >>> 1);
    }

    /** The canonical NaN where x or y is a NaN's bits, else r: {@code F32_INF - abs} is negative exactly for a NaN. */
    private static int nanOr(int x, int y, int r) {
        int nan = ((F32_INF - (x & F32_ABS)) | (F32_INF - (y & F32_ABS))) >> 31;
        return (r & ~nan) | (F32_NAN & nan);
    }

    /** Replaces the bits of every NaN with the canonical NaN's; true if it replaced any. */
    static boolean canonicalise(int[] a, int n) {
        boolean any = false;
        for (int i = 0; i < n; i++) {
            if ((a[i] & F32_ABS) > F32_INF) {
                a[i] = F32_NAN;
                any = true;
            }
        }
        return any;
    }

    // FLOAT64: likewise

    static void sum(double[] a, double[] b, double[] c, double[] d, double[] flags, int n) {
        for (int i = 0; i < n; i++) {
            double s = a[i] + b[i];
            double t = c[i] + d[i];
            a[i] = s;
            c[i] = t;
            flags[i] += (s + t) * 0.0;
        }
    }

    static void sum(double[] a, double[] b, double[] flags, int from, int to) {
        for (int i = from; i < to; i++) {
            double s = a[i] + b[i];
            a[i] = s;
            flags[i] += s * 0.0;
        }
    }

    static void prod(double[] a, double[] b, double[] c, double[] d, double[] flags, int n) {
        for (int i = 0; i < n; i++) {
            double s = a[i] * b[i];
            double t = c[i] * d[i];
            a[i] = s;
            c[i] = t;
            flags[i] += (s + t) * 0.0;
        }
    }

    static void prod(double[] a, double[] b, double[] flags, int from, int to) {
        for (int i = from; i < to; i++) {
            double s = a[i] * b[i];
            a[i] = s;
            flags[i] += s * 0.0;
        }
    }

    static void minDouble(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            long x = a[i];
            long y = b[i];
            long less = less(order(x), order(y));
            a[i] = nanOr(x, y, y ^ ((x ^ y) & less));
        }
    }

    static void maxDouble(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            long x = a[i];
            long y = b[i];
            long greater = less(order(y), order(x));
            a[i] = nanOr(x, y, y ^ ((x ^ y) & greater));
        }
    }

    private static long order(long bits) {
        return bits ^ (-(bits >>> 63) >>> 1);
    }

    private static long nanOr(long x, long y, long r) {
        long nan = -(((F64_INF - (x & F64_ABS)) | (F64_INF - (y & F64_ABS))) >>> 63);
        return (r & ~nan) | (F64_NAN & nan);
    }

    static boolean canonicalise(long[] a, int n) {
        boolean any = false;
        for (int i = 0; i < n; i++) {
            if ((a[i] & F64_ABS) > F64_INF) {
                a[i] = F64_NAN;
                any = true;
            }
        }
        return any;
    }

    // The flags of SUM and PROD

    /**
     * True if any of {@code flags[0..n)} is NaN; leaves them all 0. Folds halves together ({@code tmp} holds the upper half):
     * the loops stay vectorisable, which a scan with a compare per element would not be.
     */
    static boolean anyNaN(double[] flags, double[] tmp, int n) {
        int len = n;
        while (len > 16) {
            int half = len >>> 1;
            System.arraycopy(flags, len - half, tmp, 0, half);
            fold(flags, tmp, half);
            len -= half;
        }
        boolean nan = false;
        for (int i = 0; i < len; i++) {
            nan |= flags[i] != flags[i];
        }
        Arrays.fill(flags, 0, n, 0.0);
        return nan;
    }

    private static void fold(double[] a, double[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] += b[i];
        }
    }

    static boolean anyNaN(float[] flags, float[] tmp, int n) {
        int len = n;
        while (len > 16) {
            int half = len >>> 1;
            System.arraycopy(flags, len - half, tmp, 0, half);
            fold(flags, tmp, half);
            len -= half;
        }
        boolean nan = false;
        for (int i = 0; i < len; i++) {
            nan |= flags[i] != flags[i];
        }
        Arrays.fill(flags, 0, n, 0.0f);
        return nan;
    }

    private static void fold(float[] a, float[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] += b[i];
        }
    }
}
