// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.Proofs;
import dev.urom.spi.Api;
import dev.urom.spi.TransportName;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * A message of the wire protocol: one record per message type of docs/wire-protocol.md.
 *
 * <p>Records are immutable, except that the byte arrays of {@link Command} and {@link Notify} are
 * not copied: whoever builds one of these hands its array over and must not change it afterwards.
 * Their {@code equals} compares array contents.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public sealed interface Message {

    /** The type code this message travels under. */
    MessageType messageType();

    /**
     * HELLO: the first frame of every connection, sent by the side that connects, with its fresh
     * nonce and the key name it will prove ({@code ""}: none; a Unix socket's peer credentials or an
     * insecure TCP listener decide). A HELLO of another version carries no nonce or principal.
     */
    record Hello(int magic, int version, Role role, byte[] nonce, String principal) implements Message {
        public Hello {
            requireNonNull(role, "role is null");
            requireNonNull(nonce, "nonce is null");
            requireNonNull(principal, "principal is null");
            checkU16("HELLO version", version);
        }

        /** HELLO of this protocol version with a fresh nonce and the given key name ("" for none). */
        public static Hello of(Role role, String principal) {
            return new Hello(Protocol.MAGIC, Protocol.VERSION, role, Proofs.nonce(), principal);
        }

        /** HELLO of this protocol version with a fresh nonce and no key name. */
        public static Hello of(Role role) {
            return of(role, "");
        }

        @Override
        public MessageType messageType() {
            return MessageType.HELLO;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Hello h
                    && h.magic == magic
                    && h.version == version
                    && h.role == role
                    && Arrays.equals(h.nonce, nonce)
                    && h.principal.equals(principal);
        }

        @Override
        public int hashCode() {
            return ((magic * 31 + version) * 31 + role.hashCode()) * 31
                    + Arrays.hashCode(nonce) * 31
                    + principal.hashCode();
        }

        @Override
        public String toString() {
            return "Hello[version=" + version + ", role=" + role + ", principal=" + principal + "]";
        }
    }

    /** CHALLENGE: the accepting side's fresh nonce; the connecting side answers PROOF. */
    record Challenge(byte[] nonce) implements Message {
        public Challenge {
            requireNonNull(nonce, "nonce is null");
        }

        @Override
        public MessageType messageType() {
            return MessageType.CHALLENGE;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Challenge c && Arrays.equals(c.nonce, nonce);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(nonce);
        }

        @Override
        public String toString() {
            return "Challenge[" + nonce.length + " bytes]";
        }
    }

    /** PROOF: the connecting side's HMAC over the handshake transcript ({@code Proofs.clientProof}). */
    record Proof(byte[] mac) implements Message {
        public Proof {
            requireNonNull(mac, "mac is null");
        }

        @Override
        public MessageType messageType() {
            return MessageType.PROOF;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Proof p && Arrays.equals(p.mac, mac);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(mac);
        }

        @Override
        public String toString() {
            return "Proof[" + mac.length + " bytes]";
        }
    }

    /**
     * HELLO_OK: the accepting side agrees. {@code connectionId} is this connection's dest_id at a
     * worker; {@code maxInflight} the most commands a worker lets this connection have outstanding (0
     * on a control connection); {@code principal} who the accepting side takes the peer for (a
     * principal's text form); {@code serverProof} its proof that it holds the key too (empty when no
     * key was proved).
     */
    record HelloOk(
            int version, int maxMessageSize, long connectionId, int maxInflight, String principal, byte[] serverProof)
            implements Message {
        public HelloOk {
            checkU16("HELLO_OK version", version);
            if (maxMessageSize < 0) {
                throw new IllegalArgumentException("HELLO_OK max message size " + maxMessageSize + " is negative");
            }
            if (maxInflight < 0) {
                throw new IllegalArgumentException("HELLO_OK max in-flight " + maxInflight + " is negative");
            }
            requireNonNull(principal, "principal is null");
            requireNonNull(serverProof, "serverProof is null");
        }

        @Override
        public MessageType messageType() {
            return MessageType.HELLO_OK;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof HelloOk h
                    && h.version == version
                    && h.maxMessageSize == maxMessageSize
                    && h.connectionId == connectionId
                    && h.maxInflight == maxInflight
                    && h.principal.equals(principal)
                    && Arrays.equals(h.serverProof, serverProof);
        }

        @Override
        public int hashCode() {
            return ((version * 31 + maxMessageSize) * 31 + Long.hashCode(connectionId)) * 31
                    + maxInflight * 31
                    + principal.hashCode()
                    + Arrays.hashCode(serverProof);
        }

        @Override
        public String toString() {
            return "HelloOk[version=" + version + ", maxMessageSize=" + maxMessageSize + ", connectionId="
                    + connectionId + ", maxInflight=" + maxInflight + ", principal=" + principal + ", serverProof="
                    + serverProof.length + " bytes]";
        }
    }

    /** ERROR: the reply to a request that failed, or a refusal before closing. */
    record ErrorReply(UromStatus status, String message) implements Message {
        public ErrorReply {
            requireNonNull(status, "status is null");
            requireNonNull(message, "message is null");
        }

        @Override
        public MessageType messageType() {
            return MessageType.ERROR;
        }
    }

    /** PLUGINS: asks the daemon for the plugins it can load. */
    record PluginsRequest() implements Message {
        @Override
        public MessageType messageType() {
            return MessageType.PLUGINS;
        }
    }

    /** PLUGINS_REPLY. */
    record PluginsReply(List<ServicePlugin> plugins) implements Message {
        public PluginsReply {
            plugins = List.copyOf(requireNonNull(plugins, "plugins is null"));
        }

        @Override
        public MessageType messageType() {
            return MessageType.PLUGINS_REPLY;
        }
    }

    /** WORKER_START: start a worker, or join the running one with that id. */
    record WorkerStartRequest(long workerId, long pluginMask, long gid, List<String> env, List<Integer> cpus)
            implements Message {
        public WorkerStartRequest {
            env = List.copyOf(requireNonNull(env, "env is null"));
            cpus = List.copyOf(requireNonNull(cpus, "cpus is null"));
            for (Integer cpu : cpus) {
                if (cpu < 0) {
                    throw new IllegalArgumentException("cpu " + cpu + " is negative");
                }
            }
        }

        @Override
        public MessageType messageType() {
            return MessageType.WORKER_START;
        }
    }

    /** WORKER_START_REPLY: where the worker listens (on success) or why it did not start. */
    record WorkerStartReply(
            UromStatus status, long workerId, long gid, long pluginMask, String workerAddress, String message)
            implements Message {
        public WorkerStartReply {
            requireNonNull(status, "status is null");
            requireNonNull(workerAddress, "workerAddress is null");
            requireNonNull(message, "message is null");
        }

        @Override
        public MessageType messageType() {
            return MessageType.WORKER_START_REPLY;
        }
    }

    /** WORKERS_IN_GROUP. */
    record WorkersInGroupRequest(long gid) implements Message {
        @Override
        public MessageType messageType() {
            return MessageType.WORKERS_IN_GROUP;
        }
    }

    /** WORKERS_IN_GROUP_REPLY. */
    record WorkersInGroupReply(List<Long> workerIds) implements Message {
        public WorkersInGroupReply {
            workerIds = List.copyOf(requireNonNull(workerIds, "workerIds is null"));
        }

        @Override
        public MessageType messageType() {
            return MessageType.WORKERS_IN_GROUP_REPLY;
        }
    }

    /** WORKERS_INFO: the caller's workers of group {@code gid} ({@link Protocol#ALL_GROUPS}: of every group), described. */
    record WorkersInfoRequest(long gid) implements Message {
        @Override
        public MessageType messageType() {
            return MessageType.WORKERS_INFO;
        }
    }

    /** WORKERS_INFO_REPLY. */
    record WorkersInfoReply(List<ServiceWorker> workers) implements Message {
        public WorkersInfoReply {
            workers = List.copyOf(requireNonNull(workers, "workers is null"));
        }

        @Override
        public MessageType messageType() {
            return MessageType.WORKERS_INFO_REPLY;
        }
    }

    /** SERVICE_INFO: asks the daemon what any of its workers may be given: the CPUs and how many workers. */
    record ServiceInfoRequest() implements Message {
        @Override
        public MessageType messageType() {
            return MessageType.SERVICE_INFO;
        }
    }

    /**
     * SERVICE_INFO_REPLY: the CPUs a WORKER_START may name, strictly ascending, at most {@link
     * #MAX_CPUS} of them, each below {@link #MAX_CPUS}; and the most workers one principal may have
     * (0: no bound).
     *
     * @throws IllegalArgumentException (constructor) for a list that breaks those rules or a
     *     negative {@code maxWorkers}
     */
    record ServiceInfoReply(List<Integer> cpus, int maxWorkers) implements Message {
        /** The most entries of {@code cpus}, and the bound of each: CPU numbers are below it. */
        public static final int MAX_CPUS = 1 << 16;

        public ServiceInfoReply {
            cpus = List.copyOf(requireNonNull(cpus, "cpus is null"));
            if (cpus.size() > MAX_CPUS) {
                throw new IllegalArgumentException(
                        "SERVICE_INFO_REPLY names " + cpus.size() + " cpus; the limit is " + MAX_CPUS);
            }
            int previous = -1;
            for (int cpu : cpus) {
                if (cpu < 0 || cpu >= MAX_CPUS) {
                    throw new IllegalArgumentException("cpu " + cpu + " is not below " + MAX_CPUS);
                }
                if (cpu <= previous) {
                    throw new IllegalArgumentException(
                            "cpu " + cpu + " follows cpu " + previous + ": the list is not strictly ascending");
                }
                previous = cpu;
            }
            if (maxWorkers < 0) {
                throw new IllegalArgumentException("SERVICE_INFO_REPLY max workers " + maxWorkers + " is negative");
            }
        }

        @Override
        public MessageType messageType() {
            return MessageType.SERVICE_INFO_REPLY;
        }
    }

    /** COMMAND: {@code struct urom_worker_cmd}; {@code type} is the plugin id. */
    record Command(long type, long uromContext, byte[] payload) implements Message {
        /** Bytes before the payload: type, urom_context, len. */
        public static final int HEADER_BYTES = WorkerCommand.HEADER_BYTES;

        public Command {
            requireNonNull(payload, "payload is null");
        }

        /** Size as {@code max_msg_size} counts it: header plus payload. */
        public int sizeWithHeader() {
            return HEADER_BYTES + payload.length;
        }

        @Override
        public MessageType messageType() {
            return MessageType.COMMAND;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Command c
                    && c.type == type
                    && c.uromContext == uromContext
                    && Arrays.equals(c.payload, payload);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(type) * 31 * 31 + Long.hashCode(uromContext) * 31 + Arrays.hashCode(payload);
        }

        @Override
        public String toString() {
            return "Command[type=0x" + Long.toHexString(type) + ", uromContext=" + uromContext + ", payload="
                    + payload.length + " bytes]";
        }
    }

    /**
     * NOTIFY: {@code struct urom_worker_notify} exactly as a plugin's {@code notif_pack} lays it out
     * (32-byte header, then the plugin's notification bytes), and, for a command its plugin refused,
     * the reason after them ({@code u16 reason_len}, UTF-8): diagnostic text beside the plugin's
     * bytes, never in them. Empty when there is none.
     */
    record Notify(long type, long uromContext, UromStatus status, byte[] payload, String reason) implements Message {
        /** Bytes before the payload: type, urom_context, len, status, reserved. */
        public static final int HEADER_BYTES = WorkerNotification.HEADER_BYTES;
        /** The most bytes of a reason, in UTF-8. */
        public static final int MAX_REASON_BYTES = 512;

        public Notify {
            requireNonNull(status, "status is null");
            requireNonNull(payload, "payload is null");
            requireNonNull(reason, "reason is null");
            // Most notifications have none: nothing to encode on the data path then.
            if (!reason.isEmpty() && reason.getBytes(StandardCharsets.UTF_8).length > MAX_REASON_BYTES) {
                throw new IllegalArgumentException(
                        "a NOTIFY reason of " + reason.getBytes(StandardCharsets.UTF_8).length
                                + " bytes is over the limit of " + MAX_REASON_BYTES);
            }
        }

        /** A NOTIFY without a reason. */
        public Notify(long type, long uromContext, UromStatus status, byte[] payload) {
            this(type, uromContext, status, payload, "");
        }

        /**
         * Parses the bytes a plugin's {@code packNotification} produced.
         *
         * @throws IllegalArgumentException when they are shorter than the header, when {@code len}
         *     does not match the bytes that follow, or when the status is not a DOCA status
         */
        public static Notify fromPacked(byte[] packed) {
            requireNonNull(packed, "packed is null");
            if (packed.length < HEADER_BYTES) {
                throw new IllegalArgumentException(
                        "packed notification has " + packed.length + " bytes; its header alone is " + HEADER_BYTES);
            }
            ByteBuffer in = ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN);
            long type = in.getLong();
            long context = in.getLong();
            long len = in.getLong();
            int status = in.getInt();
            in.getInt();
            if (len != packed.length - HEADER_BYTES) {
                throw new IllegalArgumentException("packed notification says len " + Long.toUnsignedString(len)
                        + " but " + (packed.length - HEADER_BYTES) + " payload bytes follow its header");
            }
            UromStatus parsedStatus = UromStatus.fromCode(status);
            return new Notify(type, context, parsedStatus, Arrays.copyOfRange(packed, HEADER_BYTES, packed.length));
        }

        /** The {@code struct urom_worker_notify} bytes: the same layout {@link #fromPacked} reads. */
        public byte[] packed() {
            return new WorkerNotification(0, type, uromContext, status, payload).pack();
        }

        @Override
        public MessageType messageType() {
            return MessageType.NOTIFY;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Notify n
                    && n.type == type
                    && n.uromContext == uromContext
                    && n.status == status
                    && Arrays.equals(n.payload, payload)
                    && n.reason.equals(reason);
        }

        @Override
        public int hashCode() {
            return ((Long.hashCode(type) * 31 + Long.hashCode(uromContext)) * 31 * 31
                                    + status.hashCode() * 31
                                    + Arrays.hashCode(payload))
                            * 31
                    + reason.hashCode();
        }

        @Override
        public String toString() {
            return "Notify[type=0x" + Long.toHexString(type) + ", uromContext=" + uromContext + ", status=" + status
                    + ", payload="
                    + (payload.length <= 32 ? HexFormat.of().formatHex(payload) : payload.length + " bytes")
                    + (reason.isEmpty() ? "" : ", reason=" + reason) + "]";
        }
    }

    /** STOP: this connection is done with the worker. */
    record Stop() implements Message {
        @Override
        public MessageType messageType() {
            return MessageType.STOP;
        }
    }

    /** STOP_OK: the worker then closes the connection. */
    record StopOk() implements Message {
        @Override
        public MessageType messageType() {
            return MessageType.STOP_OK;
        }
    }

    /** ADDRESS: asks a worker for the address ({@code addr}) of its plugin {@code pluginId}. */
    record AddressRequest(long pluginId) implements Message {
        @Override
        public MessageType messageType() {
            return MessageType.ADDRESS;
        }
    }

    /**
     * ADDRESS_REPLY: the plugin's address, the name of its transport ({@code ""}: none) and the
     * worker's seal over both on SUCCESS; no bytes and no name otherwise.
     *
     * @throws IllegalArgumentException (constructor) when {@code transport} is neither empty nor a
     *     {@link TransportName transport name}
     */
    record AddressReply(UromStatus status, byte[] address, String transport, byte[] seal) implements Message {
        public AddressReply {
            requireNonNull(status, "status is null");
            requireNonNull(address, "address is null");
            DomainPeer.checkTransport(transport);
            requireNonNull(seal, "seal is null");
        }

        /** A reply without an address: {@code status} says why. */
        public static AddressReply failed(UromStatus status) {
            return new AddressReply(status, new byte[0], "", new byte[0]);
        }

        @Override
        public MessageType messageType() {
            return MessageType.ADDRESS_REPLY;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AddressReply r
                    && r.status == status
                    && Arrays.equals(r.address, address)
                    && r.transport.equals(transport)
                    && Arrays.equals(r.seal, seal);
        }

        @Override
        public int hashCode() {
            return ((status.hashCode() * 31 + Arrays.hashCode(address)) * 31 + transport.hashCode()) * 31
                    + Arrays.hashCode(seal);
        }

        @Override
        public String toString() {
            return "AddressReply[status=" + status + ", address=" + address.length + " bytes, transport=" + transport
                    + ", seal=" + seal.length + " bytes]";
        }
    }

    /** DOMAIN_SET: the whole domain table, and which of its peers the receiving worker is. */
    record DomainSet(long ownDomainId, List<DomainPeer> peers) implements Message {
        public DomainSet {
            peers = List.copyOf(requireNonNull(peers, "peers is null"));
        }

        @Override
        public MessageType messageType() {
            return MessageType.DOMAIN_SET;
        }
    }

    /** DOMAIN_SET_REPLY: SUCCESS once the table is installed, or why it was refused. */
    record DomainSetReply(UromStatus status, String message) implements Message {
        public DomainSetReply {
            requireNonNull(status, "status is null");
            requireNonNull(message, "message is null");
        }

        @Override
        public MessageType messageType() {
            return MessageType.DOMAIN_SET_REPLY;
        }
    }

    private static void checkU16(String what, int value) {
        if (value < 0 || value > 0xffff) {
            throw new IllegalArgumentException(what + " " + value + " does not fit u16");
        }
    }
}
