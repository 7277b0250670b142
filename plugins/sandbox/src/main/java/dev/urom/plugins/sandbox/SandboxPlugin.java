// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.urom.plugins.sandbox.SandboxCommand.Bounce;
import dev.urom.plugins.sandbox.SandboxCommand.MemMap;
import dev.urom.plugins.sandbox.SandboxCommand.TagRecv;
import dev.urom.plugins.sandbox.SandboxCommand.TagSend;
import dev.urom.plugins.sandbox.SandboxNotification.BounceDone;
import dev.urom.plugins.sandbox.SandboxNotification.MemMapDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagRecvDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagSendDone;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import dev.urom.ucx.UcpContext;
import dev.urom.ucx.UcpEndpoint;
import dev.urom.ucx.UcpLayout;
import dev.urom.ucx.UcpRequest;
import dev.urom.ucx.UcpTagPair;
import dev.urom.ucx.UcpWorker;
import dev.urom.ucx.Ucx;
import dev.urom.ucx.UcxException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The sandbox plugin in Java, the twin of {@code worker_sandbox.so}: MEM_MAP, TAG_SEND and TAG_RECV
 * between workers of a domain over UCX's UCP tag protocol (transport {@value #TRANSPORT}), and
 * BOUNCE, tag round trips between two workers with no host in the loop, with the commands and
 * notifications of {@code docs/sandbox-protocol.md}. A DOCA-sized TAG_SEND or TAG_RECV (its
 * fixed part as long as DOCA's, for NVIDIA's own host code) is answered in DOCA's layout, with
 * UCX statuses inside ({@link SandboxNotification}).
 *
 * <p>{@link #open} creates one UCP context and one UCP worker ({@link dev.urom.ucx}); the plugin's
 * address is the worker's address. Nothing blocks but a BOUNCE's run (below), and no callback runs
 * on the data path: {@link #progress} progresses the worker and polls the requests, oldest first.
 *
 * <ul>
 *   <li>A TAG_SEND looks its peer up in the domain (when it has no endpoint to it yet), creates one
 *       endpoint per peer and keeps it, and sends the message bytes with the sandbox tag as the UCP
 *       tag; its answer comes when UCX completes the send.
 *   <li>A TAG_RECV posts a UCP receive with its tag and mask: UCX does the matching. Receives stay
 *       posted.
 *   <li>An endpoint that UCX reports failed (the peer died) fails that peer's sends still in flight
 *       with {@code CONNECTION_RESET} and is dropped; the next TAG_SEND to the peer looks it up
 *       again.
 *   <li>{@link #wakeupFd} is the worker's event descriptor and {@link #armWakeup} arms it.
 * </ul>
 *
 * <p>Message bytes live in native buffers the plugin owns (one per command, freed once UCX is done
 * with it, at the latest when the worker is destroyed in {@link #close}). Region bytes move through
 * the file, never the mapping: a send reads them into its buffer with {@code pread}, a receive
 * lands in its buffer and is written with {@code pwrite} ({@link MappedRegions}), so a client that
 * truncates a mapped file gets {@code IO_FAILED} where UCX touching the mapping would kill the
 * worker with SIGBUS.
 *
 * <p>A BOUNCE is checked, its peer connected and its two message buffers allocated by {@link
 * #workerCommand}; the next {@link #progress} runs it to its end before anything else, holding the
 * thread: each round posts one receive (the bounce's tag, full mask) and one send from the same
 * {@link UcpTagPair} and spins {@code ucp_worker_progress} until both complete, with no allocation
 * and no JNA structure per round. A run ends after its rounds, at its first failed round, or at
 * the bound {@code UROM_SANDBOX_BOUNCE_TIMEOUT_MS} ({@link BounceBound}, read at {@link #open}).
 *
 * <p>MEM_MAP opens its file through {@link MappedRegions}: beneath {@code /dev/shm} or a hugetlbfs
 * mount, through no symbolic link, owned by the worker's user or by {@code UROM_OWNER_UID}'s (read
 * at {@link #open} from the environment; {@code BAD_CONFIG} when it is not a uid).
 *
 * <p>Not thread-safe: the worker drives a plugin from one thread (see {@link PluginIface}), which is
 * also the UCP worker's thread.
 */
public final class SandboxPlugin implements PluginIface {
    /** The transport name both sandbox plugins publish. */
    public static final String TRANSPORT = "ucp-tag";
    /** The longest message a TAG_SEND may carry, and the most a receive buffer holds. */
    static final long MAX_MESSAGE_BYTES = 64L << 20;

    private static final Logger LOG = LogManager.getLogger(SandboxPlugin.class);
    private static final long INLINE_RECEIVE_BUFFER = 1;
    private static final byte[] NO_DATA = new byte[0];
    /** Progress rounds of the UCP worker per {@link #progress}, at most (each that found nothing ends it). */
    private static final int PROGRESS_ROUNDS = 64;
    /** A BOUNCE's most bytes per message and most rounds. */
    static final long BOUNCE_MAX_COUNT = 65536;

    static final long BOUNCE_MAX_ITERATIONS = 1_000_000;
    /** A BOUNCE looks at the clock (and tests its requests) after this many progress calls that did nothing. */
    private static final int BOUNCE_IDLE_POLLS_PER_CLOCK = 256;

    private static final long FULL_MASK = -1L;

    private static final class Peer {
        final long dest;
        final UcpEndpoint endpoint;
        final List<PendingSend> sends = new ArrayList<>();

        Peer(long dest, UcpEndpoint endpoint) {
            this.dest = dest;
            this.endpoint = endpoint;
        }
    }

    /** A TAG_SEND in flight; {@code docaLayout}: it was DOCA-sized, and is answered in DOCA's layout. */
    private record PendingSend(
            WorkerCommand command, long context, boolean docaLayout, UcpRequest request, Memory buffer, Peer peer) {}

    private record PostedReceive(WorkerCommand command, TagRecv receive, UcpRequest request, Memory buffer) {
        long notifiedBuffer() {
            return receive.memhId() == 0 ? INLINE_RECEIVE_BUFFER : receive.buffer();
        }
    }

    /** A request already answered whose buffer UCX may still use. */
    private record Orphan(UcpRequest request, Memory buffer) {}

    /** A BOUNCE accepted, not yet run: its buffers hold {@code max(1, count)} bytes, the send buffer zeroed. */
    private record PendingBounce(WorkerCommand command, Bounce bounce, Memory sendBuffer, Memory receiveBuffer) {}

    /** A BOUNCE answered whose pair still has a request in UCX's hands: its buffers live until the pair settles. */
    private record AbandonedBounce(UcpTagPair pair, Memory sendBuffer, Memory receiveBuffer) {}

    private final ArrayDeque<WorkerNotification> ready = new ArrayDeque<>();
    private final Map<Long, Peer> peers = new HashMap<>();
    private final List<PendingSend> sends = new ArrayList<>();
    private final List<PostedReceive> receives = new ArrayList<>();
    private final List<Orphan> orphans = new ArrayList<>();
    private final ArrayDeque<PendingBounce> bounces = new ArrayDeque<>();
    private final List<AbandonedBounce> abandonedBounces = new ArrayList<>();
    private final Function<String, String> environment;
    private WorkerContext context;
    private MappedRegions regions;
    private UcpContext ucp;
    private UcpWorker worker;
    private byte[] address;
    private int eventFd = -1;
    private boolean progressCut;
    private long bounceBoundNs;

    /**
     * The plugin as the worker loads it: {@code UROM_OWNER_UID} and {@code
     * UROM_SANDBOX_BOUNCE_TIMEOUT_MS} come from the process environment.
     */
    public SandboxPlugin() {
        this(System::getenv);
    }

    /** A plugin that reads its variables from {@code environment} (name to value, null when unset). */
    SandboxPlugin(Function<String, String> environment) {
        this.environment = requireNonNull(environment, "environment is null");
    }

    /**
     * Reads the owners and the BOUNCE bound, then starts UCX.
     *
     * @throws UromException {@code BAD_CONFIG} for a malformed {@code UROM_OWNER_UID} or {@code
     *     UROM_SANDBOX_BOUNCE_TIMEOUT_MS}; {@code
     *     INITIALIZATION} when UCX cannot be loaded (missing, another version) or refuses the
     *     context, worker, address or event descriptor
     */
    @Override
    public void open(WorkerContext context) throws UromException {
        this.context = requireNonNull(context, "context is null");
        FileOwners owners;
        try {
            owners = FileOwners.fromEnvironment(environment, FileOwners.effectiveUid());
            bounceBoundNs = BounceBound.nanosFromEnvironment(environment);
        } catch (UromException e) {
            LOG.error("sandbox plugin of worker {}: {}", context.workerId(), e.getMessage());
            throw e;
        }
        regions = new MappedRegions(MappableRoots::ofSystem, owners);
        try {
            ucp = UcpContext.open();
            worker = UcpWorker.open(ucp);
            address = worker.address();
            eventFd = worker.eventFd();
        } catch (UcxException e) {
            closeUcx();
            String message = "the sandbox plugin cannot start UCX: " + e.getMessage();
            LOG.error("sandbox plugin of worker {}: {}", context.workerId(), message);
            throw new UromException(UromStatus.INITIALIZATION, message);
        }
        LOG.debug("sandbox plugin of worker {}: UCP worker address of {} bytes", context.workerId(), address.length);
    }

    @Override
    public void close() {
        for (PostedReceive posted : receives) {
            posted.request().cancel();
        }
        for (AbandonedBounce abandoned : abandonedBounces) {
            abandoned.pair().cancelReceive();
        }
        if (worker != null) {
            worker.progress();
        }
        List<Memory> buffers = new ArrayList<>();
        for (PostedReceive posted : receives) {
            posted.request().release();
            buffers.add(posted.buffer());
        }
        for (PendingSend send : sends) {
            send.request().release();
            buffers.add(send.buffer());
        }
        for (Orphan orphan : orphans) {
            orphan.request().release();
            buffers.add(orphan.buffer());
        }
        for (AbandonedBounce abandoned : abandonedBounces) {
            abandoned.pair().release();
            buffers.add(abandoned.sendBuffer());
            buffers.add(abandoned.receiveBuffer());
        }
        for (PendingBounce pending : bounces) {
            buffers.add(pending.sendBuffer());
            buffers.add(pending.receiveBuffer());
        }
        abandonedBounces.clear();
        bounces.clear();
        receives.clear();
        sends.clear();
        orphans.clear();
        peers.clear();
        closeUcx();
        buffers.forEach(Memory::close);
        ready.clear();
        if (regions != null) {
            regions.clear();
        }
    }

    /** Destroys the worker (which closes its endpoints) and the context; UCX touches no buffer after. */
    private void closeUcx() {
        if (worker != null) {
            worker.close();
            worker = null;
        }
        if (ucp != null) {
            ucp.close();
            ucp = null;
        }
    }

    @Override
    public byte[] address() throws UromException {
        if (address == null) {
            throw new UromException(UromStatus.BAD_STATE, "the sandbox plugin has no address before it is opened");
        }
        return address.clone();
    }

    @Override
    public Optional<String> transport() {
        return Optional.of(TRANSPORT);
    }

    @Override
    public OptionalInt wakeupFd() {
        return worker == null ? OptionalInt.empty() : OptionalInt.of(eventFd);
    }

    /**
     * Arms the UCP worker's event descriptor, unless answers are waiting, a BOUNCE waits for its
     * run, or the last {@link #progress} stopped before UCX ran out of work.
     *
     * @throws UromException {@code BAD_STATE} before open; {@code IO_FAILED} when UCX fails to arm
     */
    @Override
    public boolean armWakeup() throws UromException {
        if (worker == null) {
            throw new UromException(UromStatus.BAD_STATE, "the sandbox plugin is not open");
        }
        if (!ready.isEmpty() || progressCut || !bounces.isEmpty()) {
            return false;
        }
        try {
            return worker.arm();
        } catch (UcxException e) {
            throw new UromException(
                    UromStatus.IO_FAILED, "the sandbox plugin cannot arm its wake-up: " + e.getMessage());
        }
    }

    /** Whether a message with a tag matching {@code tag} under {@code mask} waits for a receive (for tests). */
    boolean messageWaiting(long tag, long mask) {
        return worker.messageWaiting(tag, mask);
    }

    /** Answers ready for the next {@link #progress} (for tests). */
    int answersReady() {
        return ready.size();
    }

    /** Endpoints kept now, one per peer sent to (for tests). */
    int endpoints() {
        return peers.size();
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        if (worker == null) {
            throw new UromException(UromStatus.BAD_STATE, "the sandbox plugin is not open");
        }
        SandboxCommand decoded = SandboxCommand.decode(command.payload());
        if (decoded instanceof MemMap memMap) {
            long memhId;
            try {
                memhId = regions.map(memMap.path(), memMap.length());
            } catch (UromException e) {
                LOG.warn("sandbox plugin of worker {}: {}", context.workerId(), e.getMessage());
                throw e;
            }
            ready.add(WorkerNotification.replyTo(
                    command, UromStatus.SUCCESS, new MemMapDone(memMap.context(), memhId).encode()));
        } else if (decoded instanceof TagSend send) {
            send(command, send);
        } else if (decoded instanceof TagRecv receive) {
            receive(command, receive);
        } else if (decoded instanceof Bounce bounce) {
            acceptBounce(command, bounce);
        }
    }

    /** Checks a BOUNCE's values, connects to its peer and allocates its buffers; the next {@link #progress} runs it. */
    private void acceptBounce(WorkerCommand command, Bounce bounce) throws UromException {
        if (Long.compareUnsigned(bounce.count(), BOUNCE_MAX_COUNT) > 0
                || bounce.iterations() == 0
                || Long.compareUnsigned(bounce.iterations(), BOUNCE_MAX_ITERATIONS) > 0
                || (bounce.role() != SandboxCommand.BOUNCE_INITIATOR
                        && bounce.role() != SandboxCommand.BOUNCE_RESPONDER)) {
            String message = "BOUNCE of count " + Long.toUnsignedString(bounce.count()) + ", iterations "
                    + Long.toUnsignedString(bounce.iterations()) + ", role " + Long.toUnsignedString(bounce.role())
                    + " refused: count 0 to "
                    + BOUNCE_MAX_COUNT + ", iterations 1 to " + BOUNCE_MAX_ITERATIONS
                    + ", role 0 (initiator) or 1 (responder)";
            LOG.warn("sandbox plugin of worker {}: {}", context.workerId(), message);
            throw new UromException(UromStatus.INVALID_VALUE, message);
        }
        peerFor(bounce.dest());
        long bytes = Math.max(1, bounce.count());
        Memory sendBuffer = new Memory(bytes);
        sendBuffer.clear();
        bounces.add(new PendingBounce(command, bounce, sendBuffer, new Memory(bytes)));
    }

    private void send(WorkerCommand command, TagSend send) throws UromException {
        if (send.memhId() != 0) {
            regions.check(send.memhId(), send.buffer(), send.count());
        }
        if (Long.compareUnsigned(send.count(), MAX_MESSAGE_BYTES) > 0) {
            throw new UromException(
                    UromStatus.INVALID_VALUE,
                    "TAG_SEND of " + Long.toUnsignedString(send.count()) + " bytes refused: a message is at most "
                            + MAX_MESSAGE_BYTES + " bytes");
        }
        Peer peer = peerFor(send.dest());
        int count = (int) send.count();
        Memory buffer = new Memory(Math.max(1, count));
        try {
            if (send.memhId() == 0) {
                buffer.write(0, send.data(), 0, count);
            } else {
                try {
                    regions.read(send.memhId(), send.buffer(), buffer.getByteBuffer(0, count));
                } catch (UromException e) {
                    LOG.warn("sandbox plugin of worker {}: {}", context.workerId(), e.getMessage());
                    throw e;
                }
            }
        } catch (UromException | RuntimeException e) {
            buffer.close();
            throw e;
        }
        UcpRequest request = worker.tagSend(peer.endpoint, buffer, count, send.tag());
        PendingSend pending = new PendingSend(command, send.context(), send.docaSized(), request, buffer, peer);
        int status = request.poll();
        if (status == UcpLayout.UCS_INPROGRESS) {
            peer.sends.add(pending);
            sends.add(pending);
        } else {
            finishSend(pending, status);
        }
    }

    private Peer peerFor(long dest) throws UromException {
        Peer peer = peers.get(dest);
        if (peer != null) {
            return peer;
        }
        byte[] peerAddress = context.domain().address(dest);
        UcpEndpoint endpoint;
        try {
            endpoint = worker.connect(peerAddress);
        } catch (UcxException e) {
            throw new UromException(
                    UromStatus.NOT_CONNECTED,
                    "cannot reach peer " + Long.toUnsignedString(dest) + ": " + e.getMessage());
        }
        peer = new Peer(dest, endpoint);
        peers.put(dest, peer);
        LOG.debug("sandbox plugin of worker {}: endpoint to peer {}", context.workerId(), Long.toUnsignedString(dest));
        return peer;
    }

    private void receive(WorkerCommand command, TagRecv receive) throws UromException {
        if (receive.memhId() != 0) {
            regions.check(receive.memhId(), receive.buffer(), receive.count());
        }
        long capacity =
                Long.compareUnsigned(receive.count(), MAX_MESSAGE_BYTES) > 0 ? MAX_MESSAGE_BYTES : receive.count();
        Memory buffer = new Memory(Math.max(1, capacity));
        UcpRequest request = worker.tagReceive(buffer, capacity, receive.tag(), receive.tagMask());
        PostedReceive posted = new PostedReceive(command, receive, request, buffer);
        int status = request.poll();
        if (status == UcpLayout.UCS_INPROGRESS) {
            receives.add(posted);
        } else {
            complete(posted, status);
        }
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) throws UromException {
        if (worker == null) {
            return;
        }
        while (!bounces.isEmpty()) {
            runBounce(bounces.remove());
        }
        int rounds = 0;
        while (rounds < PROGRESS_ROUNDS && worker.progress() != 0) {
            rounds++;
        }
        progressCut = rounds == PROGRESS_ROUNDS;
        for (UcpEndpoint failed : worker.takeFailedEndpoints()) {
            dropPeer(failed);
        }
        for (Iterator<PendingSend> it = sends.iterator(); it.hasNext(); ) {
            PendingSend send = it.next();
            int status = send.request().poll();
            if (status != UcpLayout.UCS_INPROGRESS) {
                it.remove();
                send.peer().sends.remove(send);
                finishSend(send, status);
            }
        }
        for (Iterator<PostedReceive> it = receives.iterator(); it.hasNext(); ) {
            PostedReceive posted = it.next();
            int status = posted.request().poll();
            if (status != UcpLayout.UCS_INPROGRESS) {
                it.remove();
                complete(posted, status);
            }
        }
        for (Iterator<Orphan> it = orphans.iterator(); it.hasNext(); ) {
            Orphan orphan = it.next();
            if (orphan.request().poll() != UcpLayout.UCS_INPROGRESS) {
                it.remove();
                orphan.buffer().close();
            }
        }
        for (Iterator<AbandonedBounce> it = abandonedBounces.iterator(); it.hasNext(); ) {
            AbandonedBounce abandoned = it.next();
            if (abandoned.pair().test()) {
                it.remove();
                abandoned.sendBuffer().close();
                abandoned.receiveBuffer().close();
            }
        }
        while (!ready.isEmpty()) {
            notifications.add(ready.remove());
        }
    }

    /**
     * Runs a BOUNCE to its end on this thread: its rounds, or until a round fails or the bound has
     * passed since the start, and answers it (the time from the start to the end, by {@link
     * System#nanoTime}; the rounds done; the status). A receive still posted is cancelled; the
     * buffers are freed, or kept until UCX is done with them.
     */
    private void runBounce(PendingBounce pending) {
        Bounce bounce = pending.bounce();
        long start = System.nanoTime();
        long deadline = start + bounceBoundNs;
        UromStatus status = UromStatus.SUCCESS;
        long done = 0;
        UcpTagPair pair = null;
        Peer peer = null;
        try {
            peer = peerFor(bounce.dest());
        } catch (UromException e) {
            LOG.warn(
                    "sandbox plugin of worker {}: BOUNCE with peer {}: {}",
                    context.workerId(),
                    Long.toUnsignedString(bounce.dest()),
                    e.getMessage());
            status = e.status();
        }
        if (peer != null) {
            pair = worker.tagPair(peer.endpoint);
            boolean initiator = bounce.role() == SandboxCommand.BOUNCE_INITIATOR;
            long sendAddress = Pointer.nativeValue(pending.sendBuffer());
            long receiveAddress = Pointer.nativeValue(pending.receiveBuffer());
            long count = bounce.count();
            long tag = bounce.tag();
            long iterations = bounce.iterations();
            while (status == UromStatus.SUCCESS && done < iterations) {
                status = bounceRound(pair, peer, initiator, sendAddress, receiveAddress, count, tag, deadline);
                if (status == UromStatus.SUCCESS) {
                    done++;
                }
            }
        }
        long elapsed = System.nanoTime() - start;
        if (status == UromStatus.TIME_OUT) {
            LOG.error(
                    "sandbox plugin of worker {}: BOUNCE with peer {}, tag 0x{}, timed out after {} ms with {} of {} rounds done",
                    context.workerId(),
                    Long.toUnsignedString(bounce.dest()),
                    Long.toHexString(bounce.tag()),
                    bounceBoundNs / 1_000_000,
                    done,
                    bounce.iterations());
        }
        ready.add(WorkerNotification.replyTo(
                pending.command(), status, new BounceDone(bounce.context(), elapsed, done, status).encode()));
        if (pair != null) {
            pair.cancelReceive();
            if (pair.pending()) {
                abandonedBounces.add(new AbandonedBounce(pair, pending.sendBuffer(), pending.receiveBuffer()));
                return;
            }
        }
        pending.sendBuffer().close();
        pending.receiveBuffer().close();
    }

    /**
     * One round: the initiator sends and waits for the answer; the responder waits for a message and
     * sends it back (the {@code count} bytes of its receive buffer).
     */
    private UromStatus bounceRound(
            UcpTagPair pair,
            Peer peer,
            boolean initiator,
            long sendAddress,
            long receiveAddress,
            long count,
            long tag,
            long deadline) {
        int posted = pair.postReceive(receiveAddress, count, tag, FULL_MASK);
        if (posted < 0) {
            LOG.error(
                    "sandbox plugin of worker {}: BOUNCE cannot post its receive: {}",
                    context.workerId(),
                    Ucx.describe(posted));
            return UromStatus.DRIVER;
        }
        if (initiator) {
            posted = pair.postSend(sendAddress, count, tag);
        } else {
            UromStatus status = bounceWait(pair, peer.endpoint, deadline);
            if (status != UromStatus.SUCCESS) {
                return status;
            }
            status = bounceRoundStatus(pair, peer);
            if (status != UromStatus.SUCCESS) {
                return status;
            }
            posted = pair.postSend(receiveAddress, count, tag);
        }
        if (posted < 0) {
            LOG.error(
                    "sandbox plugin of worker {}: BOUNCE send to peer {} failed at once: {}",
                    context.workerId(),
                    Long.toUnsignedString(peer.dest),
                    Ucx.describe(posted));
            dropPeer(peer.endpoint);
            return UromStatus.CONNECTION_RESET;
        }
        UromStatus status = bounceWait(pair, peer.endpoint, deadline);
        return status != UromStatus.SUCCESS ? status : bounceRoundStatus(pair, peer);
    }

    /**
     * Progresses UCX until the pair's requests complete (SUCCESS), the endpoint fails
     * (CONNECTION_RESET), or {@code deadline} passes (TIME_OUT). The clock and the requests are
     * looked at again after every {@value #BOUNCE_IDLE_POLLS_PER_CLOCK} progress calls that did
     * nothing; a progress that did something tests the requests.
     */
    private static UromStatus bounceWait(UcpTagPair pair, UcpEndpoint endpoint, long deadline) {
        int idle = 0;
        pair.test();
        while (pair.pending()) {
            if (endpoint.failure() != 0) {
                return UromStatus.CONNECTION_RESET;
            }
            if (pair.progress() != 0) {
                continue;
            }
            if (++idle % BOUNCE_IDLE_POLLS_PER_CLOCK == 0 && !pair.test() && System.nanoTime() - deadline > 0) {
                return UromStatus.TIME_OUT;
            }
        }
        return endpoint.failure() != 0 ? UromStatus.CONNECTION_RESET : UromStatus.SUCCESS;
    }

    /** A finished round's status: a longer message is TOO_BIG, any other failed request CONNECTION_RESET. */
    private UromStatus bounceRoundStatus(UcpTagPair pair, Peer peer) {
        int receive = pair.receiveStatus();
        int failed = receive != UcpLayout.UCS_OK ? receive : pair.sendStatus();
        if (failed == UcpLayout.UCS_OK) {
            return UromStatus.SUCCESS;
        }
        LOG.error(
                "sandbox plugin of worker {}: BOUNCE with peer {}: a {} failed: {}",
                context.workerId(),
                Long.toUnsignedString(peer.dest),
                receive != UcpLayout.UCS_OK ? "receive" : "send",
                Ucx.describe(failed));
        return failed == UcpLayout.UCS_ERR_MESSAGE_TRUNCATED ? UromStatus.TOO_BIG : UromStatus.CONNECTION_RESET;
    }

    /** The endpoint failed: its peer's sends in flight fail with CONNECTION_RESET, the endpoint is closed and forgotten. */
    private void dropPeer(UcpEndpoint failed) {
        Peer peer = null;
        for (Peer candidate : peers.values()) {
            if (candidate.endpoint == failed) {
                peer = candidate;
            }
        }
        if (peer == null) {
            return;
        }
        LOG.warn(
                "sandbox plugin of worker {}: the endpoint to peer {} failed ({}); {} TAG_SEND in flight fail with CONNECTION_RESET",
                context.workerId(),
                Long.toUnsignedString(peer.dest),
                Ucx.describe(failed.failure()),
                peer.sends.size());
        for (PendingSend send : peer.sends) {
            sends.remove(send);
            answerSend(send, UromStatus.CONNECTION_RESET);
            orphans.add(new Orphan(send.request(), send.buffer()));
        }
        peer.sends.clear();
        peers.remove(peer.dest);
        failed.close(true);
    }

    private void finishSend(PendingSend send, int ucsStatus) {
        UromStatus status = ucsStatus == UcpLayout.UCS_OK ? UromStatus.SUCCESS : statusOf(ucsStatus);
        if (status != UromStatus.SUCCESS) {
            LOG.warn(
                    "sandbox plugin of worker {}: TAG_SEND to peer {} failed: {}",
                    context.workerId(),
                    Long.toUnsignedString(send.peer().dest),
                    Ucx.describe(ucsStatus));
        }
        answerSend(send, status);
        send.buffer().close();
    }

    private void answerSend(PendingSend send, UromStatus status) {
        ready.add(WorkerNotification.replyTo(
                send.command(), status, new TagSendDone(send.context(), status, send.docaLayout()).encode()));
    }

    /** The sandbox status of a failed UCP request. */
    private static UromStatus statusOf(int ucsStatus) {
        return switch (ucsStatus) {
            case UcpLayout.UCS_ERR_MESSAGE_TRUNCATED -> UromStatus.TOO_BIG;
            case UcpLayout.UCS_ERR_CONNECTION_RESET,
                    UcpLayout.UCS_ERR_ENDPOINT_TIMEOUT,
                    UcpLayout.UCS_ERR_UNREACHABLE,
                    UcpLayout.UCS_ERR_CANCELED -> UromStatus.CONNECTION_RESET;
            default -> UromStatus.IO_FAILED;
        };
    }

    private void complete(PostedReceive posted, int ucsStatus) {
        TagRecv receive = posted.receive();
        UcpRequest request = posted.request();
        try {
            if (ucsStatus == UcpLayout.UCS_ERR_MESSAGE_TRUNCATED) {
                answerReceive(posted, UromStatus.TOO_BIG, 0, request.senderTag(), NO_DATA);
            } else if (ucsStatus != UcpLayout.UCS_OK) {
                LOG.warn(
                        "sandbox plugin of worker {}: TAG_RECV failed: {}",
                        context.workerId(),
                        Ucx.describe(ucsStatus));
                answerReceive(posted, statusOf(ucsStatus), 0, 0, NO_DATA);
            } else if (receive.memhId() == 0) {
                long length = request.length();
                answerReceive(
                        posted,
                        UromStatus.SUCCESS,
                        length,
                        request.senderTag(),
                        posted.buffer().getByteArray(0, (int) length));
            } else {
                long length = request.length();
                try {
                    regions.write(
                            receive.memhId(), receive.buffer(), posted.buffer().getByteBuffer(0, length));
                } catch (UromException e) {
                    LOG.warn("sandbox plugin of worker {}: {}", context.workerId(), e.getMessage());
                    answerReceive(posted, e.status(), 0, request.senderTag(), NO_DATA);
                    return;
                }
                answerReceive(posted, UromStatus.SUCCESS, length, request.senderTag(), NO_DATA);
            }
        } finally {
            posted.buffer().close();
        }
    }

    private void answerReceive(PostedReceive posted, UromStatus status, long count, long senderTag, byte[] data) {
        TagRecvDone done = new TagRecvDone(
                posted.receive().context(),
                posted.notifiedBuffer(),
                count,
                senderTag,
                status,
                data,
                posted.receive().docaSized());
        ready.add(WorkerNotification.replyTo(posted.command(), status, done.encode()));
    }
}
