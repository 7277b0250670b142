package dev.urom.framework.wire;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
public sealed interface Message {

    /** The type code this message travels under. */
    MessageType messageType();

    /** HELLO: the first frame of every connection, sent by the side that connects. */
    record Hello(int magic, int version, Role role) implements Message {
        public Hello {
            requireNonNull(role, "role is null");
            checkU16("HELLO version", version);
        }

        /** HELLO with the right magic. */
        public Hello(int version, Role role) {
            this(Protocol.MAGIC, version, role);
        }

        /** HELLO of this protocol version. */
        public static Hello of(Role role) {
            return new Hello(Protocol.VERSION, role);
        }

        @Override
        public MessageType messageType() {
            return MessageType.HELLO;
        }
    }

    /** HELLO_OK: the accepting side agrees; {@code connectionId} is this connection's dest_id at a worker. */
    record HelloOk(int version, int maxMessageSize, long connectionId) implements Message {
        public HelloOk {
            checkU16("HELLO_OK version", version);
            if (maxMessageSize < 0) {
                throw new IllegalArgumentException("HELLO_OK max message size " + maxMessageSize + " is negative");
            }
        }

        @Override
        public MessageType messageType() {
            return MessageType.HELLO_OK;
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
    record WorkerStartReply(UromStatus status, long workerId, long gid, long pluginMask, String workerAddress, String message)
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
            return o instanceof Command c && c.type == type && c.uromContext == uromContext && Arrays.equals(c.payload, payload);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(type) * 31 * 31 + Long.hashCode(uromContext) * 31 + Arrays.hashCode(payload);
        }

        @Override
        public String toString() {
            return "Command[type=0x" + Long.toHexString(type) + ", uromContext=" + uromContext + ", payload=" + payload.length + " bytes]";
        }
    }

    /**
     * NOTIFY: {@code struct urom_worker_notify} exactly as a plugin's {@code notif_pack} lays it out
     * (32-byte header, then the plugin's notification bytes).
     */
    record Notify(long type, long uromContext, UromStatus status, byte[] payload) implements Message {
        /** Bytes before the payload: type, urom_context, len, status, reserved. */
        public static final int HEADER_BYTES = WorkerNotification.HEADER_BYTES;

        public Notify {
            requireNonNull(status, "status is null");
            requireNonNull(payload, "payload is null");
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
                throw new IllegalArgumentException("packed notification has " + packed.length + " bytes; its header alone is " + HEADER_BYTES);
            }
            ByteBuffer in = ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN);
            long type = in.getLong();
            long context = in.getLong();
            long len = in.getLong();
            int status = in.getInt();
            in.getInt();
            if (len != packed.length - HEADER_BYTES) {
                throw new IllegalArgumentException("packed notification says len " + Long.toUnsignedString(len) + " but "
                        + (packed.length - HEADER_BYTES) + " payload bytes follow its header");
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
            return o instanceof Notify n && n.type == type && n.uromContext == uromContext && n.status == status
                    && Arrays.equals(n.payload, payload);
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(type) * 31 + Long.hashCode(uromContext)) * 31 * 31 + status.hashCode() * 31 + Arrays.hashCode(payload);
        }

        @Override
        public String toString() {
            return "Notify[type=0x" + Long.toHexString(type) + ", uromContext=" + uromContext + ", status=" + status + ", payload="
                    + (payload.length <= 32 ? HexFormat.of().formatHex(payload) : payload.length + " bytes") + "]";
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

    /** ADDRESS_REPLY: the plugin's address on SUCCESS; no bytes otherwise. */
    record AddressReply(UromStatus status, byte[] address) implements Message {
        public AddressReply {
            requireNonNull(status, "status is null");
            requireNonNull(address, "address is null");
        }

        @Override
        public MessageType messageType() {
            return MessageType.ADDRESS_REPLY;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AddressReply r && r.status == status && Arrays.equals(r.address, address);
        }

        @Override
        public int hashCode() {
            return status.hashCode() * 31 + Arrays.hashCode(address);
        }

        @Override
        public String toString() {
            return "AddressReply[status=" + status + ", address=" + address.length + " bytes]";
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
