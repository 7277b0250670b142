// SPDX-License-Identifier: Apache-2.0
package dev.urom.oob;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * An allgather between processes (or threads) over TCP with a rendezvous: rank 0 listens on the
 * rendezvous address, every other rank connects to it once and keeps the connection. In each
 * round every rank sends rank 0 its {@code size}, {@code rank}, {@code len} and block; rank 0
 * checks that all agree and answers every rank with the concatenation, or with the one-line
 * reason they do not agree, which then fails that round on every rank.
 *
 * <p>Messages (little-endian): rank → 0 {@code u32 size, u32 rank, u32 len, u8[len]}; 0 → rank
 * {@code i32 status, u32 n, u8[n]} (status 0: the {@code size * len} bytes; otherwise a UTF-8
 * reason).
 *
 * <p>Thread-safe. Each instance runs its rounds in order on its own daemon thread; {@link
 * #allgather} never blocks. A failed round leaves the instance broken: later rounds fail too.
 * {@link #close} closes the sockets. Rank 0 binds its listening socket in the constructor.
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public final class TcpRendezvousAllgather implements OobAllgather, AutoCloseable {
    private static final long CONNECT_PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int STATUS_OK = 0;
    private static final int MAX_SKIP_BYTES = 1 << 20;

    private final int rank;
    private final int size;
    private final InetSocketAddress rendezvous;
    private final ExecutorService thread;
    private final ServerSocket server;
    private final Link[] peers;
    private volatile Link toRoot;
    private volatile String broken;

    /**
     * @throws IllegalArgumentException when {@code rank} is outside {@code 0..size-1}
     * @throws UromException (rank 0) when the rendezvous address cannot be bound
     */
    public TcpRendezvousAllgather(int rank, int size, InetSocketAddress rendezvous) throws UromException {
        AllgatherChecks.checkRank(rank, size);
        this.rank = rank;
        this.size = size;
        this.rendezvous = requireNonNull(rendezvous, "rendezvous is null");
        this.peers = new Link[size];
        if (rank == 0) {
            try {
                ServerSocket s = new ServerSocket();
                s.setReuseAddress(true);
                s.bind(rendezvous, size);
                server = s;
            } catch (IOException e) {
                throw new UromException(
                        UromStatus.IO_FAILED,
                        "cannot listen on the rendezvous address " + rendezvous + ": " + e.getMessage());
            }
        } else {
            server = null;
        }
        thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "urom-allgather-rank-" + rank);
            t.setDaemon(true);
            return t;
        });
    }

    /** Where rank 0 listens (the bound port, when the rendezvous named port 0). */
    public InetSocketAddress listeningAddress() {
        return server == null ? rendezvous : new InetSocketAddress(rendezvous.getAddress(), server.getLocalPort());
    }

    @Override
    public OobRequest allgather(byte[] send, byte[] recv, int len) throws UromException {
        AllgatherChecks.checkBuffers(send, recv, len, size);
        byte[] block = java.util.Arrays.copyOf(send, len);
        OobRequest request = new OobRequest();
        try {
            thread.execute(new Round(block, recv, request));
        } catch (RejectedExecutionException e) {
            throw new UromException(UromStatus.BAD_STATE, "the allgather of rank " + rank + " is closed");
        }
        return request;
    }

    /** One queued allgather; {@link #close} fails those that never ran. */
    private final class Round implements Runnable {
        private final byte[] block;
        private final byte[] recv;
        private final OobRequest request;

        Round(byte[] block, byte[] recv, OobRequest request) {
            this.block = block;
            this.recv = recv;
            this.request = request;
        }

        @Override
        public void run() {
            runRound(block, recv, request);
        }
    }

    private void runRound(byte[] block, byte[] recv, OobRequest request) {
        if (broken != null) {
            request.fail(new UromException(UromStatus.BAD_STATE, broken));
            return;
        }
        try {
            String refusal = rank == 0 ? gatherAtRoot(block, recv) : exchangeWithRoot(block, recv);
            if (refusal != null) {
                broken = refusal;
                request.fail(new UromException(UromStatus.INVALID_VALUE, refusal));
            } else {
                request.complete();
            }
        } catch (IOException e) {
            broken = "allgather of rank " + rank + " over rendezvous " + rendezvous + " failed: " + e.getMessage();
            request.fail(new UromException(UromStatus.IO_FAILED, broken));
        }
    }

    /** Rank 0: collects every rank's block, checks, answers everyone. Returns the refusal, or null. */
    private String gatherAtRoot(byte[] own, byte[] recv) throws IOException {
        byte[][] blocks = new byte[size][];
        blocks[0] = own;
        String refusal = null;
        if (peersMissing()) {
            refusal = acceptPeers();
        }
        for (int r = 1; r < size && refusal == null; r++) {
            DataInputStream in = peers[r].in();
            int theirSize = readInt(in);
            int theirRank = readInt(in);
            int theirLen = readInt(in);
            if (theirSize != size || theirLen != own.length) {
                // Read what the rank sent, so that closing never resets a connection with unread bytes.
                in.skipNBytes(Math.max(0, Math.min(theirLen, MAX_SKIP_BYTES)));
                refusal = theirSize != size
                        ? "allgather ranks disagree on the size: rank 0 has " + size + ", rank " + theirRank + " has "
                                + theirSize
                        : "allgather ranks disagree on the length: rank 0 sends " + own.length + " bytes, rank "
                                + theirRank + " sends " + theirLen;
                break;
            }
            blocks[r] = in.readNBytes(theirLen);
            if (blocks[r].length != theirLen) {
                throw new IOException("rank " + theirRank + " closed the connection in the middle of its block");
            }
        }
        if (refusal != null) {
            byte[] reason = refusal.getBytes(StandardCharsets.UTF_8);
            for (int r = 1; r < size; r++) {
                if (peers[r] != null) {
                    try {
                        writeReply(peers[r].out(), UromStatus.INVALID_VALUE.code(), reason);
                    } catch (IOException ignored) {
                        // that rank is gone; the others still get the reason
                    }
                }
            }
            return refusal;
        }
        byte[] all = new byte[size * own.length];
        for (int r = 0; r < size; r++) {
            System.arraycopy(blocks[r], 0, all, r * own.length, own.length);
        }
        for (int r = 1; r < size; r++) {
            writeReply(peers[r].out(), STATUS_OK, all);
        }
        System.arraycopy(all, 0, recv, 0, all.length);
        return null;
    }

    private boolean peersMissing() {
        for (int r = 1; r < size; r++) {
            if (peers[r] == null) {
                return true;
            }
        }
        return false;
    }

    /** Accepts the other ranks; each names its size and rank in its first header, read ahead here. */
    private String acceptPeers() throws IOException {
        int connected = 0;
        while (connected < size - 1) {
            Socket s = server.accept();
            PushbackInputStream in = new PushbackInputStream(s.getInputStream(), 8);
            byte[] head = in.readNBytes(8);
            if (head.length != 8) {
                s.close();
                throw new IOException("a rank closed its connection before its first header");
            }
            in.unread(head);
            ByteBuffer b = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
            int theirSize = b.getInt();
            int theirRank = b.getInt();
            Link link = Link.of(s, in);
            String refusal = null;
            if (theirSize != size) {
                refusal = "allgather ranks disagree on the size: rank 0 has " + size + ", rank " + theirRank + " has "
                        + theirSize;
            } else if (theirRank < 1 || theirRank >= size || peers[theirRank] != null) {
                refusal = "allgather rank " + theirRank + " is a duplicate or outside 1.." + (size - 1);
            }
            if (refusal != null) {
                try {
                    writeReply(link.out(), UromStatus.INVALID_VALUE.code(), refusal.getBytes(StandardCharsets.UTF_8));
                } finally {
                    link.socket().close();
                    // ranks still connecting then fail at once instead of waiting for an answer
                    server.close();
                }
                return refusal;
            }
            peers[theirRank] = link;
            connected++;
        }
        return null;
    }

    /** Another rank: sends its block to rank 0 and reads the answer. Returns the refusal, or null. */
    private String exchangeWithRoot(byte[] block, byte[] recv) throws IOException {
        if (toRoot == null) {
            toRoot = connect();
        }
        // One write: header and block reach rank 0 together, even when it refuses after the header.
        byte[] message = ByteBuffer.allocate(12 + block.length)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(size)
                .putInt(rank)
                .putInt(block.length)
                .put(block)
                .array();
        OutputStream out = toRoot.out();
        out.write(message);
        out.flush();
        DataInputStream in = toRoot.in();
        int status = readInt(in);
        int n = readInt(in);
        byte[] body = in.readNBytes(n);
        if (body.length != n) {
            throw new IOException("rank 0 closed the connection in the middle of its answer");
        }
        if (status != STATUS_OK) {
            return new String(body, StandardCharsets.UTF_8);
        }
        if (n != size * block.length) {
            throw new IOException("rank 0 answered " + n + " bytes, not " + size + " x " + block.length);
        }
        System.arraycopy(body, 0, recv, 0, n);
        return null;
    }

    private Link connect() throws IOException {
        long deadline = System.nanoTime() + CONNECT_PATIENCE_NANOS;
        long pause = 10;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(rendezvous);
                return Link.of(s, s.getInputStream());
            } catch (ConnectException e) {
                s.close();
                if (System.nanoTime() - deadline >= 0) {
                    throw new IOException("rank 0 did not listen on " + rendezvous + " within 60 s");
                }
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while connecting to " + rendezvous);
                }
                pause = Math.min(pause * 2, 200);
            }
        }
    }

    private static void writeReply(OutputStream out, int status, byte[] body) throws IOException {
        out.write(ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(status)
                .putInt(body.length)
                .array());
        out.write(body);
        out.flush();
    }

    private static int readInt(DataInputStream in) throws IOException {
        return Integer.reverseBytes(in.readInt());
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int index() {
        return rank;
    }

    /**
     * Closes every socket and ends the round thread: the round running fails with IO_FAILED, rounds
     * not yet run with BAD_STATE.
     */
    @Override
    public void close() {
        for (Runnable queued : thread.shutdownNow()) {
            if (queued instanceof Round round) {
                round.request.fail(new UromException(
                        UromStatus.BAD_STATE, "the allgather of rank " + rank + " was closed before this round ran"));
            }
        }
        closeQuietly(toRoot);
        for (Link link : peers) {
            closeQuietly(link);
        }
        if (server != null) {
            try {
                server.close();
            } catch (IOException ignored) {
                // nothing more to release
            }
        }
    }

    private static void closeQuietly(Link link) {
        if (link != null) {
            try {
                link.socket().close();
            } catch (IOException ignored) {
                // nothing more to release
            }
        }
    }

    /** One connection between rank 0 and another rank, with its streams. */
    private record Link(Socket socket, DataInputStream in, OutputStream out) {
        static Link of(Socket s, InputStream in) throws IOException {
            s.setTcpNoDelay(true);
            return new Link(s, new DataInputStream(in), s.getOutputStream());
        }
    }
}
