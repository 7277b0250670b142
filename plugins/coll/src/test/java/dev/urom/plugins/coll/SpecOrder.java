// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import java.util.function.DoubleBinaryOperator;

/**
 * The results docs/collectives.md promises, computed here from its text alone for FLOAT64 (so
 * that the order of every addition, and so every bit, is checked): each algorithm is simulated
 * rank by rank. Stateless.
 */
final class SpecOrder {
    private SpecOrder() {}

    /** Recursive doubling over the ranks' vectors {@code x}; every rank's result. */
    static double[][] allreduceSmall(double[][] x, DoubleBinaryOperator op) {
        int p = x.length;
        int n = x[0].length;
        int q = Integer.highestOneBit(p);
        int e = p - q;
        double[][] acc = new double[p][];
        for (int r = 0; r < p; r++) {
            acc[r] = x[r].clone();
        }
        for (int r = 0; r < e; r++) {
            for (int i = 0; i < n; i++) {
                acc[r][i] = op.applyAsDouble(acc[r][i], x[r + q][i]);
            }
        }
        for (int k = 0; (1 << k) < q; k++) {
            double[][] before = new double[q][];
            for (int r = 0; r < q; r++) {
                before[r] = acc[r].clone();
            }
            for (int r = 0; r < q; r++) {
                int partner = r ^ (1 << k);
                for (int i = 0; i < n; i++) {
                    acc[r][i] = partner < r ? op.applyAsDouble(before[partner][i], before[r][i])
                            : op.applyAsDouble(before[r][i], before[partner][i]);
                }
            }
        }
        for (int r = q; r < p; r++) {
            acc[r] = acc[r - q].clone();
        }
        return acc;
    }

    /** The ring order: element i of block b is op(...op(op(a_b, a_b+1), a_b+2)..., a_b-1), ranks mod p. */
    static double[] ring(double[][] x, DoubleBinaryOperator op) {
        int p = x.length;
        int n = x[0].length;
        double[] out = new double[n];
        for (int b = 0; b < p; b++) {
            int from = (int) ((long) b * (n / p) + Math.min(b, n % p));
            int len = n / p + (b < n % p ? 1 : 0);
            for (int i = from; i < from + len; i++) {
                double acc = x[b][i];
                for (int j = 1; j < p; j++) {
                    acc = op.applyAsDouble(acc, x[(b + j) % p][i]);
                }
                out[i] = acc;
            }
        }
        return out;
    }

    /** Binomial reduce to {@code root}: the root's result. */
    static double[] reduceSmall(double[][] x, int root, DoubleBinaryOperator op) {
        int p = x.length;
        double[][] acc = new double[p][];
        for (int v = 0; v < p; v++) {
            acc[v] = x[(v + root) % p].clone();
        }
        for (int k = 0; (1 << k) < p; k++) {
            for (int v = 0; v < p; v++) {
                boolean alive = (v & ((1 << k) - 1)) == 0;
                if (alive && (v & (1 << k)) == 0 && v + (1 << k) < p) {
                    for (int i = 0; i < acc[v].length; i++) {
                        acc[v][i] = op.applyAsDouble(acc[v][i], acc[v + (1 << k)][i]);
                    }
                }
            }
        }
        return acc[0];
    }
}
