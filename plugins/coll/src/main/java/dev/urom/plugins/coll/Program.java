// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.plugins.coll.reduce.Reductions;
import dev.urom.ucx.UcpEndpoint;
import dev.urom.ucx.UcpLayout;
import dev.urom.ucx.UcpTagSlots;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One phase of a collective (a team's HELLOs, an agreement, a data phase) as a list of operations,
 * started strictly in list order, each once the operations it depends on are complete: chunk
 * sends and receives (UCP tag slots), reductions, reads and writes of the host's memory, and
 * local steps. The builders order the list so that every rank progresses, which makes chunks
 * pipeline: a chunk is sent on as soon as it has been received or reduced.
 *
 * <p>An operation's bytes lie in the arena (a direct buffer, at an offset) or in the chunk buffer
 * of its unit ({@link #unit}): a pool buffer that the unit's first operation takes and that goes
 * back to the pool once the operation named by {@link #release} has completed, so that a large
 * collective needs a few chunks per peer, not its size, and no receive waits for a send.
 *
 * <p>Operations live in parallel primitive arrays, the arena and the pool grow and are reused
 * from phase to phase: a phase allocates nothing per chunk in the steady state. A completion is
 * tested only when something waits for it (the operation at the cursor, a unit's last operation)
 * or at the end.
 *
 * <p>Failures: a failed request, or a host read or write the kernel refuses (the host exited or
 * changed its mappings), fails the phase ({@link #failure}) and with it the team. Not
 * thread-safe: the plugin's thread. Owns its arena and pool, which it hands over ({@link
 * #takeMemory}) when abandoned while UCX may still use them.
 */
final class Program {
    static final byte SEND = 1;
    static final byte RECV = 2;
    static final byte REDUCE = 3;
    static final byte READ = 4;
    static final byte WRITE = 5;
    static final byte LOCAL = 7;

    private static final byte IDLE = 0;
    private static final byte RUNNING = 1;
    private static final byte DONE = 2;
    private static final long FULL_MASK = -1L;

    /** A step run on the plugin's thread when its turn comes ({@link #LOCAL}); returns NONE or the reason to fail. */
    interface LocalStep {
        Reason run(Program program, long argument);
    }

    private final UcpTagSlots slots;
    private int size;
    private byte[] kind = new byte[64];
    private byte[] state = new byte[64];
    private int[] peer = new int[64];
    private long[] x = new long[64];
    private long[] y = new long[64];
    private long[] z = new long[64];
    private long[] length = new long[64];
    private long[] tag = new long[64];
    private int[] dep0 = new int[64];
    private int[] dep1 = new int[64];
    private int[] joinFrom = new int[64];
    private int[] joinTo = new int[64];
    private int[] slot = new int[64];
    private int cursor;
    private int firstOpen;

    private final int[][] scratch = new int[7][0];
    /** Per operation: -1 (its address is an arena offset) or the unit whose chunk buffer it uses. */
    private int[] unitOf = new int[64];
    /** Per operation: whether it takes its unit's buffer from the pool when it starts. */
    private boolean[] acquires = new boolean[64];

    private int units;
    private int[] unitBuffer = new int[64];
    private int[] unitLast = new int[64];
    private int[] live = new int[64];
    private int liveCount;
    private long poolChunk;
    private ByteBuffer[] pool = new ByteBuffer[0];
    private long[] poolAddress = new long[0];
    private int[] freeBuffers = new int[0];
    private int freeCount;
    private final Reductions reductions = new Reductions();
    private ByteBuffer arena = ByteBuffer.allocateDirect(0);
    /** Views of the arena for the reductions' operands, moved by position, never reallocated per chunk. */
    private ByteBuffer out = arena;

    private ByteBuffer left = arena;
    private ByteBuffer right = arena;
    private long base;
    private UcpEndpoint[] endpoints;
    private HostMemory host;
    private DataType dtype;
    private ReduceOp op;
    private LocalStep local;
    private Reason failure = Reason.NONE;
    private long failureDetail;
    /** The host's pidfd was polled in this {@link #advance}: one poll covers every write of the call. */
    private boolean hostSeenAlive;

    Program(UcpTagSlots slots) {
        this.slots = slots;
    }

    /**
     * Empties the list for a new phase with an arena of at least {@code arenaBytes} (its old
     * content kept when it does not grow), the endpoints by rank (null for this rank), the host,
     * the reduction, and the local step.
     */
    void reset(
            long arenaBytes, UcpEndpoint[] endpoints, HostMemory host, DataType dtype, ReduceOp op, LocalStep local) {
        reset(arenaBytes, 0, endpoints, host, dtype, op, local);
    }

    /**
     * As {@link #reset(long, UcpEndpoint[], HostMemory, DataType, ReduceOp, LocalStep)}, with
     * chunk buffers of {@code chunkBytes} for units ({@link #unit}); the pool is kept while the
     * chunk size stays.
     */
    void reset(
            long arenaBytes,
            long chunkBytes,
            UcpEndpoint[] endpoints,
            HostMemory host,
            DataType dtype,
            ReduceOp op,
            LocalStep local) {
        if (firstOpen < size && anyRunning()) {
            throw new IllegalStateException("a phase with requests in flight cannot be reset");
        }
        for (int k = 0; k < liveCount; k++) {
            freeBuffers[freeCount++] = unitBuffer[live[k]];
        }
        liveCount = 0;
        if (chunkBytes != poolChunk && chunkBytes != 0) {
            pool = new ByteBuffer[0];
            poolAddress = new long[0];
            freeBuffers = new int[0];
            freeCount = 0;
            poolChunk = chunkBytes;
        }
        units = 0;
        liveCount = 0;
        if (arenaBytes > Integer.MAX_VALUE - 64) {
            throw new OutOfMemoryError("an arena of " + arenaBytes + " bytes");
        }
        if (arena.capacity() < arenaBytes) {
            int grown = (int) Math.min(
                    Integer.MAX_VALUE - 64,
                    Math.max(arenaBytes, Math.min(2L * arena.capacity(), Integer.MAX_VALUE - 64)));
            arena = ByteBuffer.allocateDirect(Math.max(grown, 64)).order(ByteOrder.LITTLE_ENDIAN);
            base = Pointer.nativeValue(Native.getDirectBufferPointer(arena));
            out = arena.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            left = arena.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            right = arena.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        }
        this.endpoints = endpoints;
        this.host = host;
        this.dtype = dtype;
        this.op = op;
        this.local = local;
        size = 0;
        cursor = 0;
        firstOpen = 0;
        failure = Reason.NONE;
        failureDetail = 0;
    }

    private boolean anyRunning() {
        for (int i = firstOpen; i < size; i++) {
            if (state[i] == RUNNING) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reusable int array number {@code which} (0 to 6) of at least {@code size} elements, its
     * content left from earlier use: the builders' bookkeeping, which grows but is not allocated
     * per collective.
     */
    int[] scratch(int which, int size) {
        if (scratch[which].length < size) {
            scratch[which] = new int[Math.max(size, 2 * scratch[which].length)];
        }
        return scratch[which];
    }

    ByteBuffer arena() {
        return arena;
    }

    int size() {
        return size;
    }

    private int add(byte k, int p, long a, long b, long c, long len, long t, int d0, int d1) {
        if (size == kind.length) {
            int n = size * 2;
            kind = Arrays.copyOf(kind, n);
            state = Arrays.copyOf(state, n);
            peer = Arrays.copyOf(peer, n);
            x = Arrays.copyOf(x, n);
            y = Arrays.copyOf(y, n);
            z = Arrays.copyOf(z, n);
            length = Arrays.copyOf(length, n);
            tag = Arrays.copyOf(tag, n);
            dep0 = Arrays.copyOf(dep0, n);
            dep1 = Arrays.copyOf(dep1, n);
            joinFrom = Arrays.copyOf(joinFrom, n);
            joinTo = Arrays.copyOf(joinTo, n);
            slot = Arrays.copyOf(slot, n);
            unitOf = Arrays.copyOf(unitOf, n);
            acquires = Arrays.copyOf(acquires, n);
        }
        int i = size++;
        kind[i] = k;
        state[i] = IDLE;
        peer[i] = p;
        x[i] = a;
        y[i] = b;
        z[i] = c;
        length[i] = len;
        tag[i] = t;
        dep0[i] = d0;
        dep1[i] = d1;
        joinFrom[i] = 0;
        joinTo[i] = 0;
        slot[i] = -1;
        unitOf[i] = -1;
        acquires[i] = false;
        return i;
    }

    /** A new unit: a chunk that lives in a pool buffer from its first operation until {@link #release}'s operation completes. */
    int unit() {
        if (units == unitBuffer.length) {
            unitBuffer = Arrays.copyOf(unitBuffer, 2 * units);
            unitLast = Arrays.copyOf(unitLast, 2 * units);
        }
        unitBuffer[units] = -1;
        unitLast[units] = -1;
        return units++;
    }

    /** Makes operation {@code i} use unit {@code u}'s buffer at offset {@code x}; {@code first}: it takes the buffer. */
    int onUnit(int i, int u, boolean first) {
        unitOf[i] = u;
        acquires[i] = first;
        return i;
    }

    /** Unit {@code u}'s buffer goes back to the pool once operation {@code last} has completed. */
    void release(int u, int last) {
        unitLast[u] = last;
    }

    /** Sends {@code len} bytes at arena offset {@code at} to rank {@code to} with {@code t}, after {@code d0} and {@code d1} (-1: none). */
    int send(int to, long at, long len, long t, int d0, int d1) {
        return add(SEND, to, at, 0, 0, len, t, d0, d1);
    }

    /** Receives {@code len} bytes from rank {@code from} with {@code t} at arena offset {@code at}. */
    int receive(int from, long at, long len, long t, int d0, int d1) {
        return add(RECV, from, at, 0, 0, len, t, d0, d1);
    }

    /** arena[out] = op(arena[a], arena[b]) for {@code len} bytes. */
    int reduce(long out, long a, long b, long len, int d0, int d1) {
        return add(REDUCE, -1, out, a, b, len, 0, d0, d1);
    }

    /** Reads {@code len} bytes of the host at {@code remote} into arena offset {@code at}. */
    int read(long at, long remote, long len, int d0, int d1) {
        return add(READ, -1, at, remote, 0, len, 0, d0, d1);
    }

    /** Writes {@code len} bytes at arena offset {@code at} to the host at {@code remote}. */
    int write(long at, long remote, long len, int d0, int d1) {
        return add(WRITE, -1, at, remote, 0, len, 0, d0, d1);
    }

    /** Runs the local step with {@code argument} (nothing when the phase has none: a marker to wait for). */
    int local(long argument, int d0, int d1) {
        return add(LOCAL, -1, argument, 0, 0, 0, 0, d0, d1);
    }

    /** Makes operation {@code i} also wait for every operation in {@code [from, to)}. */
    void join(int i, int from, int to) {
        joinFrom[i] = from;
        joinTo[i] = to;
    }

    Reason failure() {
        return failure;
    }

    long failureDetail() {
        return failureDetail;
    }

    /** Fails the phase (the first failure stays). */
    void fail(Reason reason, long detail) {
        if (failure == Reason.NONE) {
            failure = reason;
            failureDetail = detail;
        }
    }

    /** Whether every operation has completed, or the phase failed. */
    boolean finished() {
        return failure != Reason.NONE || (cursor == size && firstOpen == size);
    }

    /**
     * Starts what can start, in order, and tests what is waited for.
     *
     * @return whether anything changed
     */
    boolean advance() {
        hostSeenAlive = false;
        boolean changed = false;
        releaseDone();
        while (failure == Reason.NONE && cursor < size && ready(cursor)) {
            start(cursor++);
            changed = true;
            if (freeCount == 0 && liveCount > 0) {
                releaseDone();
            }
        }
        while (failure == Reason.NONE && firstOpen < cursor && done(firstOpen)) {
            firstOpen++;
            changed = true;
        }
        if (failure == Reason.NONE && cursor == size) {
            for (int i = firstOpen; i < size; i++) {
                done(i);
            }
        }
        return changed;
    }

    private boolean ready(int i) {
        if ((dep0[i] >= 0 && !done(dep0[i])) || (dep1[i] >= 0 && !done(dep1[i]))) {
            return false;
        }
        for (int j = joinFrom[i]; j < joinTo[i]; j++) {
            if (!done(j)) {
                return false;
            }
        }
        return true;
    }

    private boolean done(int i) {
        if (state[i] == RUNNING) {
            int status = slots.test(slot[i]);
            if (status == UcpLayout.UCS_INPROGRESS) {
                return false;
            }
            finishRequest(i, status);
        }
        return state[i] == DONE;
    }

    private void finishRequest(int i, int status) {
        slots.free(slot[i]);
        slot[i] = -1;
        state[i] = DONE;
        if (status != UcpLayout.UCS_OK) {
            UcpEndpoint endpoint = endpoints[peer[i]];
            if (endpoint != null && endpoint.failure() != 0) {
                fail(Reason.PEER_FAILED, peer[i]);
            } else if (status == UcpLayout.UCS_ERR_CONNECTION_RESET
                    || status == UcpLayout.UCS_ERR_UNREACHABLE
                    || status == UcpLayout.UCS_ERR_ENDPOINT_TIMEOUT) {
                fail(Reason.PEER_FAILED, peer[i]);
            } else {
                fail(Reason.TRANSPORT, -status & 0xffff_ffffL);
            }
        }
    }

    private void start(int i) {
        if (acquires[i]) {
            take(unitOf[i]);
        }
        switch (kind[i]) {
            case SEND, RECV -> {
                int s = slots.acquire();
                int status = kind[i] == SEND
                        ? slots.postSend(s, endpoints[peer[i]], address(i), length[i], tag[i])
                        : slots.postReceive(s, address(i), length[i], tag[i], FULL_MASK);
                slot[i] = s;
                state[i] = RUNNING;
                if (status != UcpLayout.UCS_INPROGRESS) {
                    finishRequest(i, status);
                }
                return;
            }
            case REDUCE -> {
                if (unitOf[i] >= 0) {
                    ByteBuffer chunk = pool[unitBuffer[unitOf[i]]];
                    reductions.reduce(dtype.code(), op.code(), chunk, chunk, right.position((int) z[i]), (int)
                            (length[i] / dtype.size()));
                } else {
                    reductions.reduce(
                            dtype.code(),
                            op.code(),
                            out.position((int) x[i]),
                            left.position((int) y[i]),
                            right.position((int) z[i]),
                            (int) (length[i] / dtype.size()));
                }
            }
            case READ -> hostIo(false, i);
            case WRITE -> hostIo(true, i);
            case LOCAL -> {
                Reason reason = local == null ? Reason.NONE : local.run(this, x[i]);
                if (reason != Reason.NONE) {
                    fail(reason, 0);
                }
            }
            default -> throw new IllegalStateException("operation kind " + kind[i]);
        }
        state[i] = DONE;
    }

    /** Operation i's native address: in the arena, or in its unit's buffer. */
    private long address(int i) {
        return unitOf[i] < 0 ? base + x[i] : poolAddress[unitBuffer[unitOf[i]]] + x[i];
    }

    /** Gives unit u a buffer from the pool, growing the pool when none is free (the only allocation). */
    private void take(int u) {
        if (freeCount == 0) {
            int n = pool.length;
            pool = Arrays.copyOf(pool, n + 1);
            poolAddress = Arrays.copyOf(poolAddress, n + 1);
            freeBuffers = Arrays.copyOf(freeBuffers, n + 1);
            pool[n] = ByteBuffer.allocateDirect((int) poolChunk).order(ByteOrder.LITTLE_ENDIAN);
            poolAddress[n] = Pointer.nativeValue(Native.getDirectBufferPointer(pool[n]));
            freeBuffers[freeCount++] = n;
        }
        unitBuffer[u] = freeBuffers[--freeCount];
        if (liveCount == live.length) {
            live = Arrays.copyOf(live, 2 * liveCount);
        }
        live[liveCount++] = u;
    }

    /** Returns to the pool the buffers of units whose last operation has completed. */
    private void releaseDone() {
        for (int k = liveCount - 1; k >= 0; k--) {
            int u = live[k];
            int last = unitLast[u];
            if (last >= 0 && state[last] != IDLE && done(last)) {
                freeBuffers[freeCount++] = unitBuffer[u];
                live[k] = live[--liveCount];
            }
        }
    }

    private void hostIo(boolean write, int i) {
        if (length[i] == 0) {
            return;
        }
        if (write && !hostSeenAlive) {
            if (host.exited()) {
                fail(Reason.HOST_GONE, 0);
                return;
            }
            hostSeenAlive = true;
        }
        Reason reason = write ? host.write(address(i), y[i], length[i]) : host.read(address(i), y[i], length[i]);
        if (reason != Reason.NONE) {
            fail(reason, 0);
        }
    }

    /**
     * Abandons the phase: receives in flight are cancelled and every request is given back to UCX
     * without waiting.
     *
     * @return whether UCX may still use the arena (the caller must then keep it until the worker is closed)
     */
    boolean abandon() {
        boolean inFlight = false;
        for (int i = firstOpen; i < size; i++) {
            if (state[i] == RUNNING) {
                if (kind[i] == RECV) {
                    slots.cancel(slot[i]);
                }
                slots.release(slot[i]);
                slots.free(slot[i]);
                slot[i] = -1;
                state[i] = DONE;
                inFlight = true;
            }
        }
        cursor = size;
        firstOpen = size;
        return inFlight;
    }

    /**
     * Hands the arena and the chunk buffers over (after {@link #abandon} answered true: UCX may
     * still write into them) and starts afresh without them.
     */
    java.util.List<ByteBuffer> takeMemory() {
        java.util.List<ByteBuffer> taken = new java.util.ArrayList<>(Arrays.asList(pool));
        taken.add(takeArena());
        pool = new ByteBuffer[0];
        poolAddress = new long[0];
        freeBuffers = new int[0];
        freeCount = 0;
        liveCount = 0;
        return taken;
    }

    private ByteBuffer takeArena() {
        ByteBuffer taken = arena;
        arena = ByteBuffer.allocateDirect(0);
        out = arena;
        left = arena;
        right = arena;
        base = 0;
        return taken;
    }
}
