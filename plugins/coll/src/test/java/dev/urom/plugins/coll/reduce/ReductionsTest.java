// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.reduce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Which datatypes and operations both sides accept, what they do with the others, the Java contract, and worked examples. */
class ReductionsTest {
    private final Reductions reductions = new Reductions();

    private static boolean valid(int dtype, int op) {
        return dtype >= 0 && dtype <= 9 && op >= 0 && op <= (dtype >= 8 ? 3 : 6);
    }

    @Test
    void bothSidesKnowTheSameDatatypesAndOperations() {
        CKernels.Library c = CKernels.load();
        int[] sizes = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
        for (int dtype = 0; dtype < 256; dtype++) {
            int size = dtype < sizes.length ? sizes[dtype] : 0;
            assertThat(Reductions.dtypeSize(dtype)).as("dtype %d", dtype).isEqualTo(size);
            assertThat(c.coll_dtype_size((byte) dtype)).as("dtype %d", dtype).isEqualTo(size);
            for (int op = 0; op < 256; op++) {
                assertThat(Reductions.opValid(dtype, op))
                        .as("dtype %d op %d", dtype, op)
                        .isEqualTo(valid(dtype, op));
                assertThat(c.coll_op_valid((byte) dtype, (byte) op))
                        .as("dtype %d op %d", dtype, op)
                        .isEqualTo(valid(dtype, op) ? 1 : 0);
            }
        }
        assertThat(Reductions.dtypeSize(-1)).isZero();
        assertThat(Reductions.opValid(-1, 0)).isFalse();
        assertThat(Reductions.opValid(0, -1)).isFalse();
        assertThat(Reductions.opValid(Integer.MAX_VALUE, 0)).isFalse();
    }

    @Test
    void anInvalidCombinationWritesNothing() {
        ByteBuffer left = filled(64, 1);
        ByteBuffer right = filled(64, 2);
        ByteBuffer dst = filled(64, 3);
        byte[] before = bytes(dst);
        int refused = 0;
        for (int dtype = -1; dtype < 256; dtype++) {
            for (int op = -1; op < 256; op++) {
                if (valid(dtype, op)) {
                    continue;
                }
                int d = dtype;
                int o = op;
                assertThatThrownBy(() -> reductions.reduce(d, o, dst, left, right, 4))
                        .isInstanceOf(IllegalArgumentException.class);
                if (dtype >= 0 && op >= 0) {
                    assertThat(CKernels.reduce(dtype, op, dst, left, right, 4))
                            .as("dtype %d op %d", dtype, op)
                            .isNotZero();
                }
                refused++;
            }
        }
        assertThat(bytes(dst)).isEqualTo(before);
        assertThat(refused).isEqualTo(257 * 257 - 8 * 7 - 2 * 4);
    }

    @Test
    void aCallOutsideTheJavaContractThrowsAndWritesNothing() {
        ByteBuffer left = filled(64, 1);
        ByteBuffer right = filled(64, 2);
        ByteBuffer dst = filled(64, 3);
        byte[] before = bytes(dst);
        assertRefused("count -1 is negative", dst, left, right, -1);
        assertRefused("dst has 64 bytes remaining, not 72", dst, left, right, 9);
        assertRefused(
                "left has 56 bytes remaining, not 64",
                dst,
                left.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(8),
                right,
                8);
        assertRefused(
                "right has 8 bytes remaining, not 64",
                dst,
                left,
                right.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(8),
                8);
        assertRefused(
                "left is not a direct buffer", dst, ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN), right, 8);
        assertRefused("right is not little-endian", dst, left, right.duplicate(), 8);
        assertRefused("dst is read-only", dst.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN), left, right, 8);
        assertThat(bytes(dst)).isEqualTo(before);
        assertThat(dst.position()).isZero();
        reductions.reduce(9, 0, dst.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(64), left, right, 0);
        assertThat(bytes(dst)).isEqualTo(before);
    }

    private void assertRefused(String message, ByteBuffer dst, ByteBuffer left, ByteBuffer right, int count) {
        assertThatThrownBy(() -> reductions.reduce(9, 0, dst, left, right, count))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void floatingPointExamples() {
        long nan = 0x7ff8000000000000L;
        long minusZero = 0x8000000000000000L;
        assertDoubles(
                2,
                new double[] {0.0, -0.0, 1.0, -1.0, 5.0},
                new double[] {-0.0, 0.0, 1.0, 2.0, Double.NaN},
                new long[] {minusZero, minusZero, bits(1.0), bits(-1.0), nan});
        assertDoubles(
                3,
                new double[] {0.0, -0.0, -0.0, Double.NEGATIVE_INFINITY},
                new double[] {-0.0, 0.0, -0.0, -1.0},
                new long[] {0, 0, minusZero, bits(-1.0)});
        assertDoubles(
                0,
                new double[] {Double.POSITIVE_INFINITY, Double.longBitsToDouble(0xfff0000000000001L), 0.1, -0.0},
                new double[] {Double.NEGATIVE_INFINITY, 1.0, 0.2, -0.0},
                new long[] {nan, nan, bits(0.1 + 0.2), minusZero});
        assertDoubles(
                1, new double[] {0.0, Double.MIN_VALUE}, new double[] {Double.POSITIVE_INFINITY, 0.5}, new long[] {
                    nan, 0
                });
    }

    @Test
    void integerExamples() {
        ByteBuffer left = le(2).put((byte) 127).put((byte) 0xff).flip();
        ByteBuffer right = le(2).put((byte) 1).put((byte) 1).flip();
        ByteBuffer dst = le(2);
        reductions.reduce(0, 0, dst, left, right, 2);
        assertThat(bytes(dst)).containsExactly(0x80, 0);
        reductions.reduce(0, 3, dst, left, right, 2);
        assertThat(bytes(dst)).containsExactly(127, 1);
        reductions.reduce(4, 3, dst, left, right, 2);
        assertThat(bytes(dst)).containsExactly(127, 0xff);
        ByteBuffer l64 = le(8).putLong(0, Long.MIN_VALUE);
        ByteBuffer r64 = le(8).putLong(0, 1);
        ByteBuffer d64 = le(8);
        reductions.reduce(3, 2, d64, l64, r64, 1);
        assertThat(d64.getLong(0)).isEqualTo(Long.MIN_VALUE);
        reductions.reduce(7, 2, d64, l64, r64, 1);
        assertThat(d64.getLong(0)).isEqualTo(1);
        reductions.reduce(3, 1, d64, l64, le(8).putLong(0, -1), 1);
        assertThat(d64.getLong(0)).isEqualTo(Long.MIN_VALUE);
    }

    private void assertDoubles(int op, double[] x, double[] y, long[] expected) {
        ByteBuffer left = le(8 * x.length);
        ByteBuffer right = le(8 * x.length);
        for (int i = 0; i < x.length; i++) {
            left.putDouble(8 * i, x[i]);
            right.putDouble(8 * i, y[i]);
        }
        ByteBuffer javaDst = le(8 * x.length);
        ByteBuffer cDst = le(8 * x.length);
        reductions.reduce(9, op, javaDst, left, right, x.length);
        assertThat(CKernels.reduce(9, op, cDst, left, right, x.length)).isZero();
        long[] java = new long[x.length];
        long[] c = new long[x.length];
        for (int i = 0; i < x.length; i++) {
            java[i] = javaDst.getLong(8 * i);
            c[i] = cDst.getLong(8 * i);
        }
        assertThat(java).as("Java, op %d", op).containsExactly(expected);
        assertThat(c).as("C, op %d", op).containsExactly(expected);
    }

    private static long bits(double value) {
        return Double.doubleToRawLongBits(value);
    }

    private static ByteBuffer le(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer filled(int capacity, int value) {
        ByteBuffer buffer = le(capacity);
        byte[] bytes = new byte[capacity];
        Arrays.fill(bytes, (byte) value);
        return buffer.put(0, bytes);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        return Operands.bytes(buffer);
    }
}
