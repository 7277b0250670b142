// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.reduce;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * Operand vectors for the tests: elements of random bits, of ordinary values or, with a given probability, of the edge values
 * of their datatype (NaN with random payloads and signs, signed zeros, infinities, subnormals, the integer bounds, -1), in
 * direct little-endian buffers whose region starts at a given offset and ends at the limit, with random bytes around it.
 * Deterministic for a seed; not thread-safe.
 */
final class Operands {
    private final Dtype dtype;
    private final SplittableRandom random;
    private final int edgePercent;

    Operands(Dtype dtype, long seed, int edgePercent) {
        this.dtype = dtype;
        this.random = new SplittableRandom(seed);
        this.edgePercent = edgePercent;
    }

    /** count elements, each drawn alone. */
    long[] elements(int count) {
        long[] elements = new long[count];
        for (int i = 0; i < count; i++) {
            elements[i] = element();
        }
        return elements;
    }

    /** count elements, each equal to the one of {@code like} (or its zero of the other sign) with probability 1/8. */
    long[] elementsLike(long[] like) {
        long[] elements = elements(like.length);
        long sign = 1L << (8 * dtype.size - 1);
        for (int i = 0; i < like.length; i++) {
            if (random.nextInt(8) == 0) {
                elements[i] =
                        dtype.floating && (like[i] & ~sign) == 0 && random.nextBoolean() ? like[i] ^ sign : like[i];
            }
        }
        return elements;
    }

    private long element() {
        if (random.nextInt(100) < edgePercent) {
            return dtype.floating ? floatingEdge() : integerEdge();
        }
        if (dtype.floating && random.nextBoolean()) {
            double value = random.nextDouble(-1.0, 1.0) * Math.scalb(1.0, random.nextInt(-30, 31));
            return dtype == Dtype.FLOAT32
                    ? Integer.toUnsignedLong(Float.floatToRawIntBits((float) value))
                    : Double.doubleToRawLongBits(value);
        }
        return random.nextLong() & dtype.mask();
    }

    private long integerEdge() {
        long mask = dtype.mask();
        long signBit = 1L << (8 * dtype.size - 1);
        return switch (random.nextInt(8)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> mask; // -1, or the unsigned maximum
            case 3 -> signBit; // the signed minimum
            case 4 -> signBit - 1; // the signed maximum
            case 5 -> mask - 1;
            case 6 -> signBit + 1;
            default -> random.nextInt(-3, 4) & mask;
        };
    }

    private long floatingEdge() {
        boolean single = dtype == Dtype.FLOAT32;
        int mantissaBits = single ? 23 : 52;
        long sign = random.nextBoolean() ? 1L << (single ? 31 : 63) : 0;
        long exponentAllOnes = single ? 0x7f800000L : 0x7ff0000000000000L;
        long mantissaMask = (1L << mantissaBits) - 1;
        long bits = switch (random.nextInt(10)) {
            case 0, 1 -> 0; // a zero
            case 2 -> exponentAllOnes; // an infinity
            case 3, 4 -> exponentAllOnes | Math.max(1, random.nextLong() & mantissaMask); // a NaN, quiet or signalling
            case 5 -> Math.max(1, random.nextLong() & mantissaMask >>> random.nextInt(mantissaBits)); // a subnormal
            case 6 -> single ? Float.floatToRawIntBits(Float.MAX_VALUE) : Double.doubleToRawLongBits(Double.MAX_VALUE);
            case 7 ->
                single ? Float.floatToRawIntBits(Float.MIN_NORMAL) : Double.doubleToRawLongBits(Double.MIN_NORMAL);
            case 8 -> single ? Float.floatToRawIntBits(1.0f) : Double.doubleToRawLongBits(1.0);
            default -> 1; // the least subnormal
        };
        return sign | bits;
    }

    /** A direct little-endian buffer: random bytes, then from offset the elements, then random bytes to the capacity. */
    ByteBuffer buffer(long[] elements, int offset, int after) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(offset + elements.length * dtype.size + after)
                .order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.hasRemaining()) {
            buffer.put((byte) random.nextInt());
        }
        for (int i = 0; i < elements.length; i++) {
            put(dtype, buffer, offset + i * dtype.size, elements[i]);
        }
        return buffer.limit(offset + elements.length * dtype.size).position(offset);
    }

    /** A buffer of random bytes with a region of count elements, like {@link #buffer}. */
    ByteBuffer garbage(int count, int offset, int after) {
        return buffer(new long[0], 0, offset + count * dtype.size + after)
                .limit(offset + count * dtype.size)
                .position(offset);
    }

    static void put(Dtype dtype, ByteBuffer buffer, int index, long bits) {
        switch (dtype.size) {
            case 1 -> buffer.put(index, (byte) bits);
            case 2 -> buffer.putShort(index, (short) bits);
            case 4 -> buffer.putInt(index, (int) bits);
            default -> buffer.putLong(index, bits);
        }
    }

    static long get(Dtype dtype, ByteBuffer buffer, int index) {
        return switch (dtype.size) {
            case 1 -> buffer.get(index) & 0xffL;
            case 2 -> buffer.getShort(index) & 0xffffL;
            case 4 -> buffer.getInt(index) & 0xffffffffL;
            default -> buffer.getLong(index);
        };
    }

    /** All of the buffer's bytes, from 0 to its capacity. */
    static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.capacity()];
        buffer.duplicate().clear().get(bytes);
        return bytes;
    }

    /** A copy of the buffer (all its bytes, its position and limit), direct and little-endian. */
    static ByteBuffer copy(ByteBuffer buffer) {
        ByteBuffer copy = ByteBuffer.allocateDirect(buffer.capacity()).order(ByteOrder.LITTLE_ENDIAN);
        copy.put(bytes(buffer));
        return copy.limit(buffer.limit()).position(buffer.position());
    }
}
