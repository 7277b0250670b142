// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.Proofs;
import dev.urom.spi.Api;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Message;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServiceAddress;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A worker process of the service, as seen by this host: started through the daemon, then driven
 * over its own connection. States: IDLE → STARTING → RUNNING → STOPPING → IDLE; a failed start
 * or a lost connection goes back to IDLE.
 *
 * <p>Thread-safe: any thread may submit, and state listeners are called on the thread that made
 * the change (a start thread, a caller of {@link #stop()}, or the connection's reader thread);
 * they must not block. {@link #submit} never throws for a run-time condition: its future always
 * completes normally, with a {@link Notification} whose status says what happened.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public final class Worker implements AutoCloseable {
    private static final Logger LOG = System.getLogger(Worker.class.getName());
    private static final long CLOSE_WAIT_SECONDS = 10;
    /** Most bytes of user data a submission may carry. */
    public static final int USER_DATA_MAX_BYTES = 32;

    /** The life cycle of a worker, as the original's host API names it. */
    public enum State {
        IDLE,
        STARTING,
        RUNNING,
        STOPPING
    }

    private final UromService service;
    private final long requestedId;
    private final long requestedMask;
    private final long requestedGid;
    private final List<String> env;
    private final List<Integer> cpus;
    private volatile int maxInflight;
    private final AtomicReference<State> state = new AtomicReference<>(State.IDLE);
    private final List<Consumer<State>> listeners = new CopyOnWriteArrayList<>();
    private volatile long id;
    private volatile long gid;
    private volatile long pluginMask;
    private volatile long destId = -1;
    private volatile int maxMessageSize;
    private volatile DataConnection connection;
    private volatile CompletableFuture<Worker> starting;
    private volatile CompletableFuture<Void> stopping;

    Worker(
            UromService service,
            long id,
            long pluginMask,
            long gid,
            List<String> env,
            List<Integer> cpus,
            int maxInflight) {
        this.service = service;
        this.requestedId = id;
        this.requestedMask = pluginMask;
        this.requestedGid = gid;
        this.id = id;
        this.pluginMask = pluginMask;
        this.gid = gid;
        this.env = env;
        this.cpus = cpus;
        this.maxInflight = maxInflight;
        this.maxMessageSize = service.maxMessageSize();
    }

    /**
     * Asks the daemon to start (or join) the worker, connects to it and shakes hands. Completes
     * with this worker when RUNNING, or exceptionally with a {@link UromException} (the daemon's
     * or the worker's status and message; BAD_STATE when the worker is not IDLE), the state then
     * back to IDLE.
     */
    public CompletableFuture<Worker> start() {
        if (!state.compareAndSet(State.IDLE, State.STARTING)) {
            return CompletableFuture.failedFuture(new UromException(
                    UromStatus.BAD_STATE, "worker " + describeId() + " is " + state.get() + ", not IDLE"));
        }
        CompletableFuture<Worker> result = new CompletableFuture<>();
        starting = result;
        notifyListeners(State.STARTING);
        Thread t = new Thread(() -> runStart(result), "urom-worker-start-" + describeId());
        t.setDaemon(true);
        t.start();
        return result;
    }

    private void runStart(CompletableFuture<Worker> result) {
        FrameChannel channel = null;
        try {
            WorkerStartReply reply =
                    service.startWorker(new WorkerStartRequest(requestedId, requestedMask, requestedGid, env, cpus));
            ServiceAddress address;
            try {
                address = ServiceAddress.parse(reply.workerAddress());
            } catch (IllegalArgumentException e) {
                throw new UromException(
                        UromStatus.UNEXPECTED,
                        "the daemon gave worker " + Long.toUnsignedString(reply.workerId()) + " " + e.getMessage());
            }
            channel = UromService.open(address, Protocol.dataFrameLimit(service.maxMessageSize()));
            HelloOk ok = UromService.handshake(address, channel, Proofs.Channel.DATA, service.key());
            channel.setFrameLimit(Protocol.dataFrameLimit(ok.maxMessageSize()));
            id = reply.workerId();
            gid = reply.gid();
            pluginMask = reply.pluginMask();
            destId = ok.connectionId();
            maxMessageSize = ok.maxMessageSize();
            if (ok.maxInflight() > 0) {
                maxInflight = Math.min(maxInflight, ok.maxInflight());
            }
            connection = new DataConnection(
                    "worker-" + Long.toUnsignedString(id), channel, maxInflight, this::connectionEnded);
            channel = null;
            if (state.compareAndSet(State.STARTING, State.RUNNING)) {
                notifyListeners(State.RUNNING);
                result.complete(this);
            } else {
                result.completeExceptionally(new UromException(
                        UromStatus.CONNECTION_RESET,
                        "worker " + describeId() + " at " + address
                                + " closed the connection right after the handshake"));
            }
        } catch (UromException e) {
            startFailed(result, e);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "starting worker " + describeId() + " failed", e);
            startFailed(
                    result,
                    new UromException(UromStatus.UNEXPECTED, "starting worker " + describeId() + " failed: " + e));
        } finally {
            if (channel != null) {
                channel.close();
            }
        }
    }

    private void startFailed(CompletableFuture<Worker> result, UromException e) {
        moveTo(State.STARTING, State.IDLE);
        result.completeExceptionally(e);
    }

    private void connectionEnded(String reason) {
        LOG.log(Level.DEBUG, "worker {0}: connection ended: {1}", describeId(), reason);
        connection = null;
        State before = state.getAndSet(State.IDLE);
        if (before != State.IDLE) {
            notifyListeners(State.IDLE);
        }
    }

    private void moveTo(State from, State to) {
        if (state.compareAndSet(from, to)) {
            notifyListeners(to);
        }
    }

    private void notifyListeners(State s) {
        for (Consumer<State> l : listeners) {
            try {
                l.accept(s);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "worker " + describeId() + ": state listener failed on " + s, e);
            }
        }
    }

    /** Calls {@code listener} with each state this worker moves to from now on. */
    public void addStateListener(Consumer<State> listener) {
        listeners.add(requireNonNull(listener, "listener is null"));
    }

    public State state() {
        return state.get();
    }

    /** The worker's id: the requested one, or the daemon's choice once started. */
    public long id() {
        return id;
    }

    public long gid() {
        return gid;
    }

    public long pluginMask() {
        return pluginMask;
    }

    /** This host's connection id at the worker ({@code dest_id}); -1 before the first start. */
    public long destId() {
        return destId;
    }

    /** The largest command, header included, that the worker accepts. */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** The most commands outstanding at once: the builder's limit, lowered to the worker's own once started. */
    public int maxInflight() {
        return maxInflight;
    }

    /** {@link #submit(long, byte[], byte[])} without user data. */
    public CompletableFuture<Notification> submit(long pluginId, byte[] payload) {
        return submit(pluginId, payload, Notification.NONE);
    }

    /**
     * Sends a command to plugin {@code pluginId}. The future completes with the plugin's status and
     * notification payload, or at once with BAD_STATE (not RUNNING), AGAIN (max in-flight
     * reached) or TOO_BIG (24 + payload bytes over the max message size; nothing is sent; the
     * reason gives both sizes), or with CONNECTION_RESET when the connection ends first.
     *
     * @param userData at most {@value #USER_DATA_MAX_BYTES} bytes handed back in the notification;
     *     never sent
     * @throws IllegalArgumentException when {@code userData} is longer than that
     */
    public CompletableFuture<Notification> submit(long pluginId, byte[] payload, byte[] userData) {
        requireNonNull(payload, "payload is null");
        requireNonNull(userData, "userData is null");
        if (userData.length > USER_DATA_MAX_BYTES) {
            throw new IllegalArgumentException(
                    "user data of " + userData.length + " bytes is over the limit of " + USER_DATA_MAX_BYTES);
        }
        DataConnection c = connection;
        if (c == null || state.get() != State.RUNNING) {
            return CompletableFuture.completedFuture(Notification.failed(UromStatus.BAD_STATE, userData));
        }
        if ((long) Command.HEADER_BYTES + payload.length > maxMessageSize) {
            return CompletableFuture.completedFuture(
                    Notification.failed(UromStatus.TOO_BIG, userData, tooBig(payload.length, maxMessageSize)));
        }
        return c.submit(pluginId, payload, userData);
    }

    /** Why a command of {@code payloadBytes} is TOO_BIG: its size, the limit, and where the limit comes from. */
    static String tooBig(int payloadBytes, long maxMessageSize) {
        return "a command of " + (Command.HEADER_BYTES + (long) payloadBytes) + " bytes (" + Command.HEADER_BYTES
                + "-byte header + "
                + payloadBytes + " bytes of payload) is over the daemon's max message size of " + maxMessageSize
                + " bytes (urom daemon -m, --max-msg-size)";
    }

    /**
     * Sends a request (ADDRESS, DOMAIN_SET) on the data connection; the future completes with the
     * worker's reply, or exceptionally with a {@link UromException}: BAD_STATE when the worker is
     * not RUNNING, CONNECTION_RESET when the connection ends first.
     */
    CompletableFuture<Message> request(Message request) {
        DataConnection c = connection;
        if (c == null || state.get() != State.RUNNING) {
            return CompletableFuture.failedFuture(new UromException(
                    UromStatus.BAD_STATE, "worker " + describeId() + " is " + state.get() + ", not RUNNING"));
        }
        return c.request(request);
    }

    /**
     * Ends this host's connection to the worker: sends STOP and completes when the worker has
     * answered or the connection has ended (state IDLE). Commands still outstanding are answered
     * or completed with CONNECTION_RESET. On an IDLE worker it completes at once.
     */
    public CompletableFuture<Void> stop() {
        while (true) {
            State s = state.get();
            if (s == State.IDLE) {
                return CompletableFuture.completedFuture(null);
            }
            if (s == State.STARTING) {
                return CompletableFuture.failedFuture(
                        new UromException(UromStatus.BAD_STATE, "worker " + describeId() + " is STARTING"));
            }
            if (s == State.STOPPING) {
                CompletableFuture<Void> current = stopping;
                if (current != null) {
                    return current;
                }
                continue;
            }
            DataConnection c = connection;
            if (c == null) {
                continue;
            }
            CompletableFuture<Void> done = c.ended();
            stopping = done;
            if (state.compareAndSet(State.RUNNING, State.STOPPING)) {
                notifyListeners(State.STOPPING);
                c.sendStop();
                return done;
            }
        }
    }

    /** Stops the worker and waits (at most 10 s, then the connection is closed). */
    @Override
    public void close() {
        CompletableFuture<Worker> start = starting;
        if (state.get() == State.STARTING && start != null) {
            try {
                start.get(UromService.REQUEST_TIMEOUT.toSeconds() + CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.log(Level.DEBUG, "worker {0}: start did not finish before close: {1}", describeId(), e.toString());
            }
        }
        DataConnection c = connection;
        try {
            stop().get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            LOG.log(
                    Level.WARNING,
                    "worker {0}: no STOP_OK within {1} s; closing the connection",
                    describeId(),
                    CLOSE_WAIT_SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "worker {0}: stop failed: {1}", describeId(), e.toString());
        }
        if (c != null) {
            c.close();
        }
    }

    private String describeId() {
        return id == Protocol.ANY_WORKER ? "ANY" : Long.toUnsignedString(id);
    }

    @Override
    public String toString() {
        return "Worker[id=" + describeId() + ", gid=" + gid + ", plugins=0x" + Long.toHexString(pluginMask) + ", state="
                + state.get() + "]";
    }
}
