// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import com.sun.jna.Native;

/**
 * The data-path entry points of {@code liburom_bridge.so} ({@code urom_bridge_data.c}), bound by
 * JNA direct mapping. Each does one plugin call with all its descriptor work in a single crossing;
 * its only argument is the address of the plugin's call block ({@code struct urom_bridge_block},
 * laid out as the offsets below say), which holds the entry points, both list heads, and each
 * call's inputs and outputs. A JNA call costs more with every argument, hence the block. The
 * method names are the C symbols.
 *
 * <p>{@link #bind()} binds them once per process, after {@link NativeLogBridge#install()}; it is
 * thread-safe and throws {@link IllegalStateException} with one line when the library lacks them.
 * A block belongs to one plugin instance and one thread.
 */
final class BridgeDataPath {
    // The call block: 8-byte fields. Set once: the entry points, ctx, the list heads, max_len.
    static final int WORKER_CMD = 0;
    static final int PROGRESS = 8;
    static final int NOTIF_PACK = 16;
    static final int CTX = 24;
    static final int CMD_LIST = 32;
    static final int NOTIF_LIST = 48;
    static final int MAX_LEN = 64;
    // urom_bridge_submit's command.
    static final int DEST_ID = 72;
    static final int TYPE = 80;
    static final int UROM_CONTEXT = 88;
    static final int PAYLOAD = 96;
    static final int LEN = 104;
    // urom_bridge_progress / urom_bridge_drain: the records buffer and the summary.
    static final int RECORDS = 112;
    static final int RECORDS_CAPACITY = 120;
    static final int STATUS = 128;
    static final int RECORDS_COUNT = 136;
    static final int RECORDS_USED = 144;
    static final int RECORDS_NEEDED = 152;
    static final int BLOCK_SIZE = 160;

    /** {@link #urom_bridge_submit}'s flag: the command descriptor could not be allocated. */
    static final long SUBMIT_NO_MEMORY = 1L << 32;
    /** {@link #urom_bridge_submit}'s flag: worker_cmd left a node that is not ours on the list. */
    static final long SUBMIT_UNKNOWN_NODE = 2L << 32;

    /**
     * A notification record: dest_id, type, urom_context, len, packed_len, status (int32),
     * pack_status (int32), then the packed bytes (only when pack_status is SUCCESS).
     */
    static final int RECORD_DEST_ID = 0;

    static final int RECORD_TYPE = 8;
    static final int RECORD_CONTEXT = 16;
    static final int RECORD_LEN = 24;
    static final int RECORD_PACKED_LEN = 32;
    static final int RECORD_STATUS = 40;
    static final int RECORD_PACK_STATUS = 44;
    static final int RECORD_HEADER = 48;
    /** A record's pack_status when its len was out of range and notif_pack was not called. */
    static final int PACK_SKIPPED = -1;
    /** A record's pack_status when notif_pack reported more bytes than the room it was given. */
    static final int PACK_OVERRAN = -2;

    private static boolean bound;

    private BridgeDataPath() {}

    static synchronized void bind() {
        if (bound) {
            return;
        }
        try {
            Native.register(BridgeDataPath.class, NativeLogBridge.library());
        } catch (UnsatisfiedLinkError e) {
            throw new IllegalStateException(
                    "the native bridge " + NativeArtifacts.bridgeLibrary() + " lacks its data-path functions: "
                            + e.getMessage(),
                    e);
        }
        bound = true;
    }

    /**
     * Mallocs a command descriptor from {@code DEST_ID .. LEN} (copying {@code LEN} bytes at
     * {@code PAYLOAD}), hands it to worker_cmd on the empty command list, frees it if the plugin
     * left it first on the list, and empties the list again.
     *
     * @return the plugin's status in the low 32 bits, {@link #SUBMIT_NO_MEMORY} or {@link
     *     #SUBMIT_UNKNOWN_NODE} above
     */
    static native long urom_bridge_submit(long block);

    /**
     * Calls progress on the empty notification list, then packs each notification with the
     * plugin's notif_pack, on the plugin's own descriptor, into a record in {@code RECORDS} (one
     * longer than {@code MAX_LEN} is not packed: {@link #PACK_SKIPPED}), and frees each descriptor
     * once packed. One that does not fit stays on the list with everything behind it, and {@code
     * RECORDS_NEEDED} gives the room it needs (0 when the list is drained).
     */
    static native void urom_bridge_progress(long block);

    /** Continues packing what {@link #urom_bridge_progress} left on the list, the same way. */
    static native void urom_bridge_drain(long block);
}
