// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static java.util.Objects.requireNonNull;

import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import dev.urom.spi.PluginIface;
import dev.urom.spi.TransportName;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * One native plugin ({@code .so}) behind {@link PluginIface}, called through JNA.
 *
 * <p>{@link #load} opens the file {@code RTLD_NOW | RTLD_LOCAL} (every symbol bound at once, so a
 * function no library defines fails the load, naming it, rather than the first call that needs it;
 * two plugins' symbols never collide), checks both entry points and the API version, and reads the
 * interface table once.
 * Load failures throw {@link UromException} with one line naming the file:
 *
 * <ul>
 *   <li>INVALID_VALUE: the path is not absolute, the file is not a loadable shared object (an
 *       undefined symbol among them: the message names it and what to link), or the
 *       table leaves an entry point NULL;
 *   <li>NOT_FOUND: the file does not exist, or an entry symbol is missing;
 *   <li>UNSUPPORTED_VERSION: the table's API version (its low 32 bits, so both the {@code
 *       uint32_t} and the {@code size_t} field work) is not {@code UROM_PLUGIN_API_VERSION};
 *   <li>the plugin's own status when {@code urom_plugin_get_iface}, {@code
 *       urom_plugin_get_version} or the optional {@code urom_plugin_get_transport} fails;
 *       INVALID_VALUE when the last gives NULL or a name that is not a {@link TransportName}.
 * </ul>
 *
 * <p>The optional entry points ({@code urom_plugin_get_transport}, and the pair {@code
 * urom_plugin_get_wakeup_fd} / {@code urom_plugin_arm_wakeup}) are resolved once at load; the
 * transport name is read then too. A plugin that exports only one of the wake-up pair is polled
 * (logged). A DOCA plugin exports none of them.
 *
 * <p>Ownership:
 *
 * <ul>
 *   <li>command descriptors are {@code malloc}ed and freed by the plugin with {@code free()}, or by
 *       the bridge when the plugin leaves one on the list;
 *   <li>notification descriptors are {@code malloc}ed by the plugin and freed by the bridge, each
 *       only after the plugin's {@code notif_pack} has packed it (a DOCA plugin may point from its
 *       notification into the rest of its allocation);
 *   <li>the native scratch buffers of the data path ({@link BridgeDataPath}: {@code worker_cmd},
 *       {@code progress} with {@code notif_pack}, one crossing per call) belong to this instance and
 *       grow to the largest message seen;
 *   <li>a loaded library is never closed: it stays mapped until the process ends (end a plugin by
 *       ending its worker process).
 * </ul>
 *
 * <p>Notifications are packed when {@link #progress} collects them. Each {@link WorkerNotification}
 * it delivers has the descriptor's {@code dest_id}, {@code type}, {@code urom_context} and {@code
 * status}, and as its payload the bytes that {@code notif_pack} wrote after the 32-byte {@code
 * struct urom_worker_notify} header. So {@link #packNotification} is the default {@link
 * WorkerNotification#pack()} and never calls the plugin: an answer the worker makes itself, such as
 * a refused command's, must not reach a {@code notif_pack} that packs a fixed size whatever {@code
 * len} says. A notification the plugin cannot pack is delivered as a failure with no payload and
 * logged as a warning, with the {@code notif_pack} status or UNEXPECTED, when {@code notif_pack}:
 *
 * <ul>
 *   <li>fails;
 *   <li>reports more bytes than it had room for;
 *   <li>packs less than a header;
 *   <li>packs a header whose {@code len} is not the number of bytes after it.
 * </ul>
 *
 * <p>The log bridge ({@link NativeLogBridge}) is installed, and the data path bound, before the
 * first plugin is loaded.
 *
 * <p>Not thread-safe: one thread drives a plugin from {@link #open} to {@link #close}. After
 * {@link #close}, every method throws {@link UromException} with BAD_STATE (or {@link
 * IllegalStateException} where no checked exception is declared).
 */
public final class NativePlugin implements PluginIface {
    private static final Logger LOG = LogManager.getLogger(NativePlugin.class);
    private static final String GET_IFACE = "urom_plugin_get_iface";
    private static final String GET_VERSION = "urom_plugin_get_version";
    private static final String GET_TRANSPORT = "urom_plugin_get_transport";
    private static final String GET_WAKEUP_FD = "urom_plugin_get_wakeup_fd";
    private static final String ARM_WAKEUP = "urom_plugin_arm_wakeup";
    private static final String[] ENTRY_NAMES = {"open", "close", "addr", "worker_cmd", "progress", "notif_pack"};
    private static final long MAX_NATIVE_BYTES = Integer.MAX_VALUE - 64;
    private static final int SCRATCH_CAPACITY = 4096;

    /** Every library ever loaded: JNA would close one whose last reference is collected. */
    private static final Set<NativeLibrary> LOADED = ConcurrentHashMap.newKeySet();

    private enum State {
        LOADED,
        OPEN,
        CLOSED
    }

    private final Path path;
    private final long version;
    private final Memory iface;
    private final Function openFn;
    private final Function closeFn;
    private final Function addrFn;
    /** The optional entry points, resolved once at load; what a plugin lacks is null. */
    private final Optional<String> transport;

    private final Function wakeupFdFn;
    private final Function armWakeupFn;
    /** The wake-up descriptor, asked once after open: null until asked. */
    private OptionalInt wakeupFd;

    private final Memory sizeCell = new Memory(8);
    // The scratch buffers keep their native memory while this object is reachable; each hot method
    // fences this object after its native call, so none is freed while C still uses it.
    /** The call block of {@link BridgeDataPath}. */
    private final NativeScratch block = new NativeScratch(BridgeDataPath.BLOCK_SIZE);

    private final NativeScratch commandPayload = new NativeScratch(SCRATCH_CAPACITY);
    private final NativeScratch notificationRecords = new NativeScratch(SCRATCH_CAPACITY);

    private State state = State.LOADED;
    private Memory workerCtx;
    private DomainCallbacks domainCallbacks;

    private NativePlugin(
            Path path,
            long version,
            Memory iface,
            Optional<String> transport,
            Function wakeupFdFn,
            Function armWakeupFn) {
        this.path = path;
        this.version = version;
        this.iface = iface;
        this.transport = transport;
        this.wakeupFdFn = wakeupFdFn;
        this.armWakeupFn = armWakeupFn;
        this.openFn = Function.getFunction(iface.getPointer(Abi.IFACE_OPEN));
        this.closeFn = Function.getFunction(iface.getPointer(Abi.IFACE_CLOSE));
        this.addrFn = Function.getFunction(iface.getPointer(Abi.IFACE_ADDR));
        ByteBuffer calls = block.view();
        calls.putLong(BridgeDataPath.WORKER_CMD, Pointer.nativeValue(iface.getPointer(Abi.IFACE_WORKER_CMD)));
        calls.putLong(BridgeDataPath.PROGRESS, Pointer.nativeValue(iface.getPointer(Abi.IFACE_PROGRESS)));
        calls.putLong(BridgeDataPath.NOTIF_PACK, Pointer.nativeValue(iface.getPointer(Abi.IFACE_NOTIF_PACK)));
        calls.putLong(BridgeDataPath.MAX_LEN, MAX_NATIVE_BYTES);
        emptyList(BridgeDataPath.CMD_LIST);
        emptyList(BridgeDataPath.NOTIF_LIST);
    }

    /**
     * Loads the plugin at {@code soPath} in this process.
     *
     * @param soPath an absolute path
     * @throws UromException with a status and one line naming the file (see the class comment)
     */
    public static NativePlugin load(Path soPath) throws UromException {
        requireNonNull(soPath, "soPath is null");
        if (!soPath.isAbsolute()) {
            throw new UromException(UromStatus.INVALID_VALUE, "plugin path " + soPath + " is not absolute");
        }
        if (!Files.isRegularFile(soPath)) {
            throw new UromException(UromStatus.NOT_FOUND, soPath + ": no such file");
        }
        NativeLogBridge.install();
        BridgeDataPath.bind();
        NativeLibrary library = open(soPath);
        Function getIface = symbol(library, soPath, GET_IFACE);
        Function getVersion = symbol(library, soPath, GET_VERSION);

        Memory iface = new Memory(Abi.IFACE_SIZE);
        iface.clear();
        int status = getIface.invokeInt(new Object[] {iface});
        if (status != UromStatus.SUCCESS.code()) {
            throw new UromException(
                    Abi.status(status), soPath + ": " + GET_IFACE + " returned " + Abi.describe(status));
        }
        long apiVersion = iface.getInt(0) & 0xffff_ffffL;
        if (apiVersion != Abi.API_VERSION) {
            throw new UromException(
                    UromStatus.UNSUPPORTED_VERSION,
                    soPath + ": plugin API version 0x" + Long.toHexString(apiVersion) + " is not the supported 0x"
                            + Long.toHexString(Abi.API_VERSION));
        }
        for (int i = 0; i < ENTRY_NAMES.length; i++) {
            if (Pointer.nativeValue(iface.getPointer(Abi.IFACE_OPEN + 8L * i)) == 0) {
                throw new UromException(
                        UromStatus.INVALID_VALUE, soPath + ": " + GET_IFACE + " left " + ENTRY_NAMES[i] + " NULL");
            }
        }
        Memory versionCell = new Memory(8);
        versionCell.clear();
        status = getVersion.invokeInt(new Object[] {versionCell});
        if (status != UromStatus.SUCCESS.code()) {
            throw new UromException(
                    Abi.status(status), soPath + ": " + GET_VERSION + " returned " + Abi.describe(status));
        }
        Optional<String> transport = transport(soPath, optionalSymbol(library, GET_TRANSPORT));
        Function wakeupFd = optionalSymbol(library, GET_WAKEUP_FD);
        Function arm = optionalSymbol(library, ARM_WAKEUP);
        if ((wakeupFd == null) != (arm == null)) {
            LOG.warn(
                    "{}: exports {} but not {}; it is polled",
                    soPath,
                    wakeupFd == null ? ARM_WAKEUP : GET_WAKEUP_FD,
                    wakeupFd == null ? GET_WAKEUP_FD : ARM_WAKEUP);
            wakeupFd = null;
            arm = null;
        }
        return new NativePlugin(soPath, versionCell.getLong(0), iface, transport, wakeupFd, arm);
    }

    /** An optional entry point; null when the plugin does not export it. */
    private static Function optionalSymbol(NativeLibrary library, String name) {
        try {
            return library.getFunction(name);
        } catch (UnsatisfiedLinkError e) {
            return null;
        }
    }

    /**
     * What {@code urom_plugin_get_transport} names, checked ({@link TransportName}); empty when the
     * plugin does not export it.
     */
    private static Optional<String> transport(Path soPath, Function getTransport) throws UromException {
        if (getTransport == null) {
            return Optional.empty();
        }
        Memory cell = new Memory(8);
        cell.setPointer(0, null);
        int status = getTransport.invokeInt(new Object[] {cell});
        if (status != UromStatus.SUCCESS.code()) {
            throw new UromException(
                    Abi.status(status), soPath + ": " + GET_TRANSPORT + " returned " + Abi.describe(status));
        }
        Pointer name = cell.getPointer(0);
        if (name == null) {
            throw new UromException(UromStatus.INVALID_VALUE, soPath + ": " + GET_TRANSPORT + " gave a NULL name");
        }
        // read at most one byte past the longest name: a name without its NUL there is too long anyway
        StringBuilder text = new StringBuilder();
        for (int i = 0; i <= TransportName.MAX_LENGTH; i++) {
            byte b = name.getByte(i);
            if (b == 0) {
                break;
            }
            text.append((char) (b & 0xff));
        }
        String problem = TransportName.problem(text.toString()).orElse(null);
        if (problem != null) {
            if (text.length() > TransportName.MAX_LENGTH) {
                problem = "has more than " + TransportName.MAX_LENGTH + " characters";
            }
            throw new UromException(
                    UromStatus.INVALID_VALUE, soPath + ": " + GET_TRANSPORT + ": the transport name " + problem);
        }
        return Optional.of(text.toString());
    }

    private static NativeLibrary open(Path soPath) throws UromException {
        NativeLibrary library;
        UcxErrorSignals.keepOffTheJvmsSignals();
        try {
            library = NativeLibrary.getInstance(
                    soPath.toString(), Map.of(Library.OPTION_OPEN_FLAGS, Abi.RTLD_NOW | Abi.RTLD_LOCAL));
        } catch (UnsatisfiedLinkError e) {
            throw new UromException(
                    UromStatus.INVALID_VALUE, soPath + ": " + LoaderReason.explain(dlopenReason(soPath, e)), e);
        }
        LOADED.add(library);
        return library;
    }

    private static Function symbol(NativeLibrary library, Path soPath, String name) throws UromException {
        try {
            return library.getFunction(name);
        } catch (UnsatisfiedLinkError e) {
            throw new UromException(UromStatus.NOT_FOUND, soPath + ": missing symbol " + name, e);
        }
    }

    /** The dynamic loader's own line out of JNA's several-line message. */
    private static String dlopenReason(Path soPath, UnsatisfiedLinkError e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        String file = soPath.toString();
        for (String line : message.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith(file + ":")) {
                return trimmed.substring(file.length() + 1).strip();
            }
        }
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }

    /** The plugin's own version, {@code urom_plugin_get_version}. */
    public long version() {
        return version;
    }

    /** The absolute path the plugin was loaded from. */
    public Path path() {
        return path;
    }

    @Override
    public void open(WorkerContext context) throws UromException {
        requireNonNull(context, "context is null");
        requireState(State.LOADED, "open");
        DomainCallbacks callbacks = new DomainCallbacks(context.domain(), path.toString());
        Memory ctx = new Memory(Abi.CTX_SIZE);
        ctx.clear();
        ctx.write(0, iface.getByteArray(0, Abi.IFACE_SIZE), 0, Abi.IFACE_SIZE);
        callbacks.writeInto(ctx);
        ctx.setPointer(Abi.CTX_PLUGIN_CTX, null);
        // Kept before the call: the plugin may hold the context and call the look-ups from open on.
        workerCtx = ctx;
        domainCallbacks = callbacks;
        block.view().putLong(BridgeDataPath.CTX, Pointer.nativeValue(ctx));
        int status = openFn.invokeInt(new Object[] {ctx});
        if (status != UromStatus.SUCCESS.code()) {
            throw new UromException(Abi.status(status), path + ": open returned " + Abi.describe(status));
        }
        state = State.OPEN;
    }

    /** Closes the plugin once (the library stays mapped); a plugin never opened is only marked closed. */
    @Override
    public void close() {
        if (state == State.OPEN) {
            closeFn.invokeVoid(new Object[] {workerCtx});
        }
        state = State.CLOSED;
    }

    @Override
    public byte[] address() throws UromException {
        requireState(State.OPEN, "address");
        Memory probe = new Memory(1);
        sizeCell.setLong(0, 0);
        int status = addrFn.invokeInt(new Object[] {workerCtx, probe, sizeCell});
        long needed = sizeCell.getLong(0);
        if (status == UromStatus.SUCCESS.code()) {
            return new byte[0];
        }
        if (status != UromStatus.INVALID_VALUE.code() || needed <= 0) {
            throw new UromException(Abi.status(status), path + ": addr returned " + Abi.describe(status));
        }
        checkSize(needed, "address");
        Memory buffer = new Memory(needed);
        sizeCell.setLong(0, needed);
        status = addrFn.invokeInt(new Object[] {workerCtx, buffer, sizeCell});
        if (status != UromStatus.SUCCESS.code()) {
            throw new UromException(
                    Abi.status(status),
                    path + ": addr returned " + Abi.describe(status) + " for a buffer of the " + needed
                            + " bytes it asked for");
        }
        long length = sizeCell.getLong(0);
        if (length < 0 || length > needed) {
            throw new UromException(
                    UromStatus.INVALID_VALUE, path + ": addr reported " + length + " bytes in a buffer of " + needed);
        }
        return buffer.getByteArray(0, (int) length);
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        requireNonNull(command, "command is null");
        requireState(State.OPEN, "worker_cmd");
        byte[] payload = command.payload();
        try {
            commandPayload.reserve(payload.length);
        } catch (OutOfMemoryError e) {
            throw new UromException(
                    UromStatus.NO_MEMORY,
                    path + ": cannot allocate a command descriptor of " + (Abi.CMD_PAYLOAD + payload.length) + " bytes",
                    e);
        }
        commandPayload.view().put(0, payload);
        ByteBuffer calls = block.view();
        calls.putLong(BridgeDataPath.DEST_ID, command.destId());
        calls.putLong(BridgeDataPath.TYPE, command.type());
        calls.putLong(BridgeDataPath.UROM_CONTEXT, command.uromContext());
        calls.putLong(BridgeDataPath.PAYLOAD, commandPayload.address());
        calls.putLong(BridgeDataPath.LEN, payload.length);
        long result;
        Optional<String> reason;
        try (NativeLogBridge.ErrorCapture errors = NativeLogBridge.captureErrors()) {
            result = BridgeDataPath.urom_bridge_submit(block.address());
            reason = errors.lastError();
        }
        Reference.reachabilityFence(this);
        if ((result & BridgeDataPath.SUBMIT_NO_MEMORY) != 0) {
            throw new UromException(
                    UromStatus.NO_MEMORY,
                    path + ": cannot allocate a command descriptor of " + (Abi.CMD_PAYLOAD + payload.length)
                            + " bytes");
        }
        if ((result & BridgeDataPath.SUBMIT_UNKNOWN_NODE) != 0) {
            LOG.warn("{}: worker_cmd left an unknown node on the command list; it is not freed", path);
        }
        int status = (int) result;
        if (status != UromStatus.SUCCESS.code()) {
            // The plugin's own reason when it logged one while refusing, as a Java plugin's exception gives it.
            throw new UromException(Abi.status(status), reason.orElse("worker_cmd returned " + Abi.describe(status)));
        }
    }

    /**
     * Collects the plugin's notifications. Notifications appended before a failure status are
     * still delivered to {@code notifications}; then the failure is thrown.
     */
    @Override
    public void progress(List<? super WorkerNotification> notifications) throws UromException {
        requireNonNull(notifications, "notifications is null");
        requireState(State.OPEN, "progress");
        ByteBuffer calls = block.view();
        setRecordsBuffer(calls);
        BridgeDataPath.urom_bridge_progress(block.address());
        Reference.reachabilityFence(this);
        int status = (int) calls.getLong(BridgeDataPath.STATUS);
        UromException invalid = readRecords(notifications, null);
        long needed;
        while ((needed = calls.getLong(BridgeDataPath.RECORDS_NEEDED)) != 0) {
            checkSize(needed, "packed notification");
            notificationRecords.reserve(needed);
            setRecordsBuffer(calls);
            BridgeDataPath.urom_bridge_drain(block.address());
            Reference.reachabilityFence(this);
            invalid = readRecords(notifications, invalid);
        }
        if (status != UromStatus.SUCCESS.code() && status != UromStatus.EMPTY.code()) {
            throw new UromException(Abi.status(status), path + ": progress returned " + Abi.describe(status));
        }
        if (invalid != null) {
            throw invalid;
        }
    }

    /**
     * Turns the records the last progress or drain call wrote into notifications.
     *
     * @return {@code invalid}, or the failure for the last record whose length is out of range
     */
    private UromException readRecords(List<? super WorkerNotification> notifications, UromException invalid) {
        ByteBuffer records = notificationRecords.view();
        long count = block.view().getLong(BridgeDataPath.RECORDS_COUNT);
        int offset = 0;
        for (long i = 0; i < count; i++) {
            long length = records.getLong(offset + BridgeDataPath.RECORD_LEN);
            long packedLength = records.getLong(offset + BridgeDataPath.RECORD_PACKED_LEN);
            int packStatus = records.getInt(offset + BridgeDataPath.RECORD_PACK_STATUS);
            long destId = records.getLong(offset + BridgeDataPath.RECORD_DEST_ID);
            long type = records.getLong(offset + BridgeDataPath.RECORD_TYPE);
            long context = records.getLong(offset + BridgeDataPath.RECORD_CONTEXT);
            UromStatus status = Abi.status(records.getInt(offset + BridgeDataPath.RECORD_STATUS));
            int body = offset + BridgeDataPath.RECORD_HEADER;
            offset = body;
            if (packStatus == BridgeDataPath.PACK_SKIPPED) {
                invalid = new UromException(
                        UromStatus.INVALID_VALUE,
                        path + ": progress returned a notification of " + Long.toUnsignedString(length) + " bytes");
                continue;
            }
            String problem = null;
            UromStatus failure = UromStatus.UNEXPECTED;
            if (packStatus == BridgeDataPath.PACK_OVERRAN) {
                problem = "notif_pack reported " + Long.toUnsignedString(packedLength)
                        + " bytes, more than the room it was given";
            } else if (packStatus != UromStatus.SUCCESS.code()) {
                problem = "notif_pack returned " + Abi.describe(packStatus);
                failure = Abi.status(packStatus);
            } else {
                offset += (int) packedLength;
                if (packedLength < WorkerNotification.HEADER_BYTES) {
                    problem = "notif_pack packed " + packedLength + " bytes, less than the "
                            + WorkerNotification.HEADER_BYTES + "-byte header";
                } else {
                    long packedLen = records.getLong(body + Abi.NOTIFY_LEN);
                    if (packedLen != packedLength - WorkerNotification.HEADER_BYTES) {
                        problem = "notif_pack packed a header whose len says " + Long.toUnsignedString(packedLen)
                                + " but " + (packedLength - WorkerNotification.HEADER_BYTES) + " bytes follow it";
                    }
                }
            }
            if (problem != null) {
                LOG.warn(
                        "{}: the notification for context {} cannot be sent: {}; it is answered {} instead",
                        path,
                        Long.toUnsignedString(context),
                        problem,
                        failure);
                notifications.add(new WorkerNotification(destId, type, context, failure, new byte[0]));
                continue;
            }
            byte[] payload = new byte[(int) packedLength - WorkerNotification.HEADER_BYTES];
            records.get(body + WorkerNotification.HEADER_BYTES, payload);
            notifications.add(new WorkerNotification(destId, type, context, status, payload));
        }
        return invalid;
    }

    private void emptyList(int offset) {
        long head = block.address() + offset;
        block.view().putLong(offset + Abi.LINK_PREV, head).putLong(offset + Abi.LINK_NEXT, head);
    }

    private void setRecordsBuffer(ByteBuffer calls) {
        calls.putLong(BridgeDataPath.RECORDS, notificationRecords.address());
        calls.putLong(BridgeDataPath.RECORDS_CAPACITY, notificationRecords.capacity());
    }

    private void checkSize(long size, String what) throws UromException {
        if (size > MAX_NATIVE_BYTES) {
            throw new UromException(UromStatus.TOO_BIG, path + ": " + what + " of " + size + " bytes is too big");
        }
    }

    private void requireState(State expected, String operation) throws UromException {
        if (state != expected) {
            String reason = switch (state) {
                case CLOSED -> "the plugin is closed";
                case OPEN -> "the plugin is already open";
                case LOADED -> "the plugin is not open";
            };
            throw new UromException(UromStatus.BAD_STATE, path + ": cannot call " + operation + ": " + reason);
        }
    }

    /** What {@code urom_plugin_get_transport} named when the plugin was loaded; empty when it exports none. */
    @Override
    public Optional<String> transport() {
        return transport;
    }

    /**
     * The descriptor of {@code urom_plugin_get_wakeup_fd}, asked once after open; empty when the
     * plugin does not export the wake-up pair, answers NOT_SUPPORTED, fails (logged) or gives a
     * negative descriptor (logged).
     *
     * @throws IllegalStateException when the plugin is not open
     */
    @Override
    public OptionalInt wakeupFd() {
        if (state != State.OPEN) {
            throw new IllegalStateException(path + ": cannot ask for the wake-up descriptor: the plugin is not open");
        }
        if (wakeupFd == null) {
            wakeupFd = askWakeupFd();
        }
        return wakeupFd;
    }

    private OptionalInt askWakeupFd() {
        if (wakeupFdFn == null) {
            return OptionalInt.empty();
        }
        Memory fdCell = new Memory(4);
        fdCell.setInt(0, -1);
        int status = wakeupFdFn.invokeInt(new Object[] {workerCtx, fdCell});
        if (status == UromStatus.NOT_SUPPORTED.code()) {
            return OptionalInt.empty();
        }
        if (status != UromStatus.SUCCESS.code()) {
            LOG.warn("{}: {} returned {}; the plugin is polled", path, GET_WAKEUP_FD, Abi.describe(status));
            return OptionalInt.empty();
        }
        int fd = fdCell.getInt(0);
        if (fd < 0) {
            LOG.warn("{}: {} gave descriptor {}; the plugin is polled", path, GET_WAKEUP_FD, fd);
            return OptionalInt.empty();
        }
        return OptionalInt.of(fd);
    }

    /**
     * {@code urom_plugin_arm_wakeup}: true on SUCCESS (armed), false on AGAIN or when the plugin
     * does not export it.
     *
     * @throws UromException with the plugin's status for any other answer, BAD_STATE when not open
     */
    @Override
    public boolean armWakeup() throws UromException {
        requireState(State.OPEN, ARM_WAKEUP);
        if (armWakeupFn == null) {
            return false;
        }
        int status = armWakeupFn.invokeInt(new Object[] {workerCtx});
        if (status == UromStatus.SUCCESS.code()) {
            return true;
        }
        if (status == UromStatus.AGAIN.code()) {
            return false;
        }
        throw new UromException(Abi.status(status), path + ": " + ARM_WAKEUP + " returned " + Abi.describe(status));
    }

    @Override
    public String toString() {
        return "NativePlugin[" + path + ", version " + Long.toUnsignedString(version) + ", " + state + "]";
    }
}
