// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import dev.urom.spi.UromStatus;

/**
 * Offsets and sizes of the native plugin ABI ({@code urom_plugin.h}, whose static assertions pin
 * the same numbers), and the status helpers every native call needs. LP64 only.
 */
final class Abi {
    static final long API_VERSION = 0x02070000L;

    static final int IFACE_SIZE = 56;
    static final int IFACE_OPEN = 8;
    static final int IFACE_CLOSE = 16;
    static final int IFACE_ADDR = 24;
    static final int IFACE_WORKER_CMD = 32;
    static final int IFACE_PROGRESS = 40;
    static final int IFACE_NOTIF_PACK = 48;

    static final int CTX_SIZE = 96;
    static final int CTX_ADDR_LOOKUP = 56;
    static final int CTX_SEG_LOOKUP = 64;
    static final int CTX_MEMH_LOOKUP = 72;
    static final int CTX_MKEY_LOOKUP = 80;
    static final int CTX_PLUGIN_CTX = 88;

    static final int LINK_PREV = 0;
    static final int LINK_NEXT = 8;

    static final int CMD_PAYLOAD = 48;

    static final int NOTIFY_TYPE = 0;
    static final int NOTIFY_CONTEXT = 8;
    static final int NOTIFY_LEN = 16;
    static final int NOTIFY_STATUS = 24;
    static final int NOTIFY_RESERVED = 28;
    static final int NOTIFY_PAYLOAD = 32;

    static final int RTLD_NOW = 0x2;
    static final int RTLD_LOCAL = 0x0;

    private Abi() {}

    /** The status with this number; a number outside DOCA's range becomes UNKNOWN. */
    static UromStatus status(int code) {
        if (code < 0 || code > UromStatus.DEVICE_FATAL_ERROR.code()) {
            return UromStatus.UNKNOWN;
        }
        return UromStatus.fromCode(code);
    }

    /** "NAME (code)", the form every message uses for a status a native call returned. */
    static String describe(int code) {
        if (code < 0 || code > UromStatus.DEVICE_FATAL_ERROR.code()) {
            return "unrecognised status (" + code + ")";
        }
        return UromStatus.fromCode(code).name() + " (" + code + ")";
    }
}
