// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.ReduceOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The element-wise definitions of docs/collectives.md, on the interim kernels: wrapping, signedness, zeros, NaNs, operand order. */
class InterimKernelsTest {
    private static ByteBuffer buffer() {
        return ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void integersWrapAndCompareByTheirSignedness() {
        ByteBuffer b = buffer();
        b.put(0, (byte) 0x7f).put(1, (byte) 0x80).put(8, (byte) 1).put(9, (byte) 1);
        InterimKernels.reduce(DataType.INT8, ReduceOp.SUM, b, 16, 0, 8, 2);
        assertThat(b.get(16)).isEqualTo((byte) 0x80);
        assertThat(b.get(17)).isEqualTo((byte) 0x81);
        InterimKernels.reduce(DataType.INT8, ReduceOp.MIN, b, 16, 0, 8, 2);
        assertThat(b.get(17)).as("signed: -128 < 1").isEqualTo((byte) 0x80);
        InterimKernels.reduce(DataType.UINT8, ReduceOp.MIN, b, 16, 0, 8, 2);
        assertThat(b.get(17)).as("unsigned: 1 < 128").isEqualTo((byte) 1);
        b.putLong(0, -1L).putLong(8, 2L);
        InterimKernels.reduce(DataType.UINT64, ReduceOp.MAX, b, 16, 0, 8, 1);
        assertThat(b.getLong(16)).isEqualTo(-1L);
        InterimKernels.reduce(DataType.INT64, ReduceOp.MAX, b, 16, 0, 8, 1);
        assertThat(b.getLong(16)).isEqualTo(2L);
        b.putInt(0, 0x4000_0000).putInt(8, 4);
        InterimKernels.reduce(DataType.INT32, ReduceOp.PROD, b, 16, 0, 8, 1);
        assertThat(b.getInt(16)).as("wraps").isZero();
        b.putShort(0, (short) 0x0ff0).putShort(8, (short) 0x00ff);
        InterimKernels.reduce(DataType.UINT16, ReduceOp.BXOR, b, 16, 0, 8, 1);
        assertThat(b.getShort(16)).isEqualTo((short) 0x0f0f);
    }

    @Test
    void floatingPointOrdersZerosAndWritesTheCanonicalNan() {
        ByteBuffer b = buffer();
        b.putDouble(0, -0.0).putDouble(8, 0.0);
        InterimKernels.reduce(DataType.FLOAT64, ReduceOp.MIN, b, 16, 0, 8, 1);
        assertThat(Double.doubleToRawLongBits(b.getDouble(16))).isEqualTo(Double.doubleToRawLongBits(-0.0));
        InterimKernels.reduce(DataType.FLOAT64, ReduceOp.MAX, b, 16, 8, 0, 1);
        assertThat(Double.doubleToRawLongBits(b.getDouble(16))).isZero();
        b.putLong(0, 0xfff8_0000_0000_0001L).putDouble(8, 1.0);
        for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX}) {
            InterimKernels.reduce(DataType.FLOAT64, op, b, 16, 8, 0, 1);
            assertThat(b.getLong(16)).as("%s with a NaN", op).isEqualTo(0x7ff8_0000_0000_0000L);
        }
        b.putDouble(0, Double.POSITIVE_INFINITY).putDouble(8, Double.NEGATIVE_INFINITY);
        InterimKernels.reduce(DataType.FLOAT64, ReduceOp.SUM, b, 16, 0, 8, 1);
        assertThat(b.getLong(16)).as("inf + -inf").isEqualTo(0x7ff8_0000_0000_0000L);
        b.putFloat(0, Float.POSITIVE_INFINITY).putFloat(4, 0f).putFloat(8, 0f).putFloat(12, Float.NaN);
        InterimKernels.reduce(DataType.FLOAT32, ReduceOp.PROD, b, 16, 0, 8, 2);
        assertThat(b.getInt(16)).as("inf * 0").isEqualTo(0x7fc0_0000);
        assertThat(b.getInt(20)).isEqualTo(0x7fc0_0000);
    }

    @Test
    void theLeftOperandIsTheFirst() {
        ByteBuffer b = buffer();
        b.putDouble(0, 1e16).putDouble(8, 1.0).putDouble(24, -1e16);
        InterimKernels.reduce(DataType.FLOAT64, ReduceOp.SUM, b, 16, 0, 8, 1);
        InterimKernels.reduce(DataType.FLOAT64, ReduceOp.SUM, b, 16, 16, 24, 1);
        assertThat(b.getDouble(16)).as("(1e16 + 1) + -1e16").isZero();
    }
}
