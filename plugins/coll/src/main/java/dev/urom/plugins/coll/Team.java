// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import dev.urom.plugins.coll.protocol.Agree;
import dev.urom.plugins.coll.protocol.AgreeField;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollNotification.Header;
import dev.urom.plugins.coll.protocol.CollProtocolException;
import dev.urom.plugins.coll.protocol.CollTag;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.CommandType;
import dev.urom.plugins.coll.protocol.Hello;
import dev.urom.plugins.coll.protocol.MessageKind;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import dev.urom.ucx.UcpEndpoint;
import dev.urom.ucx.UcpTagSlots;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * A team on this rank: its creation (HELLOs to and from every other member), then its collectives
 * one at a time in sequence order, each an agreement ({@link Agree} in dissemination rounds) and,
 * when the agreement passes, a data phase built by {@link Algorithms}; every answer goes to {@code
 * answers}. A failure of the network, the host or the clock fails the team: the collective
 * running and the queued ones get its reason, later POSTs TEAM_FAILED. A refusal or a mismatch
 * does not. Not thread-safe: the
 * plugin's thread. Arenas that UCX may still use after a failure go to {@code abandoned}.
 */
final class Team {
    enum State {
        CREATING,
        READY,
        FAILED
    }

    private static final int HELLO_BYTES = CollLayout.HELLO_SIZE;
    private static final int AGREE_BYTES = CollLayout.AGREE_SIZE;

    final long teamId;
    final long destId;
    final int size;
    final int rank;
    final long chunkBytes;
    final long smallBytes;
    final long timeoutNs;
    private final UcpEndpoint[] endpoints;
    private final Connection connection;
    private final Consumer<WorkerNotification> answers;
    private final Consumer<ByteBuffer> abandoned;
    private final Program program;
    private final ArrayDeque<Collective> queue = new ArrayDeque<>();
    private final Hello hello;
    private WorkerCommand createCommand;
    private long createCookie;
    private State state = State.CREATING;
    private boolean created;
    private long failedRank;
    private long deadline;
    private long nextSequence;
    private Collective current;
    private boolean dataPhase;
    private int agreeRounds;

    Team(
            long teamId,
            long destId,
            int size,
            int rank,
            Hello hello,
            UcpEndpoint[] endpoints,
            Connection connection,
            UcpTagSlots slots,
            Consumer<WorkerNotification> answers,
            Consumer<ByteBuffer> abandoned) {
        this.teamId = teamId;
        this.destId = destId;
        this.size = size;
        this.rank = rank;
        this.hello = hello;
        this.chunkBytes = hello.chunkBytes();
        this.smallBytes = hello.smallBytes();
        this.timeoutNs = hello.timeoutMs() * 1_000_000L;
        this.endpoints = endpoints;
        this.connection = connection;
        this.answers = answers;
        this.abandoned = abandoned;
        this.program = new Program(slots);
    }

    State state() {
        return state;
    }

    /** Whether the team's creation succeeded (a team that failed before is forgotten). */
    boolean created() {
        return created;
    }

    long failedRank() {
        return failedRank;
    }

    /** Collectives posted and not answered. */
    int pending() {
        return queue.size() + (current == null ? 0 : 1);
    }

    boolean busy() {
        return state == State.CREATING || current != null || !queue.isEmpty();
    }

    boolean uses(UcpEndpoint endpoint) {
        for (UcpEndpoint e : endpoints) {
            if (e == endpoint) {
                return true;
            }
        }
        return false;
    }

    int rankOf(UcpEndpoint endpoint) {
        for (int i = 0; i < endpoints.length; i++) {
            if (endpoints[i] == endpoint) {
                return i;
            }
        }
        return -1;
    }

    /** Sends this rank's HELLO to every other member and posts the receives of theirs. */
    void startCreation(WorkerCommand command, long cookie, long now) {
        createCommand = command;
        createCookie = cookie;
        deadline = now + timeoutNs;
        program.reset(
                (long) HELLO_BYTES * (size + 1),
                endpoints,
                connection == null ? null : connection.memory(),
                null,
                null,
                this::checkHello);
        program.arena().put(0, hello.encode());
        for (int j = 0; j < size; j++) {
            if (j != rank) {
                program.receive(
                        j,
                        (long) HELLO_BYTES * (1 + j),
                        HELLO_BYTES,
                        CollTag.of(MessageKind.HELLO, teamId, 0, 0, j),
                        -1,
                        -1);
            }
        }
        for (int j = 0; j < size; j++) {
            if (j != rank) {
                program.send(j, 0, HELLO_BYTES, CollTag.of(MessageKind.HELLO, teamId, 0, 0, rank), -1, -1);
            }
        }
        for (int j = 0, receive = 0; j < size; j++) {
            if (j != rank) {
                program.local(j, receive++, -1);
            }
        }
    }

    /** Sends a refusing HELLO to every other member; the team is answered already and only waits for its sends. */
    void startRefusal(long now) {
        state = State.FAILED;
        deadline = now + timeoutNs;
        program.reset(HELLO_BYTES, endpoints, null, null, null, null);
        program.arena().put(0, hello.encode());
        for (int j = 0; j < size; j++) {
            if (j != rank) {
                program.send(j, 0, HELLO_BYTES, CollTag.of(MessageKind.HELLO, teamId, 0, 0, rank), -1, -1);
            }
        }
    }

    /** Whether a refusal's sends are done (or its time is up, when they are given up). */
    boolean refusalDone(long now) {
        program.advance();
        if (program.finished()) {
            return true;
        }
        if (now - deadline > 0) {
            abandonProgram();
            return true;
        }
        return false;
    }

    private Reason checkHello(Program p, long j) {
        byte[] bytes = new byte[HELLO_BYTES];
        p.arena().get((int) (HELLO_BYTES * (1 + j)), bytes);
        Reason reason;
        try {
            reason = hello.disagreement(Hello.decode(bytes), j);
        } catch (CollProtocolException e) {
            reason = Reason.BAD_MEMBERS;
        }
        if (reason != null) {
            failedRank = j;
            return reason;
        }
        return Reason.NONE;
    }

    /** Queues a POST that was given {@link #nextSequence()}. */
    void enqueue(Collective collective) {
        queue.add(collective);
    }

    long nextSequence() {
        return nextSequence++;
    }

    /** The sequence number the next POST will get. */
    long peekSequence() {
        return nextSequence;
    }

    /**
     * Moves the team on: creation, then the collectives in order.
     *
     * @return whether anything changed
     */
    boolean advance(long now) {
        boolean any = false;
        boolean changed;
        do {
            changed = step(now);
            any |= changed;
        } while (changed);
        return any;
    }

    private boolean step(long now) {
        switch (state) {
            case CREATING -> {
                boolean changed = program.advance();
                if (program.failure() != Reason.NONE) {
                    Reason reason = program.failure();
                    long detail = reason == Reason.PEER_FAILED || reason == Reason.TRANSPORT
                            ? program.failureDetail()
                            : failedRank;
                    answerCreate(reason, detail);
                    fail(reason, detail);
                    return true;
                }
                if (program.finished()) {
                    state = State.READY;
                    created = true;
                    answerCreate(Reason.NONE, 0);
                    return true;
                }
                if (now - deadline > 0) {
                    answerCreate(Reason.TIMEOUT, rank);
                    fail(Reason.TIMEOUT, rank);
                    return true;
                }
                return changed;
            }
            case READY -> {
                if (current == null) {
                    if (queue.isEmpty()) {
                        return false;
                    }
                    current = queue.remove();
                    deadline = now + timeoutNs;
                    startAgreement();
                    return true;
                }
                boolean changed = program.advance();
                if (program.failure() != Reason.NONE) {
                    failRunning(program.failure(), program.failureDetail());
                    return true;
                }
                if (program.finished()) {
                    if (dataPhase) {
                        answerPost(current, Reason.NONE, 0);
                        current = null;
                    } else {
                        finishAgreement();
                    }
                    return true;
                }
                if (now - deadline > 0) {
                    failRunning(Reason.TIMEOUT, rank);
                    return true;
                }
                return changed;
            }
            default -> {
                return false;
            }
        }
    }

    private void startAgreement() {
        dataPhase = false;
        agreeRounds = 32 - Integer.numberOfLeadingZeros(size - 1);
        int rounds = agreeRounds;
        program.reset((long) AGREE_BYTES * (2L * rounds + 1), endpoints, connection.memory(), null, null, this::merge);
        current.agreeState(rank).write(program.arena(), 0);
        long seq = current.sequence;
        for (int k = 0; k < rounds; k++) {
            int from = Math.floorMod(rank - (1 << k), size);
            program.receive(
                    from,
                    (long) AGREE_BYTES * (rounds + 1 + k),
                    AGREE_BYTES,
                    CollTag.of(MessageKind.AGREE, teamId, seq, k, from),
                    -1,
                    -1);
        }
        int merged = -1;
        for (int k = 0; k < rounds; k++) {
            int to = (rank + (1 << k)) % size;
            program.send(
                    to,
                    (long) AGREE_BYTES * k,
                    AGREE_BYTES,
                    CollTag.of(MessageKind.AGREE, teamId, seq, k, rank),
                    merged,
                    -1);
            merged = program.local(k, k, -1);
        }
    }

    /** state[k + 1] = merge(state[k], received[k]). */
    private Reason merge(Program p, long k) {
        ByteBuffer arena = p.arena();
        Agree mine = Agree.read(arena, (int) (AGREE_BYTES * k));
        Agree theirs = Agree.read(arena, (int) (AGREE_BYTES * (agreeRounds + 1 + k)));
        mine.merge(theirs).write(arena, (int) (AGREE_BYTES * (k + 1)));
        return Reason.NONE;
    }

    private void finishAgreement() {
        Agree all = Agree.read(program.arena(), AGREE_BYTES * agreeRounds);
        Collective c = current;
        if (all.refusingRank() >= 0) {
            if (c.refusal != Reason.NONE) {
                answerPost(c, c.refusal, 0);
            } else {
                answerPost(c, Reason.PEER_REFUSED, all.refusingRank());
            }
            current = null;
            return;
        }
        AgreeField mismatch = all.firstMismatch();
        if (mismatch != null) {
            answerPost(c, Reason.MISMATCH, mismatch.code());
            current = null;
            return;
        }
        if (c.type == CollType.BARRIER || c.post.count() == 0) {
            answerPost(c, Reason.NONE, 0);
            current = null;
            return;
        }
        startData(c);
    }

    private void startData(Collective c) {
        dataPhase = true;
        long n = c.bytes();
        boolean small = n <= smallBytes;
        int es = c.dtype.size();
        long chunk = Math.max(es, chunkBytes / es * es);
        Algorithms.Shape s = new Algorithms.Shape(
                size, rank, teamId, c.sequence, chunk, es, c.post.count(), c.post.src(), c.post.dst(), c.inPlace, (int)
                        c.post.root());
        program.reset(
                Algorithms.arenaBytes(c.type, small, s), chunk, endpoints, connection.memory(), c.dtype, c.op, null);
        switch (c.type) {
            case ALLREDUCE -> {
                if (small) {
                    Algorithms.allreduceSmall(program, s);
                } else {
                    Algorithms.allreduceLarge(program, s);
                }
            }
            case REDUCE -> {
                if (small) {
                    Algorithms.reduceSmall(program, s);
                } else {
                    Algorithms.reduceLarge(program, s);
                }
            }
            case BCAST -> {
                if (small) {
                    Algorithms.bcastSmall(program, s);
                } else {
                    Algorithms.bcastLarge(program, s);
                }
            }
            case ALLGATHER -> {
                if (small) {
                    Algorithms.allgatherSmall(program, s);
                } else {
                    Algorithms.allgatherLarge(program, s);
                }
            }
            case ALLTOALL -> Algorithms.alltoall(program, s);
            default -> throw new IllegalStateException("no data phase for " + c.type);
        }
    }

    /**
     * The running collective failed, after which the ranks are out of step: it and the queued
     * ones get {@code reason} (detail: the peer for PEER_FAILED, else this rank), the team fails.
     */
    private void failRunning(Reason reason, long detail) {
        fail(reason, reason == Reason.PEER_FAILED || reason == Reason.TRANSPORT ? detail : rank);
    }

    /**
     * Fails the team: what runs is abandoned, the collective running and every queued one are
     * answered {@code reason} with {@code detail}, and later POSTs get TEAM_FAILED with {@code
     * detail} (the failed peer's rank, or this rank's own).
     */
    void fail(Reason reason, long detail) {
        if (state == State.CREATING) {
            answerCreate(reason, detail);
        }
        abandonProgram();
        state = State.FAILED;
        failedRank = detail;
        if (current != null) {
            answerPost(current, reason, detail);
            current = null;
        }
        while (!queue.isEmpty()) {
            answerPost(queue.remove(), reason, detail);
        }
    }

    private void abandonProgram() {
        if (program.abandon()) {
            program.takeMemory().forEach(abandoned);
        }
    }

    private void answerCreate(Reason reason, long detail) {
        if (createCommand == null) {
            return;
        }
        WorkerCommand command = createCommand;
        createCommand = null;
        long cookie = createCookie;
        Header header = reason == Reason.NONE
                ? Header.success(CommandType.TEAM_CREATE, cookie)
                : Header.failure(CommandType.TEAM_CREATE.code(), cookie, reason, detail);
        answers.accept(WorkerNotification.replyTo(
                command,
                UromStatus.SUCCESS,
                new CollNotification.TeamCreateDone(
                                header, teamId, reason == Reason.NONE ? rank : 0, reason == Reason.NONE ? size : 0)
                        .encode()));
    }

    private void answerPost(Collective c, Reason reason, long detail) {
        Header header = reason == Reason.NONE
                ? Header.success(CommandType.POST, c.post.cookie())
                : Header.failure(CommandType.POST.code(), c.post.cookie(), reason, detail);
        answers.accept(WorkerNotification.replyTo(
                c.command, UromStatus.SUCCESS, new CollNotification.PostDone(header, teamId, c.sequence).encode()));
    }
}
