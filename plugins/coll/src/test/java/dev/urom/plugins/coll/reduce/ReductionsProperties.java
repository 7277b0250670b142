// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.reduce;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * The Java kernels and the C kernels write the same bytes, those of {@link Reference}, for every datatype and operation, at
 * counts around the Java block size and beyond, at any alignment, from random and edge-value operands; and dst may be left,
 * right or both.
 */
class ReductionsProperties {
    private final Reductions reductions = new Reductions();

    /** One reduction to try: operands drawn from seed, edgePercent of them edge values, regions at the offsets. */
    record Case(
            Dtype dtype,
            int op,
            int count,
            long seed,
            int edgePercent,
            int dstOffset,
            int leftOffset,
            int rightOffset) {
        @Override
        public String toString() {
            return dtype + " " + Dtype.OP_NAMES[op] + " count " + count + " seed " + seed + " edges " + edgePercent
                    + "% offsets " + dstOffset + "/" + leftOffset + "/" + rightOffset;
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        List<Tuple.Tuple2<Dtype, Integer>> combinations = new ArrayList<>();
        for (Dtype dtype : Dtype.values()) {
            for (int op = 0; op < dtype.opCount(); op++) {
                combinations.add(Tuple.of(dtype, op));
            }
        }
        return Arbitraries.of(combinations)
                .flatMap(combination -> Combinators.combine(
                                counts(combination.get1()),
                                Arbitraries.longs(),
                                Arbitraries.of(0, 20, 90, 100),
                                Arbitraries.integers().between(0, 15),
                                Arbitraries.integers().between(0, 15),
                                Arbitraries.integers().between(0, 15))
                        .as((count, seed, edges, dst, left, right) -> new Case(
                                combination.get1(), combination.get2(), count, seed, edges, dst, left, right)));
    }

    /** 0, 1, small, odd, the Java block size, its half (FLOAT SUM and PROD) and its multiples ± 1, and a few hundred thousand. */
    private static Arbitrary<Integer> counts(Dtype dtype) {
        int block = Reductions.BLOCK_BYTES / dtype.size;
        return Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.just(0)),
                Tuple.of(5, Arbitraries.just(1)),
                Tuple.of(25, Arbitraries.integers().between(2, 64)),
                Tuple.of(20, Arbitraries.integers().between(0, 3 * block).map(n -> n | 1)),
                Tuple.of(
                        25,
                        Arbitraries.of(
                                block / 2 - 1,
                                block / 2 + 1,
                                block - 1,
                                block,
                                block + 1,
                                2 * block - 1,
                                2 * block + 1,
                                3 * block)),
                Tuple.of(3, Arbitraries.integers().between(200_000, 400_000)));
    }

    @Property(tries = 1500)
    void javaAndCWriteTheReferenceBytes(@ForAll("cases") Case c) {
        Operands operands = new Operands(c.dtype(), c.seed(), c.edgePercent());
        long[] left = operands.elements(c.count());
        long[] right = operands.elementsLike(left);
        ByteBuffer leftBuffer = operands.buffer(left, c.leftOffset(), 16);
        ByteBuffer rightBuffer = operands.buffer(right, c.rightOffset(), 16);
        ByteBuffer javaDst = operands.garbage(c.count(), c.dstOffset(), 16);
        ByteBuffer cDst = Operands.copy(javaDst);
        ByteBuffer expected = Operands.copy(javaDst);
        for (int i = 0; i < c.count(); i++) {
            Operands.put(
                    c.dtype(),
                    expected,
                    c.dstOffset() + i * c.dtype().size,
                    Reference.apply(c.dtype(), c.op(), left[i], right[i]));
        }
        byte[] leftBefore = Operands.bytes(leftBuffer);
        byte[] rightBefore = Operands.bytes(rightBuffer);

        reductions.reduce(c.dtype().code, c.op(), javaDst, leftBuffer, rightBuffer, c.count());
        assertThat(CKernels.reduce(c.dtype().code, c.op(), cDst, leftBuffer, rightBuffer, c.count()))
                .isZero();

        assertSameBytes(c, "Java", expected, javaDst, left, right);
        assertSameBytes(c, "C", expected, cDst, left, right);
        assertThat(Operands.bytes(leftBuffer)).isEqualTo(leftBefore);
        assertThat(Operands.bytes(rightBuffer)).isEqualTo(rightBefore);
        assertThat(javaDst.position()).isEqualTo(c.dstOffset());
        assertThat(javaDst.limit()).isEqualTo(c.dstOffset() + c.count() * c.dtype().size);
        assertThat(leftBuffer.position()).isEqualTo(c.leftOffset());
        assertThat(rightBuffer.position()).isEqualTo(c.rightOffset());

        Statistics.label("datatype and operation").collect(c.dtype(), Dtype.OP_NAMES[c.op()]);
        Statistics.label("datatype and operation").coverage(coverage -> {
            for (Dtype dtype : Dtype.values()) {
                for (int op = 0; op < dtype.opCount(); op++) {
                    coverage.check(dtype, Dtype.OP_NAMES[op]).count(n -> n > 0);
                }
            }
        });
    }

    @Property(tries = 500)
    void dstMayBeLeftOrRightOrBoth(@ForAll("cases") Case c) {
        Operands operands = new Operands(c.dtype(), c.seed(), c.edgePercent());
        long[] left = operands.elements(c.count());
        long[] right = operands.elementsLike(left);
        ByteBuffer leftBuffer = operands.buffer(left, c.leftOffset(), 16);
        ByteBuffer rightBuffer = operands.buffer(right, c.rightOffset(), 16);
        for (String side : new String[] {"Java", "C"}) {
            ByteBuffer inLeft = Operands.copy(leftBuffer);
            reduce(side, c, inLeft, inLeft.duplicate().order(inLeft.order()), rightBuffer);
            assertRegion(c, side + ", dst == left", left, right, inLeft);
            ByteBuffer inRight = Operands.copy(rightBuffer);
            reduce(side, c, inRight, leftBuffer, inRight);
            assertRegion(c, side + ", dst == right", left, right, inRight);
            ByteBuffer all = Operands.copy(leftBuffer);
            reduce(side, c, all, all, all);
            assertRegion(c, side + ", dst == left == right", left, left, all);
        }
    }

    private void reduce(String side, Case c, ByteBuffer dst, ByteBuffer left, ByteBuffer right) {
        if (side.equals("Java")) {
            reductions.reduce(c.dtype().code, c.op(), dst, left, right, c.count());
        } else {
            assertThat(CKernels.reduce(c.dtype().code, c.op(), dst, left, right, c.count()))
                    .isZero();
        }
    }

    /** The elements of actual's region are the reference's results of left and right. */
    private static void assertRegion(Case c, String what, long[] left, long[] right, ByteBuffer actual) {
        for (int i = 0; i < c.count(); i++) {
            long expected = Reference.apply(c.dtype(), c.op(), left[i], right[i]);
            long got = Operands.get(c.dtype(), actual, actual.position() + i * c.dtype().size);
            if (got != expected) {
                throw new AssertionError(String.format(
                        "%s: %s, element %d: op(%s, %s) is %s, not %s",
                        c, what, i, hex(c, left[i]), hex(c, right[i]), hex(c, got), hex(c, expected)));
            }
        }
    }

    /** The whole buffers equal (the bytes around the region too); on a difference, names the first element that differs. */
    private static void assertSameBytes(
            Case c, String side, ByteBuffer expected, ByteBuffer actual, long[] left, long[] right) {
        byte[] e = Operands.bytes(expected);
        byte[] a = Operands.bytes(actual);
        int at = Arrays.mismatch(e, a);
        if (at < 0) {
            return;
        }
        int element = Math.floorDiv(at - c.dstOffset(), c.dtype().size);
        String message;
        if (element < 0 || element >= c.count()) {
            message = side + " wrote byte " + at + ", outside the region";
        } else {
            int index = c.dstOffset() + element * c.dtype().size;
            message = String.format(
                    "%s, element %d: op(%s, %s) is %s, not %s",
                    side,
                    element,
                    hex(c, left[element]),
                    hex(c, right[element]),
                    hex(c, Operands.get(c.dtype(), actual, index)),
                    hex(c, Operands.get(c.dtype(), expected, index)));
        }
        throw new AssertionError(c + ": " + message);
    }

    private static String hex(Case c, long bits) {
        return "0x" + HexFormat.of().toHexDigits(bits).substring(16 - 2 * c.dtype().size);
    }
}
