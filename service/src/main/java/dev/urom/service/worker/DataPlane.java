// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.domain.WorkerDomain;
import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.service.access.WorkerAdmission;
import dev.urom.service.metrics.WorkerStats;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message;
import dev.urom.wire.Message.AddressRequest;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.DomainSet;
import dev.urom.wire.Message.Stop;
import dev.urom.wire.Message.StopOk;
import dev.urom.wire.Protocol;
import dev.urom.wire.WireException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The worker's data plane: one thread and one selector over the listening socket and every host
 * connection, driving the worker host; not thread-safe apart from {@link #requestSnapshot()}: the
 * thread that owns the worker host calls {@link #run} and {@link #close}, and makes every plugin call.
 * Each turn of the loop, in order:
 *
 * <ol>
 *   <li>waits: in {@code select} while idle; while commands are in flight it spins, sleeps on the
 *       plugins' wake-up descriptors or parks ({@link LoopScheduler});
 *   <li>reads: connections let in through the handshake or refused ({@link ConnectionAdmission});
 *       COMMAND to the worker host, with the connection's dest id (one over its in-flight limit is
 *       answered AGAIN); ADDRESS and DOMAIN_SET answered ({@link DomainMessages}); STOP noted; a
 *       frame over the limit, malformed or unexpected closes its connection with an ERROR;
 *   <li>progresses the worker host: each notification goes to its connection as NOTIFY ({@link
 *       NotificationWriter}), and that connection is not read while over {@link
 *       #OUTPUT_PAUSE_BYTES} (or two frames) of its output wait;
 *   <li>answers the turn's STOPs with STOP_OK and closes those connections;
 *   <li>answers a snapshot request taken before its {@code select} ({@link StatsHandOff}).
 * </ol>
 *
 * <p>{@link #run} returns when the worker ends: its last connection closed after a handshake, or no
 * host ended one within the idle timeout. The worker decides to end once, at that point, when a
 * turn's STOPs leave no connection handshaking or open, or at {@link #close}; it then runs its
 * {@code ending} action (which tells the daemon):
 *
 * <ul>
 *   <li>before it writes those STOP_OKs and before it answers any later snapshot request, so that
 *       neither reaches anyone before the daemon has the ENDING;
 *   <li>after which a new connection is answered ERROR SHUTDOWN.
 * </ul>
 */
final class DataPlane implements AutoCloseable {
    /**
     * The data plane's bounds.
     *
     * @param maxMessageSize largest command, header included
     * @param idleTimeoutMillis how long to wait for the first host
     * @param maxInflight most commands outstanding per connection
     * @param maxConnections most host connections at once, handshaking ones included
     * @param handshakeTimeoutMillis how long a connection may take for its handshake
     */
    record Limits(
            int maxMessageSize,
            long idleTimeoutMillis,
            int maxInflight,
            int maxConnections,
            long handshakeTimeoutMillis) {}

    private static final Logger LOG = LogManager.getLogger(DataPlane.class);
    /** Output waiting for a connection above which the worker stops reading it (at least two frames). */
    static final int OUTPUT_PAUSE_BYTES = 1 << 20;

    private static final int READ_BUFFER_BYTES = 64 * 1024;
    private static final long IDLE_SELECT_MS = 100;

    private final long workerId;
    private final WorkerHost host;
    private final WorkerStats stats;
    private final Selector selector;
    private final Limits limits;
    private final int outputPauseBytes;
    private final long idleTimeoutNanos;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BUFFER_BYTES);
    private final HostConnections connections;
    private final ConnectionAdmission admission;
    private final DomainMessages domainMessages;
    private final NotificationWriter notifications;
    private final LoopScheduler scheduler;
    private final StatsHandOff statsHandOff;
    private final Consumer<SelectionKey> onReady = this::onReady;
    private final Consumer<WorkerAnswer> onNotification = this::deliver;
    private final Runnable ending;
    private boolean stopsPending;
    private boolean activity;
    /** The worker has decided to end (and said so). */
    private boolean endingAnnounced;

    /**
     * @param processes where each connection's process is entered while it is open
     * @param server bound, in any blocking mode; owned by the caller
     * @param admission who may connect
     * @param sealKey the key of this worker's address seals
     * @param ending run once, on the loop's thread, when the worker decides to end; it has told the daemon when it returns
     * @throws IOException when the selector cannot be opened or the server registered
     */
    DataPlane(
            long workerId,
            WorkerHost host,
            ConnectionProcesses processes,
            WorkerDomain domain,
            WorkerStats stats,
            ServerSocketChannel server,
            Limits limits,
            WorkerAdmission admission,
            byte[] sealKey,
            Runnable ending)
            throws IOException {
        this.workerId = workerId;
        this.host = requireNonNull(host, "host is null");
        requireNonNull(processes, "processes is null");
        requireNonNull(domain, "domain is null");
        this.stats = requireNonNull(stats, "stats is null");
        requireNonNull(server, "server is null");
        this.limits = requireNonNull(limits, "limits is null");
        requireNonNull(admission, "admission is null");
        byte[] ownSealKey = requireNonNull(sealKey, "sealKey is null").clone();
        this.ending = requireNonNull(ending, "ending is null");
        int frameLimit = Protocol.dataFrameLimit(limits.maxMessageSize());
        this.outputPauseBytes = Math.max(OUTPUT_PAUSE_BYTES, 2 * (Protocol.LENGTH_FIELD_BYTES + frameLimit));
        this.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.idleTimeoutMillis());
        this.selector = Selector.open();
        this.connections = new HostConnections(workerId, processes, stats);
        this.domainMessages = new DomainMessages(workerId, host, domain, ownSealKey, frameLimit);
        this.notifications = new NotificationWriter(workerId, host, connections, stats, frameLimit, outputPauseBytes);
        this.scheduler = new LoopScheduler(workerId, host, selector);
        this.statsHandOff = new StatsHandOff(stats, selector);
        this.admission = new ConnectionAdmission(
                workerId, server, selector, connections, processes, stats, admission, limits, frameLimit);
    }

    /**
     * Serves hosts until the worker should end.
     *
     * @return why it ended, one line for the log
     * @throws IOException when the selector or the listening socket fails
     */
    String run() throws IOException {
        long idleDeadline = System.nanoTime() + idleTimeoutNanos;
        while (true) {
            activity = false;
            boolean armedSleep = scheduler.takeArmedSleep();
            // a snapshot request is taken before this turn's select, answered after it: the turn reads what came before
            // it
            if (statsHandOff.takeRequest()) {
                selector.selectNow(onReady);
            } else if (armedSleep) {
                selector.select(onReady, LoopScheduler.armedSleepMillis(admission.nanosUntilDue(System.nanoTime())));
            } else if (scheduler.hasInFlight()) {
                selector.selectNow(onReady);
            } else {
                selector.select(onReady, idleSelectMillis(idleDeadline));
            }
            if (host.progress(onNotification) > 0) {
                activity = true;
            }
            if (stopsPending) {
                finishStops();
            }
            long now = System.nanoTime();
            admission.resumeAcceptingWhenDue(now);
            admission.refuseLateHandshakes(now);
            String end = endReason(idleDeadline);
            statsHandOff.answerTaken();
            if (end != null) {
                return end;
            }
            scheduler.pace(activity);
        }
    }

    /** How long an idle turn blocks: {@value #IDLE_SELECT_MS} ms, or less until the idle deadline while no host has connected. */
    private long idleSelectMillis(long idleDeadline) {
        if (admission.everOpened()) {
            return IDLE_SELECT_MS;
        }
        long left = TimeUnit.NANOSECONDS.toMillis(idleDeadline - System.nanoTime());
        return Math.max(1, Math.min(IDLE_SELECT_MS, left));
    }

    /** Why the worker ends now (having said that it ends), or null while it serves. */
    private String endReason(long idleDeadline) {
        String reason = null;
        if (admission.everOpened() && connections.isEmpty()) {
            reason = "the last host connection has closed";
        } else if (!admission.everOpened() && System.nanoTime() - idleDeadline >= 0) {
            reason = "no host connected within " + TimeUnit.NANOSECONDS.toMillis(idleTimeoutNanos) + " ms";
        }
        if (reason != null) {
            announceEnding();
        }
        return reason;
    }

    /** Decides that the worker ends, telling the daemon first, and takes no host from then on; once. */
    private void announceEnding() {
        if (!endingAnnounced) {
            endingAnnounced = true;
            admission.refuseFromNowOn();
            ending.run();
            LOG.debug("worker {}: ending; the daemon has been told", workerId);
        }
    }

    /**
     * Asks the loop for a copy of its counts, taken at the end of the first turn whose {@code select}
     * begins after this call. Thread-safe; a request made while another is pending (not yet taken
     * by a turn) shares its answer. Completes exceptionally once the plane is closed.
     */
    CompletableFuture<WorkerStatsSnapshot> requestSnapshot() {
        return statsHandOff.request();
    }

    private void onReady(SelectionKey key) {
        activity = true;
        if (admission.isServerKey(key)) {
            admission.accept();
            return;
        }
        HostConnection connection = (HostConnection) key.attachment();
        try {
            if (key.isValid() && key.isReadable()) {
                read(connection);
            }
            if (key.isValid()
                    && key.isWritable()
                    && connection.flush(outputPauseBytes)
                    && connection.state() == HostConnection.State.CLOSING) {
                connections.drop(connection, connection.closeReason());
            }
        } catch (IOException e) {
            connections.drop(connection, "I/O failed: " + e.getMessage());
        }
    }

    private void read(HostConnection connection) throws IOException {
        readBuffer.clear();
        int n = connection.channel().read(readBuffer);
        if (n < 0) {
            connections.drop(
                    connection,
                    connection.decoder().hasPartialFrame()
                            ? "the host closed it in the middle of a frame"
                            : "the host closed it");
            return;
        }
        readBuffer.flip();
        List<Frame> frames;
        try {
            frames = connection.decoder().feed(readBuffer);
        } catch (WireException e) {
            admission.refuse(
                    connection,
                    e.reason() == WireException.Reason.FRAME_TOO_LARGE ? UromStatus.TOO_BIG : UromStatus.INVALID_VALUE,
                    e.getMessage());
            return;
        }
        for (int i = 0; i < frames.size() && connection.state() != HostConnection.State.CLOSING; i++) {
            handle(connection, frames.get(i));
        }
    }

    private void handle(HostConnection connection, Frame frame) throws IOException {
        Message message = frame.message();
        switch (connection.state()) {
            case AWAITING_HELLO -> admission.handshake(connection, message);
            case OPEN -> {
                if (message instanceof Command command) {
                    submit(connection, command);
                } else if (message instanceof AddressRequest request) {
                    connection.send(domainMessages.address(frame.requestId(), request.pluginId()));
                    connection.pauseReadingWhileOver(outputPauseBytes);
                } else if (message instanceof DomainSet set) {
                    connection.send(domainMessages.install(frame.requestId(), set));
                    connection.pauseReadingWhileOver(outputPauseBytes);
                } else if (message instanceof Stop) {
                    LOG.info("worker {}: host connection {} sent STOP", workerId, connection.id());
                    connection.state(HostConnection.State.STOPPING);
                    stopsPending = true;
                } else {
                    admission.refuse(
                            connection,
                            UromStatus.NOT_SUPPORTED,
                            message.messageType() + " is not accepted on a worker data connection");
                }
            }
            case STOPPING ->
                admission.refuse(connection, UromStatus.BAD_STATE, message.messageType() + " arrived after STOP");
            case CLOSING -> {
                // nothing more is read from a closing connection
            }
        }
    }

    private void submit(HostConnection connection, Command command) {
        stats.commandArrived(connection.id(), command.type(), command.uromContext(), System.nanoTime());
        if (connection.inFlight() >= limits.maxInflight()) {
            notifications.answerAgain(connection, command.type(), command.uromContext());
            return;
        }
        scheduler.submitted(command.type());
        connection.inFlight(connection.inFlight() + 1);
        host.submit(new WorkerCommand(connection.id(), command.type(), command.uromContext(), command.payload()));
    }

    private void deliver(WorkerAnswer answer) {
        WorkerNotification notification = answer.notification();
        scheduler.answered(notification.type());
        HostConnection connection = connections.find(notification.destId());
        if (connection != null && connection.inFlight() > 0) {
            connection.inFlight(connection.inFlight() - 1);
        }
        if (connection == null || connection.state() == HostConnection.State.CLOSING) {
            notifications.dropped(notification);
            return;
        }
        notifications.send(connection, answer);
    }

    /**
     * Answers every STOP of this round with STOP_OK and closes those connections; when that leaves
     * no connection that is handshaking or open, the worker says it ends before the first STOP_OK.
     */
    private void finishStops() {
        stopsPending = false;
        if (admission.everOpened() && connections.noneServing()) {
            announceEnding();
        }
        for (int i = connections.size() - 1; i >= 0; i--) {
            HostConnection connection = connections.get(i);
            if (connection.state() == HostConnection.State.STOPPING) {
                try {
                    connection.send(FrameCodec.encode(0, new StopOk()));
                    connections.closeOrDrop(connection, "the host stopped");
                } catch (IOException e) {
                    connections.drop(connection, "STOP_OK could not be written: " + e.getMessage());
                }
            }
        }
    }

    /** Closes every host connection and the selector (not the server channel or the host). */
    @Override
    public void close() {
        announceEnding();
        statsHandOff.close();
        scheduler.close();
        connections.dropAll("the worker is ending");
        try {
            selector.close();
        } catch (IOException e) {
            LOG.debug("worker {}: closing the selector failed: {}", workerId, e.getMessage());
        }
    }
}
