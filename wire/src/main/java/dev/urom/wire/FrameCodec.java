// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import dev.urom.spi.Api;
import dev.urom.spi.PluginInfo;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.AddressRequest;
import dev.urom.wire.Message.Challenge;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.DomainSet;
import dev.urom.wire.Message.DomainSetReply;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.Proof;
import dev.urom.wire.Message.ServiceInfoReply;
import dev.urom.wire.Message.ServiceInfoRequest;
import dev.urom.wire.Message.Stop;
import dev.urom.wire.Message.StopOk;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Message.WorkerStartRequest;
import dev.urom.wire.Message.WorkersInGroupReply;
import dev.urom.wire.Message.WorkersInGroupRequest;
import dev.urom.wire.Message.WorkersInfoReply;
import dev.urom.wire.Message.WorkersInfoRequest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes messages into frames and decodes frame contents into messages (docs/wire-protocol.md).
 *
 * <p>Stateless and thread-safe. Encoding throws {@link IllegalArgumentException} for a message
 * that cannot be represented (a string over 65535 bytes); decoding throws {@link WireException}
 * for anything malformed, never an unchecked exception.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public final class FrameCodec {
    /** Bytes of one PLUGINS_REPLY item. */
    static final int PLUGIN_ITEM_BYTES = 72;

    private static final int NAME_FIELD_BYTES = 48;
    private static final int KIND_NATIVE = 1;
    private static final int KIND_JAVA = 2;

    private FrameCodec() {}

    /** The whole frame, length field included, ready to write (position 0, limit = size). */
    public static ByteBuffer encode(long requestId, Message m) {
        ByteBuffer[] parts = encodeParts(requestId, m);
        if (parts.length == 1) {
            return parts[0];
        }
        int size = 0;
        for (ByteBuffer p : parts) {
            size += p.remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        for (ByteBuffer p : parts) {
            all.put(p.duplicate());
        }
        return all.flip();
    }

    /**
     * The whole frame as buffers to write in order with a gathering write; a COMMAND's or
     * NOTIFY's payload is wrapped, not copied.
     */
    public static ByteBuffer[] encodeParts(long requestId, Message m) {
        if (m instanceof Command c) {
            ByteBuffer head = header(requestId, m, Command.HEADER_BYTES, c.payload().length)
                    .putLong(c.type())
                    .putLong(c.uromContext())
                    .putLong(c.payload().length)
                    .flip();
            return new ByteBuffer[] {head, ByteBuffer.wrap(c.payload())};
        }
        if (m instanceof Notify n) {
            ByteBuffer tail =
                    n.reason().isEmpty() ? null : reasonTrailer(n.reason().getBytes(StandardCharsets.UTF_8));
            ByteBuffer head = header(
                            requestId,
                            m,
                            Notify.HEADER_BYTES,
                            n.payload().length + (tail == null ? 0 : tail.remaining()))
                    .putLong(n.type())
                    .putLong(n.uromContext())
                    .putLong(n.payload().length)
                    .putInt(n.status().code())
                    .putInt(0)
                    .flip();
            return tail == null
                    ? new ByteBuffer[] {head, ByteBuffer.wrap(n.payload())}
                    : new ByteBuffer[] {head, ByteBuffer.wrap(n.payload()), tail};
        }
        BodyWriter w = new BodyWriter(128);
        w.u32(0).u16(m.messageType().code()).u16(0).u64(requestId);
        encodeBody(m, w);
        int frameLength = w.position() - Protocol.LENGTH_FIELD_BYTES;
        w.patchU32(0, frameLength);
        return new ByteBuffer[] {w.finish()};
    }

    /**
     * What follows a refused command's NOTIFY after its {@code plugin_notif}: {@code u16 reason_len}
     * and the reason's UTF-8 bytes (1 to {@link Notify#MAX_REASON_BYTES}), little-endian as every field.
     */
    public static ByteBuffer reasonTrailer(byte[] reason) {
        return ByteBuffer.allocate(2 + reason.length)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putShort((short) reason.length)
                .put(reason)
                .flip();
    }

    /**
     * Writes a whole NOTIFY frame into {@code out}, for a sender that reuses one buffer: the same
     * bytes as {@link #encode} of the {@link Notify} that {@code packed} and {@code reason} make,
     * with nothing allocated when {@code reason} is empty.
     *
     * @param out cleared, set little-endian, written and flipped: ready to write
     * @param packed a whole {@code struct urom_worker_notify}, header and payload, copied unchecked
     * @param reason a refused command's reason, written after the payload; {@code ""} for none
     * @return {@code out}
     * @throws java.nio.BufferOverflowException when the frame does not fit {@code out}
     * @throws IllegalArgumentException when {@code reason} is over {@link Notify#MAX_REASON_BYTES}
     *     bytes in UTF-8
     */
    public static ByteBuffer encodeNotify(ByteBuffer out, long requestId, byte[] packed, String reason) {
        byte[] reasonBytes = reason.isEmpty() ? null : reason.getBytes(StandardCharsets.UTF_8);
        if (reasonBytes != null && reasonBytes.length > Notify.MAX_REASON_BYTES) {
            throw new IllegalArgumentException("a NOTIFY reason of " + reasonBytes.length
                    + " bytes is over the limit of " + Notify.MAX_REASON_BYTES);
        }
        int trailerBytes = reasonBytes == null ? 0 : Short.BYTES + reasonBytes.length;
        out.clear()
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(Protocol.FRAME_HEADER_BYTES + packed.length + trailerBytes)
                .putShort((short) MessageType.NOTIFY.code())
                .putShort((short) 0)
                .putLong(requestId)
                .put(packed);
        if (reasonBytes != null) {
            out.putShort((short) reasonBytes.length).put(reasonBytes);
        }
        return out.flip();
    }

    private static ByteBuffer header(long requestId, Message m, int fixedBytes, int payloadBytes) {
        long frameLength = (long) Protocol.FRAME_HEADER_BYTES + fixedBytes + payloadBytes;
        if (frameLength > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    m.messageType() + " with " + payloadBytes + " payload bytes is too large to encode");
        }
        return ByteBuffer.allocate(Protocol.LENGTH_FIELD_BYTES + Protocol.FRAME_HEADER_BYTES + fixedBytes)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt((int) frameLength)
                .putShort((short) m.messageType().code())
                .putShort((short) 0)
                .putLong(requestId);
    }

    private static void encodeBody(Message m, BodyWriter w) {
        if (m instanceof Hello h) {
            w.u32(h.magic())
                    .u16(h.version())
                    .u16(h.role().code())
                    .u32(h.nonce().length)
                    .bytes(h.nonce())
                    .string("HELLO principal", h.principal());
        } else if (m instanceof Challenge c) {
            w.u32(c.nonce().length).bytes(c.nonce());
        } else if (m instanceof Proof p) {
            w.u32(p.mac().length).bytes(p.mac());
        } else if (m instanceof HelloOk ok) {
            w.u16(ok.version())
                    .u16(0)
                    .u32(ok.maxMessageSize())
                    .u64(ok.connectionId())
                    .u32(ok.maxInflight())
                    .u32(0)
                    .string("HELLO_OK principal", ok.principal())
                    .u32(ok.serverProof().length)
                    .bytes(ok.serverProof());
        } else if (m instanceof ErrorReply e) {
            w.u32(e.status().code()).string("ERROR message", e.message());
        } else if (m instanceof PluginsReply r) {
            w.u32(r.plugins().size());
            for (ServicePlugin p : r.plugins()) {
                byte[] name = p.info().name().getBytes(StandardCharsets.UTF_8);
                w.u64(p.info().id())
                        .u64(p.info().version())
                        .bytes(name)
                        .zeros(NAME_FIELD_BYTES - name.length)
                        .u8(p.kind().equals(ServicePlugin.NATIVE) ? KIND_NATIVE : KIND_JAVA)
                        .zeros(7);
            }
        } else if (m instanceof WorkerStartRequest s) {
            w.u64(s.workerId()).u64(s.pluginMask()).u64(s.gid()).u32(s.env().size());
            for (String e : s.env()) {
                w.string("WORKER_START env entry", e);
            }
            w.u32(s.cpus().size());
            for (int cpu : s.cpus()) {
                w.u32(cpu);
            }
        } else if (m instanceof WorkerStartReply r) {
            w.u32(r.status().code())
                    .u32(0)
                    .u64(r.workerId())
                    .u64(r.gid())
                    .u64(r.pluginMask())
                    .string("WORKER_START_REPLY worker address", r.workerAddress())
                    .string("WORKER_START_REPLY message", r.message());
        } else if (m instanceof WorkersInGroupRequest g) {
            w.u64(g.gid());
        } else if (m instanceof WorkersInGroupReply r) {
            w.u32(r.workerIds().size());
            for (long id : r.workerIds()) {
                w.u64(id);
            }
        } else if (m instanceof WorkersInfoRequest g) {
            w.u64(g.gid());
        } else if (m instanceof WorkersInfoReply r) {
            w.u32(r.workers().size());
            for (ServiceWorker worker : r.workers()) {
                w.u64(worker.id())
                        .u64(worker.gid())
                        .u64(worker.pluginMask())
                        .u32(worker.state().code())
                        .u32(0)
                        .u64(worker.pid())
                        .u64(worker.uptimeMillis())
                        .u64(worker.commandsServed())
                        .u32(worker.plugins().size());
                for (String plugin : worker.plugins()) {
                    w.string("WORKERS_INFO_REPLY plugin name", plugin);
                }
            }
        } else if (m instanceof ServiceInfoReply r) {
            w.u32(r.cpus().size());
            for (int cpu : r.cpus()) {
                w.u32(cpu);
            }
            w.u32(r.maxWorkers()).u32(0);
        } else if (m instanceof AddressRequest a) {
            w.u64(a.pluginId());
        } else if (m instanceof AddressReply a) {
            w.u32(a.status().code())
                    .u32(0)
                    .u32(a.address().length)
                    .bytes(a.address())
                    .string("ADDRESS_REPLY transport", a.transport())
                    .u32(a.seal().length)
                    .bytes(a.seal());
        } else if (m instanceof DomainSet d) {
            w.u64(d.ownDomainId()).u32(d.peers().size());
            for (DomainPeer peer : d.peers()) {
                writePeer(w, peer);
            }
        } else if (m instanceof DomainSetReply d) {
            w.u32(d.status().code()).string("DOMAIN_SET_REPLY message", d.message());
        } else if (!(m instanceof PluginsRequest
                || m instanceof ServiceInfoRequest
                || m instanceof Stop
                || m instanceof StopOk)) {
            throw new IllegalArgumentException("no encoding for " + m.getClass().getName());
        }
    }

    private static void writePeer(BodyWriter w, DomainPeer peer) {
        w.u64(peer.domainId()).u32(peer.addresses().size());
        for (DomainPeer.PluginAddress a : peer.addresses()) {
            w.u64(a.pluginId())
                    .u32(a.address().length)
                    .bytes(a.address())
                    .string("DOMAIN_SET transport", a.transport())
                    .u32(a.seal().length)
                    .bytes(a.seal());
        }
        w.u32(peer.segments().size());
        for (DomainPeer.Segment s : peer.segments()) {
            w.u64(s.va())
                    .u64(s.length())
                    .u32(s.memh().length)
                    .bytes(s.memh())
                    .u32(s.mkey().length)
                    .bytes(s.mkey());
        }
    }

    /**
     * One domain peer in the layout DOMAIN_SET uses for each of its peers; what a host hands the
     * other ranks through the out-of-band allgather.
     */
    public static byte[] encodeDomainPeers(List<DomainPeer> peers) {
        BodyWriter w = new BodyWriter(64);
        w.u32(peers.size());
        for (DomainPeer peer : peers) {
            writePeer(w, peer);
        }
        ByteBuffer b = w.finish();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /**
     * Reads what {@link #encodeDomainPeers} wrote from the first {@code length} bytes of {@code
     * block}; bytes after them (padding) are ignored.
     *
     * @throws WireException when those bytes are not exactly a list of peers
     */
    public static List<DomainPeer> decodeDomainPeers(byte[] block, int length) throws WireException {
        if (length < 0 || length > block.length) {
            throw new WireException(
                    WireException.Reason.MALFORMED,
                    "domain block of " + length + " bytes does not fit its buffer of " + block.length);
        }
        BodyReader r = new BodyReader(ByteBuffer.wrap(block, 0, length), MessageType.DOMAIN_SET);
        List<DomainPeer> peers = peers(r);
        r.finish();
        return peers;
    }

    private static List<DomainPeer> peers(BodyReader r) throws WireException {
        int count = r.count("peers", 16);
        List<DomainPeer> peers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String at = "peers[" + i + "]";
            long domainId = r.u64(at + ".domain_id");
            int addressCount = r.count(at + ".addresses", 18);
            List<DomainPeer.PluginAddress> addresses = new ArrayList<>(addressCount);
            for (int j = 0; j < addressCount; j++) {
                String item = at + ".addresses[" + j + "]";
                long pluginId = r.u64(item + ".plugin_id");
                byte[] address = sizedBytes(r, item + ".address");
                String transport = transport(r, item + ".transport");
                addresses.add(
                        new DomainPeer.PluginAddress(pluginId, address, transport, sizedBytes(r, item + ".seal")));
            }
            int segmentCount = r.count(at + ".segments", 24);
            List<DomainPeer.Segment> segments = new ArrayList<>(segmentCount);
            for (int j = 0; j < segmentCount; j++) {
                String seg = at + ".segments[" + j + "]";
                long va = r.u64(seg + ".va");
                long len = r.u64(seg + ".len");
                byte[] memh = sizedBytes(r, seg + ".memh");
                segments.add(new DomainPeer.Segment(va, len, memh, sizedBytes(r, seg + ".mkey")));
            }
            try {
                peers.add(new DomainPeer(domainId, addresses, segments));
            } catch (IllegalArgumentException e) {
                throw r.malformed(at + ": " + e.getMessage());
            }
        }
        return peers;
    }

    /** A transport field: {@code ""} (none) or a transport name; anything else is malformed. */
    private static String transport(BodyReader r, String field) throws WireException {
        String transport = r.string(field);
        try {
            DomainPeer.checkTransport(transport);
        } catch (IllegalArgumentException e) {
            throw r.malformed(field + ": " + e.getMessage());
        }
        return transport;
    }

    private static byte[] sizedBytes(BodyReader r, String field) throws WireException {
        return r.bytes(r.u32(field + " length"), field);
    }

    /**
     * Decodes one frame's content: everything after the length field (type, flags, request id,
     * body), exactly {@code frame.remaining()} bytes of it. Consumes {@code frame}.
     */
    public static Frame decode(ByteBuffer frame) throws WireException {
        if (frame.remaining() < Protocol.FRAME_HEADER_BYTES) {
            throw new WireException(
                    WireException.Reason.MALFORMED,
                    "frame of " + frame.remaining() + " bytes is shorter than its " + Protocol.FRAME_HEADER_BYTES
                            + "-byte header");
        }
        ByteBuffer in = frame.slice().order(ByteOrder.LITTLE_ENDIAN);
        frame.position(frame.limit());
        int code = Short.toUnsignedInt(in.getShort());
        in.getShort();
        long requestId = in.getLong();
        MessageType type = MessageType.fromCode(code);
        if (type == null) {
            throw new WireException(WireException.Reason.UNKNOWN_TYPE, "unknown message type " + code);
        }
        BodyReader r = new BodyReader(in, type);
        Message m = decodeBody(type, r);
        r.finish();
        return new Frame(requestId, m);
    }

    private static Message decodeBody(MessageType type, BodyReader r) throws WireException {
        switch (type) {
            case HELLO: {
                int magic = r.i32("magic");
                int version = r.u16("version");
                int roleCode = r.u16("role");
                Role role = Role.fromCode(roleCode);
                if (role == null) {
                    throw r.malformed("role " + roleCode + " is neither 1 (host) nor 2 (worker)");
                }
                if (magic != Protocol.MAGIC || version != Protocol.VERSION) {
                    // another protocol or version: what follows is not ours to read; the handshake refuses it by
                    // version
                    r.skip(r.remaining(), "the rest of a HELLO of version " + version);
                    return new Hello(magic, version, role, new byte[0], "");
                }
                byte[] nonce = sizedBytes(r, "nonce");
                return new Hello(magic, version, role, nonce, r.string("principal"));
            }
            case CHALLENGE:
                return new Challenge(sizedBytes(r, "nonce"));
            case PROOF:
                return new Proof(sizedBytes(r, "mac"));
            case HELLO_OK: {
                int version = r.u16("version");
                r.skip(2, "reserved");
                long max = r.u32("max_msg_size");
                if (max > Integer.MAX_VALUE - 64) {
                    throw r.malformed("max_msg_size " + max + " is out of range");
                }
                long connectionId = r.u64("connection_id");
                long maxInflight = r.u32("max_inflight");
                if (maxInflight > Integer.MAX_VALUE) {
                    throw r.malformed("max_inflight " + maxInflight + " is out of range");
                }
                r.skip(4, "reserved");
                String principal = r.string("principal");
                return new HelloOk(
                        version, (int) max, connectionId, (int) maxInflight, principal, sizedBytes(r, "server_proof"));
            }
            case ERROR:
                return new ErrorReply(status(r), r.string("message"));
            case PLUGINS:
                return new PluginsRequest();
            case PLUGINS_REPLY:
                return new PluginsReply(plugins(r));
            case WORKER_START: {
                long workerId = r.u64("worker_id");
                long mask = r.u64("plugin_mask");
                long gid = r.u64("gid");
                int envCount = r.count("env", 2);
                List<String> env = new ArrayList<>(envCount);
                for (int i = 0; i < envCount; i++) {
                    env.add(r.string("env[" + i + "]"));
                }
                int cpuCount = r.count("cpus", 4);
                List<Integer> cpus = new ArrayList<>(cpuCount);
                for (int i = 0; i < cpuCount; i++) {
                    long cpu = r.u32("cpus[" + i + "]");
                    if (cpu > Integer.MAX_VALUE) {
                        throw r.malformed("cpus[" + i + "] " + cpu + " is out of range");
                    }
                    cpus.add((int) cpu);
                }
                return new WorkerStartRequest(workerId, mask, gid, env, cpus);
            }
            case WORKER_START_REPLY: {
                UromStatus status = status(r);
                r.skip(4, "reserved");
                long workerId = r.u64("worker_id");
                long gid = r.u64("gid");
                long mask = r.u64("plugin_mask");
                return new WorkerStartReply(
                        status, workerId, gid, mask, r.string("worker_address"), r.string("message"));
            }
            case WORKERS_IN_GROUP:
                return new WorkersInGroupRequest(r.u64("gid"));
            case WORKERS_IN_GROUP_REPLY: {
                int count = r.count("worker_ids", 8);
                List<Long> ids = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    ids.add(r.u64("worker_ids[" + i + "]"));
                }
                return new WorkersInGroupReply(ids);
            }
            case WORKERS_INFO:
                return new WorkersInfoRequest(r.u64("gid"));
            case WORKERS_INFO_REPLY:
                return workersInfo(r);
            case SERVICE_INFO:
                return new ServiceInfoRequest();
            case SERVICE_INFO_REPLY:
                return serviceInfo(r);
            case COMMAND: {
                long pluginType = r.u64("type");
                long context = r.u64("urom_context");
                long len = r.u64("len");
                if (len != r.remaining()) {
                    throw r.malformed(
                            "len says " + Long.toUnsignedString(len) + " bytes but " + r.remaining() + " follow");
                }
                return new Command(pluginType, context, r.bytes(len, "plugin_cmd"));
            }
            case NOTIFY: {
                long pluginType = r.u64("type");
                long context = r.u64("urom_context");
                long len = r.u64("len");
                UromStatus status = status(r);
                r.skip(4, "reserved");
                if (Long.compareUnsigned(len, r.remaining()) > 0) {
                    throw r.malformed(
                            "len says " + Long.toUnsignedString(len) + " bytes but " + r.remaining() + " follow");
                }
                byte[] notif = r.bytes(len, "plugin_notif");
                if (r.remaining() == 0) {
                    return new Notify(pluginType, context, status, notif);
                }
                int reasonLength = r.u16("reason_len");
                if (reasonLength == 0 || reasonLength > Notify.MAX_REASON_BYTES || reasonLength != r.remaining()) {
                    throw r.malformed("reason_len " + reasonLength + " does not fit: " + r.remaining()
                            + " bytes follow and a reason is 1 to " + Notify.MAX_REASON_BYTES + " bytes");
                }
                return new Notify(
                        pluginType,
                        context,
                        status,
                        notif,
                        new String(r.bytes(reasonLength, "reason"), StandardCharsets.UTF_8));
            }
            case ADDRESS:
                return new AddressRequest(r.u64("plugin_id"));
            case ADDRESS_REPLY: {
                UromStatus status = status(r);
                r.skip(4, "reserved");
                byte[] address = sizedBytes(r, "address");
                String transport = transport(r, "transport");
                return new AddressReply(status, address, transport, sizedBytes(r, "seal"));
            }
            case DOMAIN_SET: {
                long own = r.u64("own_domain_id");
                return new DomainSet(own, peers(r));
            }
            case DOMAIN_SET_REPLY:
                return new DomainSetReply(status(r), r.string("message"));
            case STOP:
                return new Stop();
            case STOP_OK:
                return new StopOk();
            default:
                throw new WireException(WireException.Reason.UNKNOWN_TYPE, "unknown message type " + type.code());
        }
    }

    private static UromStatus status(BodyReader r) throws WireException {
        int code = r.i32("status");
        try {
            return UromStatus.fromCode(code);
        } catch (IllegalArgumentException e) {
            throw r.malformed(e.getMessage());
        }
    }

    /** The bytes of one WORKERS_INFO_REPLY item with no plugin name: six u64, two u32 and the names' count. */
    private static final int WORKER_INFO_MIN_BYTES = 6 * 8 + 2 * 4 + 4;

    private static WorkersInfoReply workersInfo(BodyReader r) throws WireException {
        int count = r.count("workers", WORKER_INFO_MIN_BYTES);
        List<ServiceWorker> workers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String at = "workers[" + i + "]";
            long id = r.u64(at + ".worker_id");
            long gid = r.u64(at + ".gid");
            long mask = r.u64(at + ".plugin_mask");
            long stateCode = r.u32(at + ".state");
            ServiceWorker.State state = ServiceWorker.State.fromCode(stateCode);
            if (state == null) {
                throw r.malformed(at + ".state " + stateCode + " is not a worker state (1 starting, 2 running)");
            }
            r.skip(4, at + ".reserved");
            long pid = r.u64(at + ".pid");
            long uptime = r.u64(at + ".uptime_ms");
            long commands = r.u64(at + ".commands");
            if (pid < -1 || uptime < 0) {
                throw r.malformed(at
                        + (pid < -1 ? ".pid " + pid + " is neither a process id nor -1" : ".uptime_ms is over 2^63-1"));
            }
            int names = r.count(at + ".plugins", 2);
            List<String> plugins = new ArrayList<>(names);
            for (int j = 0; j < names; j++) {
                plugins.add(r.string(at + ".plugins[" + j + "]"));
            }
            workers.add(new ServiceWorker(id, gid, mask, state, pid, uptime, commands, plugins));
        }
        return new WorkersInfoReply(workers);
    }

    private static ServiceInfoReply serviceInfo(BodyReader r) throws WireException {
        int count = r.count("cpus", 4);
        if (count > ServiceInfoReply.MAX_CPUS) {
            throw r.malformed("cpus count " + count + " is over the limit of " + ServiceInfoReply.MAX_CPUS);
        }
        List<Integer> cpus = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long cpu = r.u32("cpus[" + i + "]");
            if (cpu >= ServiceInfoReply.MAX_CPUS) {
                throw r.malformed("cpus[" + i + "] " + cpu + " is not below " + ServiceInfoReply.MAX_CPUS);
            }
            cpus.add((int) cpu);
        }
        long maxWorkers = r.u32("max_workers");
        if (maxWorkers > Integer.MAX_VALUE) {
            throw r.malformed("max_workers " + maxWorkers + " is out of range");
        }
        r.skip(4, "reserved");
        try {
            return new ServiceInfoReply(cpus, (int) maxWorkers);
        } catch (IllegalArgumentException e) {
            throw r.malformed(e.getMessage());
        }
    }

    private static List<ServicePlugin> plugins(BodyReader r) throws WireException {
        int count = r.count("plugins", PLUGIN_ITEM_BYTES);
        List<ServicePlugin> plugins = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long id = r.u64("plugins[" + i + "].id");
            long version = r.u64("plugins[" + i + "].version");
            byte[] field = r.bytes(NAME_FIELD_BYTES, "plugins[" + i + "].name");
            int end = 0;
            while (end < NAME_FIELD_BYTES && field[end] != 0) {
                end++;
            }
            if (end == NAME_FIELD_BYTES) {
                throw r.malformed("plugins[" + i + "].name has no terminating NUL");
            }
            String name = r.utf8(ByteBuffer.wrap(field, 0, end), "plugins[" + i + "].name");
            int kindCode = r.u8("plugins[" + i + "].kind");
            r.skip(7, "plugins[" + i + "].pad");
            String kind;
            if (kindCode == KIND_NATIVE) {
                kind = ServicePlugin.NATIVE;
            } else if (kindCode == KIND_JAVA) {
                kind = ServicePlugin.JAVA;
            } else {
                throw r.malformed("plugins[" + i + "].kind " + kindCode + " is neither 1 (native) nor 2 (java)");
            }
            try {
                plugins.add(new ServicePlugin(new PluginInfo(id, version, name), kind));
            } catch (IllegalArgumentException e) {
                throw r.malformed("plugins[" + i + "]: " + e.getMessage());
            }
        }
        return plugins;
    }
}
