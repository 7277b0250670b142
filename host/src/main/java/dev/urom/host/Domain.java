// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static java.util.Objects.requireNonNull;

import dev.urom.oob.OobAllgather;
import dev.urom.oob.OobRequest;
import dev.urom.spi.Api;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.DomainPeer;
import dev.urom.wire.FrameCodec;
import dev.urom.wire.Message;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.AddressRequest;
import dev.urom.wire.Message.DomainSet;
import dev.urom.wire.Message.DomainSetReply;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.WireException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A domain: the workers of every rank of an application, each under its own domain id, that learn
 * each other's plugin addresses (and the ranks' registered buffers) so that their plugins can
 * reach each other through {@code DomainLookups}.
 *
 * <p>{@link #start()} asks each local worker for the address of each of its plugins (ADDRESS: the
 * address, the name of its transport and the worker's seal over both, passed on unchanged),
 * packs this rank's peers, exchanges them with every rank through the application's {@link
 * OobAllgather} (first every block's length, as 8 bytes, then the blocks padded to the longest)
 * and hands the whole table to each local worker (DOMAIN_SET).
 *
 * <p>Thread-safe; {@link #start()} runs once, on its own daemon thread, and uses the allgather only
 * from there. Failures complete the future with a {@link UromException} whose message is one line
 * naming what is wrong.
 */
@Api(status = Api.Status.MAINTAINED, since = "0.1")
public final class Domain {
    /** How long one allgather round or one worker reply may take. */
    static final Duration PATIENCE = Duration.ofMinutes(2);

    private static final int LENGTH_BYTES = 8;

    /** A buffer this rank registered: {@code length} bytes from {@code va}, with its memory handle and remote key. */
    public record RegisteredBuffer(long va, long length, byte[] memh, byte[] mkey) {
        public RegisteredBuffer {
            memh = requireNonNull(memh, "memh is null").clone();
            mkey = requireNonNull(mkey, "mkey is null").clone();
        }
    }

    /**
     * One worker of the domain as {@link #peers()} shows it: its domain id, the address that each
     * of its plugins published, and the buffers its rank registered.
     */
    public record Peer(long domainId, List<PeerAddress> addresses, List<RegisteredBuffer> buffers) {
        public Peer {
            addresses = List.copyOf(requireNonNull(addresses, "addresses is null"));
            buffers = List.copyOf(requireNonNull(buffers, "buffers is null"));
        }
    }

    /**
     * The address that the plugin with {@code pluginId} published, and the name of the transport it
     * belongs to ({@code ""} when the plugin named none).
     */
    public record PeerAddress(long pluginId, byte[] address, String transport) {
        public PeerAddress {
            address = requireNonNull(address, "address is null").clone();
            requireNonNull(transport, "transport is null");
        }
    }

    private final List<Worker> workers;
    private final long[] domainIds;
    private final OobAllgather oob;
    private final List<RegisteredBuffer> buffers;
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile List<Peer> peers = List.of();

    private Domain(List<Worker> workers, long[] domainIds, OobAllgather oob, List<RegisteredBuffer> buffers) {
        this.workers = workers;
        this.domainIds = domainIds;
        this.oob = oob;
        this.buffers = buffers;
    }

    /** {@link #create(List, long[], OobAllgather, List)} without registered buffers. */
    public static Domain create(List<Worker> workers, long[] domainIds, OobAllgather oob) {
        return create(workers, domainIds, oob, List.of());
    }

    /**
     * A domain of this rank's {@code workers}, {@code workers.get(i)} under {@code domainIds[i]}.
     *
     * @throws IllegalArgumentException when the two lists differ in length
     */
    public static Domain create(
            List<Worker> workers, long[] domainIds, OobAllgather oob, List<RegisteredBuffer> buffers) {
        List<Worker> w = List.copyOf(requireNonNull(workers, "workers is null"));
        requireNonNull(domainIds, "domainIds is null");
        if (w.size() != domainIds.length) {
            throw new IllegalArgumentException(w.size() + " workers but " + domainIds.length + " domain ids");
        }
        return new Domain(
                w,
                domainIds.clone(),
                requireNonNull(oob, "oob is null"),
                List.copyOf(requireNonNull(buffers, "buffers is null")));
    }

    /**
     * Starts the domain; completes with this domain once every local worker has installed the
     * table. A second call fails with BAD_STATE.
     */
    public CompletableFuture<Domain> start() {
        if (!started.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(
                    new UromException(UromStatus.BAD_STATE, "the domain was already started"));
        }
        CompletableFuture<Domain> result = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        run();
                        result.complete(this);
                    } catch (UromException e) {
                        result.completeExceptionally(e);
                    } catch (RuntimeException e) {
                        result.completeExceptionally(
                                new UromException(UromStatus.UNEXPECTED, "starting the domain failed: " + e));
                    }
                },
                "urom-domain-start");
        t.setDaemon(true);
        t.start();
        return result;
    }

    /** Every peer of the domain, in rank order; empty until {@link #start()} completed. */
    public List<Peer> peers() {
        return peers;
    }

    private void run() throws UromException {
        int size = oob.size();
        int index = oob.index();
        if (size < 1 || index < 0 || index >= size) {
            throw new UromException(
                    UromStatus.INVALID_VALUE,
                    "allgather index " + index + " is outside 0.." + (size - 1) + " (size " + size + ")");
        }
        for (Worker w : workers) {
            if (w.state() != Worker.State.RUNNING) {
                throw new UromException(
                        UromStatus.BAD_STATE,
                        "worker " + Long.toUnsignedString(w.id()) + " is " + w.state() + ", not RUNNING");
            }
        }
        List<DomainPeer.Segment> segments = segments();
        List<DomainPeer> local = new ArrayList<>();
        for (int i = 0; i < workers.size(); i++) {
            local.add(new DomainPeer(domainIds[i], addresses(workers.get(i)), segments));
        }
        byte[] block = FrameCodec.encodeDomainPeers(local);
        byte[] lengths = new byte[size * LENGTH_BYTES];
        allgather(
                ByteBuffer.allocate(LENGTH_BYTES)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(block.length)
                        .array(),
                lengths,
                LENGTH_BYTES);
        ByteBuffer lens = ByteBuffer.wrap(lengths).order(ByteOrder.LITTLE_ENDIAN);
        int[] blockLengths = new int[size];
        int longest = 0;
        for (int r = 0; r < size; r++) {
            long len = lens.getLong();
            if (len < 0 || len > Integer.MAX_VALUE / size) {
                throw new UromException(
                        UromStatus.INVALID_VALUE,
                        "rank " + r + " announced a domain block of " + Long.toUnsignedString(len) + " bytes");
            }
            blockLengths[r] = (int) len;
            longest = Math.max(longest, (int) len);
        }
        byte[] all = new byte[size * longest];
        allgather(Arrays.copyOf(block, longest), all, longest);
        List<DomainPeer> table = new ArrayList<>();
        Map<Long, Integer> rankOf = new HashMap<>();
        for (int r = 0; r < size; r++) {
            List<DomainPeer> theirs;
            try {
                theirs = FrameCodec.decodeDomainPeers(
                        Arrays.copyOfRange(all, r * longest, (r + 1) * longest), blockLengths[r]);
            } catch (WireException e) {
                throw new UromException(
                        UromStatus.INVALID_VALUE, "the domain block of rank " + r + " is malformed: " + e.getMessage());
            }
            for (DomainPeer p : theirs) {
                Integer before = rankOf.putIfAbsent(p.domainId(), r);
                if (before != null) {
                    throw new UromException(
                            UromStatus.INVALID_VALUE,
                            "domain id " + Long.toUnsignedString(p.domainId()) + " is not unique: rank " + before
                                    + " and rank " + r + " both use it");
                }
                table.add(p);
            }
        }
        for (int i = 0; i < workers.size(); i++) {
            Message reply = await(workers.get(i), workers.get(i).request(new DomainSet(domainIds[i], table)));
            if (reply instanceof DomainSetReply d && d.status() != UromStatus.SUCCESS) {
                throw new UromException(
                        d.status(),
                        "worker " + Long.toUnsignedString(workers.get(i).id()) + " refused the domain: " + d.message());
            } else if (!(reply instanceof DomainSetReply)) {
                throw unexpected(workers.get(i), reply);
            }
        }
        peers = table.stream().map(Domain::peer).toList();
    }

    static Peer peer(DomainPeer p) {
        List<PeerAddress> addresses = p.addresses().stream()
                .map(a -> new PeerAddress(a.pluginId(), a.address(), a.transport()))
                .toList();
        List<RegisteredBuffer> buffers = p.segments().stream()
                .map(s -> new RegisteredBuffer(s.va(), s.length(), s.memh(), s.mkey()))
                .toList();
        return new Peer(p.domainId(), addresses, buffers);
    }

    private List<DomainPeer.PluginAddress> addresses(Worker worker) throws UromException {
        List<DomainPeer.PluginAddress> out = new ArrayList<>();
        long mask = worker.pluginMask();
        while (mask != 0) {
            long pluginId = Long.lowestOneBit(mask);
            mask &= ~pluginId;
            Message reply = await(worker, worker.request(new AddressRequest(pluginId)));
            if (!(reply instanceof AddressReply a)) {
                throw unexpected(worker, reply);
            }
            if (a.status() != UromStatus.SUCCESS) {
                throw new UromException(
                        a.status(),
                        "worker " + Long.toUnsignedString(worker.id()) + ": plugin id 0x" + Long.toHexString(pluginId)
                                + " gave no address: " + a.status());
            }
            out.add(new DomainPeer.PluginAddress(pluginId, a.address(), a.transport(), a.seal()));
        }
        return out;
    }

    private List<DomainPeer.Segment> segments() {
        List<DomainPeer.Segment> out = new ArrayList<>(buffers.size());
        for (RegisteredBuffer b : buffers) {
            out.add(new DomainPeer.Segment(b.va(), b.length(), b.memh(), b.mkey()));
        }
        return out;
    }

    private static UromException unexpected(Worker worker, Message reply) {
        if (reply instanceof ErrorReply e) {
            return new UromException(e.status(), "worker " + Long.toUnsignedString(worker.id()) + ": " + e.message());
        }
        return new UromException(
                UromStatus.UNEXPECTED,
                "worker " + Long.toUnsignedString(worker.id()) + " answered " + reply.messageType());
    }

    private static Message await(Worker worker, CompletableFuture<Message> reply) throws UromException {
        try {
            return reply.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UromException u) {
                throw u;
            }
            throw new UromException(
                    UromStatus.UNEXPECTED, "worker " + Long.toUnsignedString(worker.id()) + ": " + e.getCause());
        } catch (TimeoutException e) {
            throw new UromException(
                    UromStatus.TIME_OUT,
                    "worker " + Long.toUnsignedString(worker.id()) + " did not answer within " + PATIENCE.toSeconds()
                            + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UromException(
                    UromStatus.UNEXPECTED,
                    "interrupted while waiting for worker " + Long.toUnsignedString(worker.id()));
        }
    }

    private void allgather(byte[] send, byte[] recv, int len) throws UromException {
        OobRequest request = oob.allgather(send, recv, len);
        try {
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            long pause = 1_000L;
            while (!oob.test(request)) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new UromException(
                            UromStatus.TIME_OUT,
                            "the allgather of rank " + oob.index() + " did not complete within " + PATIENCE.toSeconds()
                                    + " s");
                }
                LockSupport.parkNanos(pause);
                pause = Math.min(pause * 2, 1_000_000L);
            }
        } finally {
            oob.free(request);
        }
    }
}
