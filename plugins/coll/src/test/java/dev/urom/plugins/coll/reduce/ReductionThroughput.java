// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.reduce;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * A measurement, not a test: throughput of the C kernels (through a JNA direct mapping) and the Java kernels for FLOAT64 SUM
 * and INT32 MAX on 64 KiB and 1 MiB operands, dst separate, in one thread; prints GB/s of one operand's bytes per second, best
 * of 30 interleaved rounds of 0.1 s, the first of them the warm-up; "C net" takes away the JNA call's own cost (a call with
 * count 0), which the ratio uses. Run after the module's test-compile:
 *
 * <pre>
 * java -cp plugins/coll/target/classes:plugins/coll/target/test-classes:JNA_JAR \
 *     -Durom.coll.kernels=plugins/coll/target/c-tests/libcoll_kernels.so dev.urom.plugins.coll.reduce.ReductionThroughput
 * </pre>
 */
public final class ReductionThroughput {
    private static final long ROUND_NANOS = 100_000_000L;
    private static final int ROUNDS = 30;

    /** coll_reduce bound by JNA's direct mapping, the cheapest way JNA calls C. */
    static final class Direct {
        static {
            CKernels.load();
            Native.register(Direct.class, System.getProperty("urom.coll.kernels"));
        }

        private Direct() {}

        static native int coll_reduce(byte dtype, byte op, Pointer dst, Pointer left, Pointer right, long count);
    }

    private interface Kernel {
        void run();
    }

    private ReductionThroughput() {}

    public static void main(String[] args) {
        Reductions reductions = new Reductions();
        ByteBuffer empty = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
        Pointer none = Native.getDirectBufferPointer(empty);
        Kernel call = () -> Direct.coll_reduce((byte) 9, (byte) 0, none, none, none, 0);
        double callRate = 0;
        for (int round = 0; round < ROUNDS; round++) {
            callRate = Math.max(callRate, rate(call));
        }
        double callNanos = 1e9 / callRate;
        System.out.printf("JNA call with count 0: %.0f ns%n", callNanos);
        System.out.printf("%-12s %8s %10s %10s %10s %8s%n", "", "bytes", "C GB/s", "C net", "Java GB/s", "ratio");
        int[][] cases = {{9, 0}, {2, 3}};
        String[] names = {"FLOAT64 SUM", "INT32 MAX"};
        for (int k = 0; k < cases.length; k++) {
            int dtype = cases[k][0];
            int op = cases[k][1];
            for (int bytes : new int[] {64 << 10, 1 << 20}) {
                int count = bytes / Reductions.dtypeSize(dtype);
                ByteBuffer dst = ordinary(dtype, count, 1);
                ByteBuffer left = ordinary(dtype, count, 2);
                ByteBuffer right = ordinary(dtype, count, 3);
                Pointer d = Native.getDirectBufferPointer(dst);
                Pointer l = Native.getDirectBufferPointer(left);
                Pointer r = Native.getDirectBufferPointer(right);
                Kernel c = () -> Direct.coll_reduce((byte) dtype, (byte) op, d, l, r, count);
                Kernel java = () -> reductions.reduce(dtype, op, dst, left, right, count);
                double cRate = 0;
                double javaRate = 0;
                for (int round = 0; round < ROUNDS; round++) {
                    cRate = Math.max(cRate, rate(c));
                    javaRate = Math.max(javaRate, rate(java));
                }
                double cNet = 1e9 / (1e9 / cRate - callNanos);
                System.out.printf(
                        "%-12s %8d %10.2f %10.2f %10.2f %8.2f%n",
                        names[k],
                        bytes,
                        cRate * bytes / 1e9,
                        cNet * bytes / 1e9,
                        javaRate * bytes / 1e9,
                        cNet / javaRate);
            }
        }
    }

    /** Calls per second over one round. */
    private static double rate(Kernel kernel) {
        long calls = 0;
        long start = System.nanoTime();
        long elapsed;
        do {
            for (int i = 0; i < 64; i++) {
                kernel.run();
            }
            calls += 64;
            elapsed = System.nanoTime() - start;
        } while (elapsed < ROUND_NANOS);
        return calls * 1e9 / elapsed;
    }

    /** Ordinary values (no NaN, no infinity): the common case, which both sides take without their NaN paths. */
    private static ByteBuffer ordinary(int dtype, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ByteBuffer buffer =
                ByteBuffer.allocateDirect(count * Reductions.dtypeSize(dtype)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            if (dtype == 9) {
                buffer.putDouble(8 * i, random.nextDouble(-1e6, 1e6));
            } else {
                buffer.putInt(4 * i, random.nextInt());
            }
        }
        return buffer;
    }
}
