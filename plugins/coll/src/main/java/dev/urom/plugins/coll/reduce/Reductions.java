// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.reduce;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * Element-wise reductions {@code dst[i] = op(left[i], right[i])} over native memory, writing the same bytes as the C worker
 * side's {@code coll_reduce}; an instance is not thread-safe (it owns scratch arrays: one per driving thread), keeps no
 * reference to the buffers it is given, and throws {@link IllegalArgumentException} for a call outside its contract, before
 * writing anything.
 *
 * <p>Datatypes and operations are the codes of {@code enum urom_coll_dtype} and {@code enum urom_coll_op} in
 * {@code urom_coll.h}. Integers wrap; MIN and MAX compare signed or unsigned per datatype. FLOAT32 and FLOAT64: SUM and PROD
 * are one IEEE 754 operation rounded to nearest; MIN and MAX order -0.0 before +0.0 and return NaN if an operand is NaN; every
 * NaN result is the positive canonical quiet NaN ({@code 0x7fc00000}, {@code 0x7ff8000000000000}). BAND, BOR and BXOR take
 * integers only.
 *
 * <p>Each block of up to {@value #BLOCK_BYTES} bytes is copied into heap arrays, reduced there by loops that C2 vectorises
 * ({@link Kernels}), and copied out: bulk copies between direct buffers and arrays are plain memory copies, whereas loops over
 * a buffer's accessors are not vectorised.
 */
public final class Reductions {
    /**
     * Bytes of each operand copied to the heap at a time, so that the scratch arrays stay in a first-level data cache; with
     * 16 KiB, FLOAT64 SUM of 64 KiB ran at half the speed.
     */
    static final int BLOCK_BYTES = 8 * 1024;

    /**
     * The scratch arrays of an element type are allocated one after the other, the k-th (from 0) {@code (k + 1) *
     * STAGGER_BYTES} longer than a block, so that they start at different offsets modulo 4 KiB: a load from one array at the
     * offset of a store to another, modulo 4 KiB, waits for the store (4K aliasing), which made FLOAT64 SUM's loop 40 % slower.
     */
    private static final int STAGGER_BYTES = 512;

    private static final int INT8 = 0;
    private static final int INT16 = 1;
    private static final int INT32 = 2;
    private static final int INT64 = 3;
    private static final int UINT8 = 4;
    private static final int UINT16 = 5;
    private static final int UINT32 = 6;
    private static final int UINT64 = 7;
    private static final int FLOAT32 = 8;
    private static final int FLOAT64 = 9;

    private static final int SUM = 0;
    private static final int PROD = 1;
    private static final int MIN = 2;
    private static final int MAX = 3;
    private static final int BAND = 4;
    private static final int BOR = 5;
    private static final int BXOR = 6;

    private byte[] bytesA;
    private byte[] bytesB;
    private short[] shortsA;
    private short[] shortsB;
    private int[] intsA;
    private int[] intsB;
    private long[] longsA;
    private long[] longsB;
    private float[][] floats;
    private double[][] doubles;

    /** The size in bytes of one element of {@code dtype}; 0 for an unknown datatype. */
    public static int dtypeSize(int dtype) {
        return switch (dtype) {
            case INT8, UINT8 -> 1;
            case INT16, UINT16 -> 2;
            case INT32, UINT32, FLOAT32 -> 4;
            case INT64, UINT64, FLOAT64 -> 8;
            default -> 0;
        };
    }

    /** Whether {@code op} applies to {@code dtype}: both known, and no bitwise operation on floating point. */
    public static boolean opValid(int dtype, int op) {
        return dtypeSize(dtype) != 0 && op >= SUM && op <= BXOR && (dtype < FLOAT32 || op <= MAX);
    }

    /**
     * Writes {@code op(left[i], right[i])} to {@code dst[i]} for {@code i < count}. Element 0 of each operand is at its buffer's
     * position; each buffer must be direct and {@link ByteOrder#LITTLE_ENDIAN}, with at least {@code count} elements remaining,
     * and {@code dst} writable. Positions, limits and marks are left as they are. The region of {@code dst} may be the region of
     * {@code left}, of {@code right} or of both (same address); otherwise no two regions may overlap, or the bytes written are
     * unspecified.
     *
     * @throws IllegalArgumentException if {@link #opValid} is false, {@code count} is negative or a buffer is not as above
     */
    public void reduce(int dtype, int op, ByteBuffer dst, ByteBuffer left, ByteBuffer right, int count) {
        if (!opValid(dtype, op)) {
            throw new IllegalArgumentException("operation " + op + " is not defined for datatype " + dtype);
        }
        if (count < 0) {
            throw new IllegalArgumentException("count " + count + " is negative");
        }
        long bytes = (long) count * dtypeSize(dtype);
        check("dst", dst, bytes);
        check("left", left, bytes);
        check("right", right, bytes);
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("dst is read-only");
        }
        switch (dtype) {
            case INT8, UINT8, INT16, UINT16 -> {
                if (op == MIN || op == MAX) {
                    reduceLanes(dtype, op, dst, left, right, count);
                } else if (dtype == INT8 || dtype == UINT8) {
                    reduce8(op, dst, left, right, count);
                } else {
                    reduce16(op, dst, left, right, count);
                }
            }
            case INT32, UINT32 -> reduce32(op, dtype == UINT32, dst, left, right, count);
            case INT64, UINT64 -> reduce64(op, dtype == UINT64, dst, left, right, count);
            case FLOAT32 -> reduceFloat(op, dst, left, right, count);
            default -> reduceDouble(op, dst, left, right, count);
        }
    }

    private static void check(String name, ByteBuffer buffer, long bytes) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException(name + " is not a direct buffer");
        }
        if (buffer.order() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalArgumentException(name + " is not little-endian");
        }
        if (buffer.remaining() < bytes) {
            throw new IllegalArgumentException(name + " has " + buffer.remaining() + " bytes remaining, not " + bytes);
        }
    }

    private void reduce8(int op, ByteBuffer dst, ByteBuffer left, ByteBuffer right, int count) {
        if (bytesA == null) {
            bytesA = new byte[BLOCK_BYTES + STAGGER_BYTES];
            bytesB = new byte[BLOCK_BYTES + 2 * STAGGER_BYTES];
        }
        byte[] a = bytesA;
        byte[] b = bytesB;
        int block = BLOCK_BYTES;
        int d0 = dst.position();
        int l0 = left.position();
        int r0 = right.position();
        for (int done = 0; done < count; done += block) {
            int n = Math.min(block, count - done);
            left.get(l0 + done, a, 0, n);
            right.get(r0 + done, b, 0, n);
            switch (op) {
                case SUM -> Kernels.sum(a, b, n);
                case PROD -> Kernels.prod(a, b, n);
                case BAND -> Kernels.and(a, b, n);
                case BOR -> Kernels.or(a, b, n);
                default -> Kernels.xor(a, b, n);
            }
            dst.put(d0 + done, a, 0, n);
        }
    }

    private void reduce16(int op, ByteBuffer dst, ByteBuffer left, ByteBuffer right, int count) {
        if (shortsA == null) {
            shortsA = new short[(BLOCK_BYTES + STAGGER_BYTES) / Short.BYTES];
            shortsB = new short[(BLOCK_BYTES + 2 * STAGGER_BYTES) / Short.BYTES];
        }
        short[] a = shortsA;
        short[] b = shortsB;
        int block = BLOCK_BYTES / Short.BYTES;
        ShortBuffer d = dst.asShortBuffer();
        ShortBuffer l = left.asShortBuffer();
        ShortBuffer r = right.asShortBuffer();
        for (int done = 0; done < count; done += block) {
            int n = Math.min(block, count - done);
            l.get(done, a, 0, n);
            r.get(done, b, 0, n);
            switch (op) {
                case SUM -> Kernels.sum(a, b, n);
                case PROD -> Kernels.prod(a, b, n);
                case BAND -> Kernels.and(a, b, n);
                case BOR -> Kernels.or(a, b, n);
                default -> Kernels.xor(a, b, n);
            }
            d.put(done, a, 0, n);
        }
    }

    /**
     * MIN and MAX of 8- and 16-bit elements: the whole ints of the regions in lanes ({@link Kernels#minSigned8} and the like), the
     * last bytes, fewer than four, one element at a time.
     */
    private void reduceLanes(int dtype, int op, ByteBuffer dst, ByteBuffer left, ByteBuffer right, int count) {
        int[] a = ints();
        int[] b = intsB;
        int block = BLOCK_BYTES / Integer.BYTES;
        int bytes = count * dtypeSize(dtype);
        int words = bytes / Integer.BYTES;
        IntBuffer d = dst.asIntBuffer();
        IntBuffer l = left.asIntBuffer();
        IntBuffer r = right.asIntBuffer();
        for (int done = 0; done < words; done += block) {
            int n = Math.min(block, words - done);
            l.get(done, a, 0, n);
            r.get(done, b, 0, n);
            switch (dtype * 4 + op - MIN) {
                case INT8 * 4 -> Kernels.minSigned8(a, b, n);
                case INT8 * 4 + 1 -> Kernels.maxSigned8(a, b, n);
                case UINT8 * 4 -> Kernels.minUnsigned8(a, b, n);
                case UINT8 * 4 + 1 -> Kernels.maxUnsigned8(a, b, n);
                case INT16 * 4 -> Kernels.minSigned16(a, b, n);
                case INT16 * 4 + 1 -> Kernels.maxSigned16(a, b, n);
                case UINT16 * 4 -> Kernels.minUnsigned16(a, b, n);
                default -> Kernels.maxUnsigned16(a, b, n);
            }
            d.put(done, a, 0, n);
        }
        int size = dtypeSize(dtype);
        int mask = size == 1 ? 0xff : 0xffff;
        int sign = dtype == INT8 || dtype == INT16 ? mask ^ (mask >>> 1) : 0;
        for (int at = words * Integer.BYTES; at < bytes; at += size) {
            int x = element(left, left.position() + at, size) ^ sign;
            int y = element(right, right.position() + at, size) ^ sign;
            int result = (op == MIN ? Math.min(x, y) : Math.max(x, y)) ^ sign;
            if (size == 1) {
                dst.put(dst.position() + at, (byte) result);
            } else {
                dst.putShort(dst.position() + at, (short) result);
            }
        }
    }

    /** The unsigned value of the 8- or 16-bit element at index. */
    private static int element(ByteBuffer buffer, int index, int size) {
        return size == 1 ? buffer.get(index) & 0xff : buffer.getShort(index) & 0xffff;
    }

    private int[] ints() {
        if (intsA == null) {
            intsA = new int[(BLOCK_BYTES + STAGGER_BYTES) / Integer.BYTES];
            intsB = new int[(BLOCK_BYTES + 2 * STAGGER_BYTES) / Integer.BYTES];
        }
        return intsA;
    }

    private void reduce32(int op, boolean unsigned, ByteBuffer dst, ByteBuffer left, ByteBuffer right, int count) {
        int[] a = ints();
        int[] b = intsB;
        int block = BLOCK_BYTES / Integer.BYTES;
        IntBuffer d = dst.asIntBuffer();
        IntBuffer l = left.asIntBuffer();
        IntBuffer r = right.asIntBuffer();
        for (int done = 0; done < count; done += block) {
            int n = Math.min(block, count - done);
            l.get(done, a, 0, n);
            r.get(done, b, 0, n);
            switch (op) {
                case SUM -> Kernels.sum(a, b, n);
                case PROD -> Kernels.prod(a, b, n);
                case MIN -> {
                    if (unsigned) {
                        Kernels.minUnsigned(a, b, n);
                    } else {
                        Kernels.min(a, b, n);
                    }
                }
                case MAX -> {
                    if (unsigned) {
                        Kernels.maxUnsigned(a, b, n);
                    } else {
                        Kernels.max(a, b, n);
                    }
                }
                case BAND -> Kernels.and(a, b, n);
                case BOR -> Kernels.or(a, b, n);
                default -> Kernels.xor(a, b, n);
            }
            d.put(done, a, 0, n);
        }
    }

    private long[] longs() {
        if (longsA == null) {
            longsA = new long[(BLOCK_BYTES + STAGGER_BYTES) / Long.BYTES];
            longsB = new long[(BLOCK_BYTES + 2 * STAGGER_BYTES) / Long.BYTES];
        }
        return longsA;
    }

    private void reduce64(int op, boolean unsigned, ByteBuffer dst, ByteBuffer left, ByteBuffer right, int count) {
        long[] a = longs();
        long[] b = longsB;
        int block = BLOCK_BYTES / Long.BYTES;
        LongBuffer d = dst.asLongBuffer();
        LongBuffer l = left.asLongBuffer();
        LongBuffer r = right.asLongBuffer();
        for (int done = 0; done < count; done += block) {
            int n = Math.min(block, count - done);
            l.get(done, a, 0, n);
            r.get(done, b, 0, n);
            switch (op) {
                case SUM -> Kernels.sum(a, b, n);
                case PROD -> Kernels.prod(a, b, n);
                case MIN -> {
                    if (unsigned) {
                        Kernels.minUnsigned(a, b, n);
                    } else {
                        Kernels.min(a, b, n);
                    }
                }
                case MAX -> {
                    if (unsigned) {
                        Kernels.maxUnsigned(a, b, n);
                    } else {
                        Kernels.max(a, b, n);
                    }
                }
                case BAND -> Kernels.and(a, b, n);
                case BOR -> Kernels.or(a, b, n);
                default -> Kernels.xor(a, b, n);
            }
            d.put(done, a, 0, n);
        }
    }

    private void reduceFloat(int op, ByteBuffer dst, ByteBuffer left, ByteBuffer right, int count) {
        if (op == MIN || op == MAX) {
            int[] a = ints();
            int[] b = intsB;
            int block = BLOCK_BYTES / Integer.BYTES;
            IntBuffer d = dst.asIntBuffer();
            IntBuffer l = left.asIntBuffer();
            IntBuffer r = right.asIntBuffer();
            for (int done = 0; done < count; done += block) {
                int n = Math.min(block, count - done);
                l.get(done, a, 0, n);
                r.get(done, b, 0, n);
                if (op == MIN) {
                    Kernels.minFloat(a, b, n);
                } else {
                    Kernels.maxFloat(a, b, n);
                }
                d.put(done, a, 0, n);
            }
            return;
        }
        if (floats == null) {
            floats = new float[5][];
            for (int k = 0; k < floats.length; k++) {
                floats[k] = new float[(BLOCK_BYTES / 2 + (k + 1) * STAGGER_BYTES) / Float.BYTES];
            }
        }
        float[] a = floats[0];
        float[] b = floats[1];
        float[] c = floats[2];
        float[] e = floats[3];
        float[] flags = floats[4];
        int half = BLOCK_BYTES / 2 / Float.BYTES;
        FloatBuffer d = dst.asFloatBuffer();
        FloatBuffer l = left.asFloatBuffer();
        FloatBuffer r = right.asFloatBuffer();
        for (int done = 0; done < count; done += 2 * half) {
            int n = Math.min(half, count - done);
            int m = Math.min(half, count - done - n);
            l.get(done, a, 0, n);
            r.get(done, b, 0, n);
            l.get(done + n, c, 0, m);
            r.get(done + n, e, 0, m);
            if (op == SUM) {
                Kernels.sum(a, b, c, e, flags, m);
                Kernels.sum(a, b, flags, m, n);
            } else {
                Kernels.prod(a, b, c, e, flags, m);
                Kernels.prod(a, b, flags, m, n);
            }
            d.put(done, a, 0, n);
            d.put(done + n, c, 0, m);
        }
        if (Kernels.anyNaN(flags, b, Math.min(count, half))) {
            int[] bits = ints();
            int block = BLOCK_BYTES / Integer.BYTES;
            IntBuffer d32 = dst.asIntBuffer();
            for (int done = 0; done < count; done += block) {
                int n = Math.min(block, count - done);
                d32.get(done, bits, 0, n);
                if (Kernels.canonicalise(bits, n)) {
                    d32.put(done, bits, 0, n);
                }
            }
        }
    }

    private void reduceDouble(int op, ByteBuffer dst, ByteBuffer left, ByteBuffer right, int count) {
        if (op == MIN || op == MAX) {
            long[] a = longs();
            long[] b = longsB;
            int block = BLOCK_BYTES / Long.BYTES;
            LongBuffer d = dst.asLongBuffer();
            LongBuffer l = left.asLongBuffer();
            LongBuffer r = right.asLongBuffer();
            for (int done = 0; done < count; done += block) {
                int n = Math.min(block, count - done);
                l.get(done, a, 0, n);
                r.get(done, b, 0, n);
                if (op == MIN) {
                    Kernels.minDouble(a, b, n);
                } else {
                    Kernels.maxDouble(a, b, n);
                }
                d.put(done, a, 0, n);
            }
            return;
        }
        if (doubles == null) {
            doubles = new double[5][];
            for (int k = 0; k < doubles.length; k++) {
                doubles[k] = new double[(BLOCK_BYTES / 2 + (k + 1) * STAGGER_BYTES) / Double.BYTES];
            }
        }
        double[] a = doubles[0];
        double[] b = doubles[1];
        double[] c = doubles[2];
        double[] e = doubles[3];
        double[] flags = doubles[4];
        int half = BLOCK_BYTES / 2 / Double.BYTES;
        DoubleBuffer d = dst.asDoubleBuffer();
        DoubleBuffer l = left.asDoubleBuffer();
        DoubleBuffer r = right.asDoubleBuffer();
        for (int done = 0; done < count; done += 2 * half) {
            int n = Math.min(half, count - done);
            int m = Math.min(half, count - done - n);
            l.get(done, a, 0, n);
            r.get(done, b, 0, n);
            l.get(done + n, c, 0, m);
            r.get(done + n, e, 0, m);
            if (op == SUM) {
                Kernels.sum(a, b, c, e, flags, m);
                Kernels.sum(a, b, flags, m, n);
            } else {
                Kernels.prod(a, b, c, e, flags, m);
                Kernels.prod(a, b, flags, m, n);
            }
            d.put(done, a, 0, n);
            d.put(done + n, c, 0, m);
        }
        if (Kernels.anyNaN(flags, b, Math.min(count, half))) {
            long[] bits = longs();
            int block = BLOCK_BYTES / Long.BYTES;
            LongBuffer d64 = dst.asLongBuffer();
            for (int done = 0; done < count; done += block) {
                int n = Math.min(block, count - done);
                d64.get(done, bits, 0, n);
                if (Kernels.canonicalise(bits, n)) {
                    d64.put(done, bits, 0, n);
                }
            }
        }
    }
}
