// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import dev.urom.plugins.coll.protocol.CollTag;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.MessageKind;

/**
 * Builds the data phase of each collective into a {@link Program}, exactly as {@code
 * docs/collectives.md} specifies its messages, tags, pieces and reduction order; the caller has
 * reset the program with an arena of {@link #arenaBytes} bytes. Every piece travels in chunks of
 * {@code chunk} bytes (the team's {@code chunk_bytes} rounded down to the element size); each
 * chunk is its own operation so that it is forwarded, reduced and written as soon as it is there.
 * The latency-optimal algorithms keep their vectors in the arena (at most {@code small_bytes}
 * each); the pipelined ones move their chunks through the program's pool in step order, with
 * receives posted a little ahead. Stateless between builds; the plugin's thread.
 */
final class Algorithms {
    /** What one rank runs: its place in the team, the collective's sizes and host addresses. */
    record Shape(
            int p,
            int r,
            long teamId,
            long sequence,
            long chunk,
            int elementSize,
            long count,
            long src,
            long dst,
            boolean inPlace,
            int root) {
        long bytes() {
            return count * elementSize;
        }

        int pos(long x) {
            return (int) Math.floorMod(x, (long) p);
        }

        long tag(int step, int sender) {
            return CollTag.of(MessageKind.DATA, teamId, sequence, step, sender);
        }

        int chunks(long len) {
            return (int) ((len + chunk - 1) / chunk);
        }

        long chunkLen(long len, int c) {
            return Math.min(chunk, len - c * chunk);
        }

        /** Byte offset of ring block {@code b} of the vector. */
        long blockOffset(int b) {
            long base = count / p;
            long rem = count % p;
            return (b * base + Math.min(b, rem)) * elementSize;
        }

        long blockLength(int b) {
            long base = count / p;
            long rem = count % p;
            return (base + (b < rem ? 1 : 0)) * elementSize;
        }
    }

    private Algorithms() {}

    /**
     * Arena bytes the data phase of {@code coll} needs (saturating instead of overflowing); the
     * staged algorithms keep their chunks in the program's pool besides.
     */
    static long arenaBytes(CollType coll, boolean small, Shape s) {
        long n = s.bytes();
        if (!small && coll != CollType.BARRIER) {
            return coll == CollType.BCAST ? (long) CHAIN_SLOTS * s.chunk() : s.chunk();
        }
        long factor = switch (coll) {
            case BCAST -> 1;
            case REDUCE, ALLREDUCE -> 2;
            case ALLGATHER -> s.p();
            case ALLTOALL -> 0;
            case BARRIER -> 0;
        };
        if (coll == CollType.ALLTOALL) {
            return s.chunk();
        }
        return factor == 0 || n <= Long.MAX_VALUE / factor ? factor * n : Long.MAX_VALUE;
    }

    /** Sends a piece of {@code len} bytes at {@code at} in chunks; chunk c after {@code deps[c]} (or {@code dep} for all when deps is null). */
    private static int[] sendPiece(Program g, Shape s, int to, long at, long len, int step, int[] deps, int dep) {
        int[] ops = new int[s.chunks(len)];
        for (int c = 0; c < ops.length; c++) {
            ops[c] = g.send(
                    to, at + c * s.chunk(), s.chunkLen(len, c), s.tag(step, s.r()), deps == null ? dep : deps[c], -1);
        }
        return ops;
    }

    private static int[] receivePiece(Program g, Shape s, int from, long at, long len, int step, int[] deps) {
        int[] ops = new int[s.chunks(len)];
        for (int c = 0; c < ops.length; c++) {
            ops[c] = g.receive(
                    from, at + c * s.chunk(), s.chunkLen(len, c), s.tag(step, from), deps == null ? -1 : deps[c], -1);
        }
        return ops;
    }

    /** Reads a piece of the host into the arena, one read per chunk. */
    private static int[] readPiece(Program g, Shape s, long at, long remote, long len) {
        int[] ops = new int[s.chunks(len)];
        for (int c = 0; c < ops.length; c++) {
            ops[c] = g.read(at + c * s.chunk(), remote + c * s.chunk(), s.chunkLen(len, c), -1, -1);
        }
        return ops;
    }

    private static void writePiece(Program g, Shape s, long at, long remote, long len, int[] deps) {
        for (int c = 0; c < s.chunks(len); c++) {
            g.write(at + c * s.chunk(), remote + c * s.chunk(), s.chunkLen(len, c), deps == null ? -1 : deps[c], -1);
        }
    }

    // ---- ALLREDUCE -------------------------------------------------------------------------

    /** Recursive doubling: acc at 0, the received vector at n. */
    static void allreduceSmall(Program g, Shape s) {
        long n = s.bytes();
        int p = s.p();
        int r = s.r();
        int q = Integer.highestOneBit(p);
        int e = p - q;
        int rounds = Integer.numberOfTrailingZeros(q);
        int[] last = readPiece(g, s, 0, s.inPlace() ? s.dst() : s.src(), n);
        if (r >= q) {
            int[] sent = sendPiece(g, s, r - q, 0, n, 0, last, -1);
            int[] got = receivePiece(g, s, r - q, 0, n, rounds + 1, sent);
            writePiece(g, s, 0, s.dst(), n, got);
            return;
        }
        if (r < e) {
            int[] got = receivePiece(g, s, r + q, n, n, 0, null);
            last = reduceChunks(g, s, n, 0, 0, n, got, last, null);
        }
        for (int k = 0; k < rounds; k++) {
            int partner = r ^ (1 << k);
            int[] sent = sendPiece(g, s, partner, 0, n, k + 1, last, -1);
            int[] got = receivePiece(g, s, partner, n, n, k + 1, last);
            last = partner < r
                    ? reduceChunks(g, s, n, 0, n, 0, got, sent, null)
                    : reduceChunks(g, s, n, 0, 0, n, got, sent, null);
        }
        if (r < e) {
            sendPiece(g, s, r + q, 0, n, rounds + 1, last, -1);
        }
        writePiece(g, s, 0, s.dst(), n, last);
    }

    /** out = op(a, b) chunk by chunk over {@code len} bytes, chunk c after {@code d0[c]} and {@code d1[c]} (and {@code d2[c]}). */
    private static int[] reduceChunks(
            Program g, Shape s, long len, long out, long a, long b, int[] d0, int[] d1, int[] d2) {
        int[] ops = new int[s.chunks(len)];
        for (int c = 0; c < ops.length; c++) {
            long off = c * s.chunk();
            ops[c] = g.reduce(
                    out + off, a + off, b + off, s.chunkLen(len, c), d0 == null ? -1 : d0[c], d1 == null ? -1 : d1[c]);
            if (d2 != null) {
                g.join(ops[c], d2[c], d2[c] + 1);
            }
        }
        return ops;
    }

    /** Receives the staged algorithms post ahead of the unit they handle. */
    static int ahead(int p) {
        return 2 * p + 2;
    }

    /**
     * Ring reduce-scatter, then ring allgather, chunk by chunk through pooled chunk buffers
     * ({@link Program#unit}).
     *
     * <ul>
     *   <li>The chunks this rank handles are units in step order, as the C side plans them: its own
     *       block's chunks (sent at step 0), then each reduce-scatter step's, then each allgather
     *       step's. A chunk is reduced, written and sent on as soon as it is there.
     *   <li>A unit takes a buffer when its read or receive starts and gives it back once its last
     *       send (or write) has completed; the pool grows only while sends are slower than the ring.
     *   <li>The receive of unit u + {@link #ahead} is posted as unit u is handled, and nothing waits
     *       for a send, so every wait is for data of an earlier step. (Sending a later step's chunks
     *       before an earlier step's last ones, in wave order, stalled a C rank beside Java ones.)
     * </ul>
     */
    static void allreduceLarge(Program g, Shape s) {
        int p = s.p();
        long n = s.bytes();
        long source = s.inPlace() ? s.dst() : s.src();
        long chunk = s.chunk();
        if (p == 1) {
            for (int c = 0; c < s.chunks(n); c++) {
                g.read(0, source + c * chunk, s.chunkLen(n, c), -1, -1);
                g.write(0, s.dst() + c * chunk, s.chunkLen(n, c), -1, -1);
            }
            return;
        }
        int r = s.r();
        int left = s.pos(r - 1);
        int right = s.pos(r + 1);
        int ahead = ahead(p);
        int total = s.chunks(s.blockLength(r));
        for (int step = 0; step < p - 1; step++) {
            total += s.chunks(s.blockLength(s.pos(r - step - 1))) + s.chunks(s.blockLength(s.pos(r - step)));
        }
        int[] kind = g.scratch(0, total);
        int[] step = g.scratch(1, total);
        int[] block = g.scratch(2, total);
        int[] index = g.scratch(3, total);
        int maxChunks = s.chunks(s.blockLength(0));
        int u = 0;
        for (int c = 0; c < maxChunks; c++) {
            u = unit(s, kind, step, block, index, u, 0, 0, r, c);
        }
        for (int st = 0; st < p - 1; st++) {
            for (int c = 0; c < maxChunks; c++) {
                u = unit(s, kind, step, block, index, u, 1, st, s.pos(r - st - 1), c);
            }
        }
        for (int st = 0; st < p - 1; st++) {
            for (int c = 0; c < maxChunks; c++) {
                u = unit(s, kind, step, block, index, u, 2, st, s.pos(r - st), c);
            }
        }
        for (int v = 0; v < total; v++) {
            g.unit();
        }
        int[] received = g.scratch(6, total);
        for (int v = 0; v < Math.min(ahead, total); v++) {
            received[v] = postReceive(g, s, v, kind, step, block, index, left);
        }
        for (u = 0; u < total; u++) {
            long off = s.blockOffset(block[u]) + index[u] * chunk;
            long len = s.chunkLen(s.blockLength(block[u]), index[u]);
            int last;
            if (kind[u] == 0) {
                int read = g.onUnit(g.read(0, source + off, len, -1, -1), u, true);
                last = g.onUnit(g.send(right, 0, len, s.tag(0, r), read, -1), u, false);
            } else if (kind[u] == 1) {
                g.read(0, source + off, len, -1, -1);
                int reduced = g.onUnit(g.reduce(0, 0, 0, len, received[u], -1), u, false);
                if (step[u] < p - 2) {
                    last = g.onUnit(g.send(right, 0, len, s.tag(step[u] + 1, r), reduced, -1), u, false);
                } else {
                    g.onUnit(g.write(0, s.dst() + off, len, reduced, -1), u, false);
                    last = g.onUnit(g.send(right, 0, len, s.tag(p - 1, r), reduced, -1), u, false);
                }
            } else {
                last = g.onUnit(g.write(0, s.dst() + off, len, received[u], -1), u, false);
                if (step[u] < p - 2) {
                    last = g.onUnit(g.send(right, 0, len, s.tag(p + step[u], r), received[u], -1), u, false);
                }
            }
            g.release(u, last);
            if (u + ahead < total) {
                received[u + ahead] = postReceive(g, s, u + ahead, kind, step, block, index, left);
            }
        }
    }

    /** Appends unit (kind, step, block, chunk c) when block {@code blk} has a chunk c; answers the next unit's number. */
    private static int unit(
            Shape s, int[] kind, int[] step, int[] block, int[] index, int u, int k, int st, int blk, int c) {
        if (c < 0 || c >= s.chunks(s.blockLength(blk))) {
            return u;
        }
        kind[u] = k;
        step[u] = st;
        block[u] = blk;
        index[u] = c;
        return u + 1;
    }

    /** The receive of unit {@code v}, which takes its buffer; -1 for a unit that receives nothing. */
    private static int postReceive(
            Program g, Shape s, int v, int[] kind, int[] step, int[] block, int[] index, int left) {
        if (kind[v] == 0) {
            return -1;
        }
        int tagStep = kind[v] == 1 ? step[v] : s.p() - 1 + step[v];
        return g.onUnit(
                g.receive(left, 0, s.chunkLen(s.blockLength(block[v]), index[v]), s.tag(tagStep, left), -1, -1),
                v,
                true);
    }

    // ---- REDUCE ----------------------------------------------------------------------------

    /** Binomial tree on the relative rank: acc at 0, the received vector at n. */
    static void reduceSmall(Program g, Shape s) {
        long n = s.bytes();
        int p = s.p();
        int v = s.pos(s.r() - s.root());
        boolean root = v == 0;
        int[] last = readPiece(g, s, 0, root && s.inPlace() ? s.dst() : s.src(), n);
        for (int k = 0; (1L << k) < p; k++) {
            int bit = 1 << k;
            if ((v & bit) != 0) {
                sendPiece(g, s, s.pos(v - bit + s.root()), 0, n, k, last, -1);
                return;
            }
            if (v + bit < p) {
                int from = s.pos(v + bit + s.root());
                int[] got = receivePiece(g, s, from, n, n, k, last);
                last = reduceChunks(g, s, n, 0, 0, n, last, got, null);
            }
        }
        writePiece(g, s, 0, s.dst(), n, last);
    }

    /** The large REDUCE's and ALLTOALL's look-ahead: they take in from every rank at once. */
    static int reduceAhead(int p) {
        return 3 * p + 2;
    }

    /**
     * The reduce-scatter of ALLREDUCE, then every rank but the root sends its block {@code (r + 1)
     * mod p} to the root (step p - 1), through pooled chunk buffers in step order; the root writes
     * each chunk it takes in at once.
     */
    static void reduceLarge(Program g, Shape s) {
        int p = s.p();
        int r = s.r();
        long n = s.bytes();
        boolean root = r == s.root();
        long source = root && s.inPlace() ? s.dst() : s.src();
        long chunk = s.chunk();
        if (p == 1) {
            for (int c = 0; c < s.chunks(n); c++) {
                g.read(0, source + c * chunk, s.chunkLen(n, c), -1, -1);
                g.write(0, s.dst() + c * chunk, s.chunkLen(n, c), -1, -1);
            }
            return;
        }
        int left = s.pos(r - 1);
        int right = s.pos(r + 1);
        int ahead = reduceAhead(p);
        int total = s.chunks(s.blockLength(r));
        for (int st = 0; st < p - 1; st++) {
            total += s.chunks(s.blockLength(s.pos(r - st - 1)));
        }
        if (root) {
            for (int q = 0; q < p; q++) {
                total += q == r ? 0 : s.chunks(s.blockLength(s.pos(q + 1)));
            }
        }
        int[] kind = g.scratch(0, total);
        int[] step = g.scratch(1, total);
        int[] block = g.scratch(2, total);
        int[] index = g.scratch(3, total);
        int[] from = g.scratch(4, total);
        int maxChunks = s.chunks(s.blockLength(0));
        int u = 0;
        for (int c = 0; c < maxChunks; c++) {
            u = unit(s, kind, step, block, index, u, 0, 0, r, c);
        }
        for (int st = 0; st < p - 1; st++) {
            for (int c = 0; c < maxChunks; c++) {
                u = unit(s, kind, step, block, index, u, 1, st, s.pos(r - st - 1), c);
            }
        }
        for (int c = 0; root && c < maxChunks; c++) {
            for (int q = 0; q < p; q++) {
                if (q != r) {
                    int before = u;
                    u = unit(s, kind, step, block, index, u, 3, p - 1, s.pos(q + 1), c);
                    if (u > before) {
                        from[before] = q;
                    }
                }
            }
        }
        for (int v = 0; v < total; v++) {
            g.unit();
        }
        int[] received = g.scratch(6, total);
        for (int v = 0; v < Math.min(ahead, total); v++) {
            received[v] = reduceReceive(g, s, v, kind, step, block, index, from, left);
        }
        for (u = 0; u < total; u++) {
            long off = s.blockOffset(block[u]) + index[u] * chunk;
            long len = s.chunkLen(s.blockLength(block[u]), index[u]);
            int last;
            if (kind[u] == 0) {
                int read = g.onUnit(g.read(0, source + off, len, -1, -1), u, true);
                last = g.onUnit(g.send(right, 0, len, s.tag(0, r), read, -1), u, false);
            } else if (kind[u] == 1) {
                g.read(0, source + off, len, -1, -1);
                last = g.onUnit(g.reduce(0, 0, 0, len, received[u], -1), u, false);
                if (step[u] < p - 2) {
                    last = g.onUnit(g.send(right, 0, len, s.tag(step[u] + 1, r), last, -1), u, false);
                } else if (root) {
                    last = g.onUnit(g.write(0, s.dst() + off, len, last, -1), u, false);
                } else {
                    last = g.onUnit(g.send(s.root(), 0, len, s.tag(p - 1, r), last, -1), u, false);
                }
            } else {
                last = g.onUnit(g.write(0, s.dst() + off, len, received[u], -1), u, false);
            }
            g.release(u, last);
            if (u + ahead < total) {
                received[u + ahead] = reduceReceive(g, s, u + ahead, kind, step, block, index, from, left);
            }
        }
    }

    private static int reduceReceive(
            Program g, Shape s, int v, int[] kind, int[] step, int[] block, int[] index, int[] from, int left) {
        if (kind[v] == 0) {
            return -1;
        }
        int sender = kind[v] == 1 ? left : from[v];
        int tagStep = kind[v] == 1 ? step[v] : s.p() - 1;
        return g.onUnit(
                g.receive(sender, 0, s.chunkLen(s.blockLength(block[v]), index[v]), s.tag(tagStep, sender), -1, -1),
                v,
                true);
    }

    // ---- BCAST -----------------------------------------------------------------------------

    /** Binomial tree on the relative rank, step 0: the data at 0. */
    static void bcastSmall(Program g, Shape s) {
        long n = s.bytes();
        int p = s.p();
        int v = s.pos(s.r() - s.root());
        int[] have;
        int below;
        if (v == 0) {
            have = readPiece(g, s, 0, s.dst(), n);
            below = 32 - Integer.numberOfLeadingZeros(p - 1);
        } else {
            int parent = v & (v - 1);
            have = receivePiece(g, s, s.pos(parent + s.root()), 0, n, 0, null);
            below = Integer.numberOfTrailingZeros(v);
        }
        for (int k = below - 1; k >= 0; k--) {
            long child = v + (1L << k);
            if (child < p) {
                sendPiece(g, s, s.pos(child + s.root()), 0, n, 0, have, -1);
            }
        }
        if (v != 0) {
            writePiece(g, s, 0, s.dst(), n, have);
        }
    }

    /** Staging chunks of the pipelined BCAST chain, and how many receives it posts ahead. */
    static final int CHAIN_SLOTS = 8;

    static final int CHAIN_AHEAD = 4;

    /**
     * A pipelined chain on the relative rank, step 0, through {@link #CHAIN_SLOTS} staging chunks:
     * chunk c uses slot c mod slots once chunk c - slots has been sent on (or written, at the end
     * of the chain). A slot waits only on the next rank down the chain, never back up it.
     */
    static void bcastLarge(Program g, Shape s) {
        long n = s.bytes();
        int p = s.p();
        int v = s.pos(s.r() - s.root());
        int next = s.pos(v + 1 + s.root());
        int previous = s.pos(v - 1 + s.root());
        long chunk = s.chunk();
        int chunks = s.chunks(n);
        int[] slotLast = g.scratch(5, CHAIN_SLOTS);
        java.util.Arrays.fill(slotLast, -1);
        int[] received = g.scratch(6, chunks);
        if (v > 0) {
            for (int c = 0; c < Math.min(CHAIN_AHEAD, chunks); c++) {
                received[c] =
                        g.receive(previous, (c % CHAIN_SLOTS) * chunk, s.chunkLen(n, c), s.tag(0, previous), -1, -1);
            }
        }
        for (int c = 0; c < chunks; c++) {
            int slot = c % CHAIN_SLOTS;
            long at = slot * chunk;
            long len = s.chunkLen(n, c);
            int last;
            if (v == 0) {
                int read = g.read(at, s.dst() + c * chunk, len, slotLast[slot], -1);
                last = p > 1 ? g.send(next, at, len, s.tag(0, s.r()), read, -1) : read;
            } else {
                last = g.write(at, s.dst() + c * chunk, len, received[c], -1);
                if (v < p - 1) {
                    last = g.send(next, at, len, s.tag(0, s.r()), received[c], -1);
                }
                int ahead = c + CHAIN_AHEAD;
                if (ahead < chunks) {
                    int aheadSlot = ahead % CHAIN_SLOTS;
                    received[ahead] = g.receive(
                            previous,
                            aheadSlot * chunk,
                            s.chunkLen(n, ahead),
                            s.tag(0, previous),
                            aheadSlot == slot ? last : slotLast[aheadSlot],
                            -1);
                }
            }
            slotLast[slot] = last;
        }
    }

    // ---- ALLGATHER -------------------------------------------------------------------------

    /**
     * Bruck's dissemination: W[i] (the block of rank r + i) at i * n. Local operations complete
     * when the in-order cursor passes them, so only waits for requests are spelled out.
     */
    static void allgatherSmall(Program g, Shape s) {
        long n = s.bytes();
        int p = s.p();
        int r = s.r();
        int rounds = 32 - Integer.numberOfLeadingZeros(p - 1);
        int firstReceive = g.size();
        int[] stepEnd = new int[rounds];
        for (int k = 0; k < rounds; k++) {
            int d = 1 << k;
            int c = Math.min(d, p - d);
            receivePiece(g, s, s.pos(r + d), d * n, c * n, k, null);
            stepEnd[k] = g.size();
        }
        readPiece(g, s, 0, s.inPlace() ? s.dst() + r * n : s.src(), n);
        for (int k = 0; k < rounds; k++) {
            int d = 1 << k;
            int c = Math.min(d, p - d);
            for (int op : sendPiece(g, s, s.pos(r - d), 0, c * n, k, null, -1)) {
                if (k > 0) {
                    g.join(op, firstReceive, stepEnd[k - 1]);
                }
            }
        }
        int allReceived = g.local(0, -1, -1);
        g.join(allReceived, firstReceive, rounds == 0 ? firstReceive : stepEnd[rounds - 1]);
        for (int i = 0; i < p; i++) {
            if (i != 0 || !s.inPlace()) {
                g.write(i * n, s.dst() + s.pos(r + i) * n, n, allReceived, -1);
            }
        }
    }

    /**
     * Ring, through pooled chunk buffers in step order as the ring allreduce: this rank's own
     * chunks (read, written to its block, sent at step 0), then the chunks of each step (written,
     * sent on at the next step).
     */
    static void allgatherLarge(Program g, Shape s) {
        long n = s.bytes();
        int p = s.p();
        int r = s.r();
        int left = s.pos(r - 1);
        int right = s.pos(r + 1);
        long chunk = s.chunk();
        int chunks = s.chunks(n);
        int ahead = ahead(p);
        int total = chunks * p;
        int[] step = g.scratch(1, total);
        int[] index = g.scratch(3, total);
        int u = 0;
        for (int st = -1; st < p - 1; st++) {
            for (int c = 0; c < chunks; c++) {
                step[u] = st;
                index[u] = c;
                u++;
            }
        }
        for (int v = 0; v < total; v++) {
            g.unit();
        }
        int[] received = g.scratch(6, total);
        for (int v = 0; v < Math.min(ahead, total); v++) {
            received[v] = gatherReceive(g, s, v, step, index, left);
        }
        long source = s.inPlace() ? s.dst() + r * n : s.src();
        for (u = 0; u < total; u++) {
            long off = index[u] * chunk;
            long len = s.chunkLen(n, index[u]);
            int last;
            if (step[u] < 0) {
                last = g.onUnit(g.read(0, source + off, len, -1, -1), u, true);
                if (!s.inPlace()) {
                    last = g.onUnit(g.write(0, s.dst() + r * n + off, len, last, -1), u, false);
                }
                if (p > 1) {
                    last = g.onUnit(g.send(right, 0, len, s.tag(0, r), last, -1), u, false);
                }
            } else {
                int blk = s.pos(r - step[u] - 1);
                last = g.onUnit(g.write(0, s.dst() + blk * n + off, len, received[u], -1), u, false);
                if (step[u] < p - 2) {
                    last = g.onUnit(g.send(right, 0, len, s.tag(step[u] + 1, r), received[u], -1), u, false);
                }
            }
            g.release(u, last);
            if (u + ahead < total) {
                received[u + ahead] = gatherReceive(g, s, u + ahead, step, index, left);
            }
        }
    }

    private static int gatherReceive(Program g, Shape s, int v, int[] step, int[] index, int left) {
        if (step[v] < 0) {
            return -1;
        }
        return g.onUnit(g.receive(left, 0, s.chunkLen(s.bytes(), index[v]), s.tag(step[v], left), -1, -1), v, true);
    }

    // ---- ALLTOALL --------------------------------------------------------------------------

    /**
     * Pairwise exchange with every step in flight, through pooled chunk buffers ordered by wave:
     * in wave c, chunk c of the block for each rank r + s (read, then sent at step s), then chunk c
     * of the block from each rank r - s (received, written). In place, a wave reads its chunks
     * before it writes any: a chunk of block j is read before the chunk of block j that arrives is
     * written.
     */
    static void alltoall(Program g, Shape s) {
        long n = s.bytes();
        int p = s.p();
        int r = s.r();
        long chunk = s.chunk();
        int chunks = s.chunks(n);
        long source = s.inPlace() ? s.dst() : s.src();
        int ahead = reduceAhead(p);
        int total = 2 * (p - 1) * chunks + (s.inPlace() ? 0 : chunks);
        int[] kind = g.scratch(0, total);
        int[] peer = g.scratch(4, total);
        int[] index = g.scratch(3, total);
        int u = 0;
        for (int c = 0; c < chunks; c++) {
            if (!s.inPlace()) {
                kind[u] = 0;
                peer[u] = r;
                index[u++] = c;
            }
            for (int st = 1; st < p; st++) {
                kind[u] = 1;
                peer[u] = s.pos(r + st);
                index[u++] = c;
            }
            for (int st = 1; st < p; st++) {
                kind[u] = 2;
                peer[u] = s.pos(r - st);
                index[u++] = c;
            }
        }
        for (int v = 0; v < total; v++) {
            g.unit();
        }
        int[] received = g.scratch(6, total);
        for (int v = 0; v < Math.min(ahead, total); v++) {
            received[v] = exchangeReceive(g, s, v, kind, peer, index);
        }
        for (u = 0; u < total; u++) {
            long off = peer[u] * n + index[u] * chunk;
            long len = s.chunkLen(n, index[u]);
            int last;
            if (kind[u] == 0) {
                last = g.onUnit(g.read(0, source + off, len, -1, -1), u, true);
                last = g.onUnit(g.write(0, s.dst() + off, len, last, -1), u, false);
            } else if (kind[u] == 1) {
                int read = g.onUnit(g.read(0, source + off, len, -1, -1), u, true);
                last = g.onUnit(g.send(peer[u], 0, len, s.tag(s.pos(peer[u] - r), r), read, -1), u, false);
            } else {
                last = g.onUnit(g.write(0, s.dst() + off, len, received[u], -1), u, false);
            }
            g.release(u, last);
            if (u + ahead < total) {
                received[u + ahead] = exchangeReceive(g, s, u + ahead, kind, peer, index);
            }
        }
    }

    private static int exchangeReceive(Program g, Shape s, int v, int[] kind, int[] peer, int[] index) {
        if (kind[v] != 2) {
            return -1;
        }
        int step = s.pos(s.r() - peer[v]);
        return g.onUnit(g.receive(peer[v], 0, s.chunkLen(s.bytes(), index[v]), s.tag(step, peer[v]), -1, -1), v, true);
    }
}
