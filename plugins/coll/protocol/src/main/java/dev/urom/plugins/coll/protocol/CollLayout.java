// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/**
 * The byte offsets and sizes of {@code urom_coll.h}'s structures, little-endian, and its bounds
 * and knob defaults: the numbers the codecs use and a contract test holds to the C header.
 * Constants only.
 */
public final class CollLayout {
    public static final int PROTOCOL_VERSION = 1;
    public static final int PLUGIN_VERSION = 1;
    public static final String TRANSPORT = "ucp-coll";

    public static final int TEAM_ID_MAX = 4095;
    public static final int TEAM_SIZE_MAX = 32768;
    public static final int TEAM_LIST_MAX = 256;
    public static final int TEAMS_PER_WORKER = 64;
    public static final int INFLIGHT_MAX = 1024;
    public static final int MEMH_MAX = 1024;

    public static final int CHUNK_DEFAULT = 64 * 1024;
    public static final int CHUNK_MIN = 4096;
    public static final int CHUNK_MAX = 4 * 1024 * 1024;
    public static final int SMALL_DEFAULT = 16 * 1024;
    public static final int SMALL_MAX = 1024 * 1024;
    public static final int TIMEOUT_MS_DEFAULT = 30_000;
    public static final int TIMEOUT_MS_MAX = 3_600_000;

    public static final int MEMBERS_RANGE = 0;
    public static final int MEMBERS_LIST = 1;
    public static final int ACCESS_READ = 1;
    public static final int ACCESS_WRITE = 2;
    public static final int IN_PLACE = 1;

    /** struct urom_coll_cmd_hdr. */
    public static final int CMD_HDR_TYPE = 0;

    public static final int CMD_HDR_VERSION = 2;
    public static final int CMD_HDR_RESERVED = 4;
    public static final int CMD_HDR_COOKIE = 8;
    public static final int CMD_HDR_SIZE = 16;

    /** struct urom_coll_cmd_team_create. */
    public static final int TEAM_CREATE_TEAM_ID = 16;

    public static final int TEAM_CREATE_SIZE_FIELD = 20;
    public static final int TEAM_CREATE_RANK = 24;
    public static final int TEAM_CREATE_MEMBERS = 28;
    public static final int TEAM_CREATE_START = 32;
    public static final int TEAM_CREATE_STRIDE = 40;
    public static final int TEAM_CREATE_CHUNK_BYTES = 48;
    public static final int TEAM_CREATE_SMALL_BYTES = 52;
    public static final int TEAM_CREATE_TIMEOUT_MS = 56;
    public static final int TEAM_CREATE_RESERVED = 60;
    public static final int TEAM_CREATE_MEMBER_IDS = 64;
    public static final int TEAM_CREATE_SIZE = 64;

    /** struct urom_coll_cmd_team_destroy. */
    public static final int TEAM_DESTROY_TEAM_ID = 16;

    public static final int TEAM_DESTROY_RESERVED = 20;
    public static final int TEAM_DESTROY_SIZE = 24;

    /** struct urom_coll_cmd_mem_map. */
    public static final int MEM_MAP_ADDRESS = 16;

    public static final int MEM_MAP_LENGTH = 24;
    public static final int MEM_MAP_ACCESS = 32;
    public static final int MEM_MAP_RESERVED = 36;
    public static final int MEM_MAP_SIZE = 40;

    /** struct urom_coll_cmd_mem_unmap. */
    public static final int MEM_UNMAP_MEMH = 16;

    public static final int MEM_UNMAP_SIZE = 24;

    /** struct urom_coll_cmd_post. */
    public static final int POST_TEAM_ID = 16;

    public static final int POST_COLL = 20;
    public static final int POST_DTYPE = 22;
    public static final int POST_OP = 23;
    public static final int POST_ROOT = 24;
    public static final int POST_FLAGS = 28;
    public static final int POST_COUNT = 32;
    public static final int POST_SRC = 40;
    public static final int POST_DST = 48;
    public static final int POST_SRC_MEMH = 56;
    public static final int POST_DST_MEMH = 64;
    public static final int POST_SIZE = 72;

    /** struct urom_coll_notif_hdr. */
    public static final int NOTIF_HDR_TYPE = 0;

    public static final int NOTIF_HDR_VERSION = 2;
    public static final int NOTIF_HDR_STATUS = 4;
    public static final int NOTIF_HDR_COOKIE = 8;
    public static final int NOTIF_HDR_REASON = 16;
    public static final int NOTIF_HDR_DETAIL = 20;
    public static final int NOTIF_HDR_SIZE = 24;

    /** struct urom_coll_notif_team_create. */
    public static final int NOTIF_TEAM_CREATE_TEAM_ID = 24;

    public static final int NOTIF_TEAM_CREATE_RANK = 28;
    public static final int NOTIF_TEAM_CREATE_SIZE_FIELD = 32;
    public static final int NOTIF_TEAM_CREATE_RESERVED = 36;
    public static final int NOTIF_TEAM_CREATE_SIZE = 40;

    /** struct urom_coll_notif_team_destroy. */
    public static final int NOTIF_TEAM_DESTROY_TEAM_ID = 24;

    public static final int NOTIF_TEAM_DESTROY_RESERVED = 28;
    public static final int NOTIF_TEAM_DESTROY_SIZE = 32;

    /** struct urom_coll_notif_mem_map. */
    public static final int NOTIF_MEM_MAP_MEMH = 24;

    public static final int NOTIF_MEM_MAP_SIZE = 32;

    /** struct urom_coll_notif_mem_unmap. */
    public static final int NOTIF_MEM_UNMAP_SIZE = 24;

    /** struct urom_coll_notif_post. */
    public static final int NOTIF_POST_TEAM_ID = 24;

    public static final int NOTIF_POST_RESERVED = 28;
    public static final int NOTIF_POST_SEQUENCE = 32;
    public static final int NOTIF_POST_SIZE = 40;

    /** struct urom_coll_hello. */
    public static final int HELLO_VERSION = 0;

    public static final int HELLO_RESERVED = 2;
    public static final int HELLO_TEAM_ID = 4;
    public static final int HELLO_SIZE_FIELD = 8;
    public static final int HELLO_RANK = 12;
    public static final int HELLO_MEMBERS_HASH = 16;
    public static final int HELLO_CHUNK_BYTES = 24;
    public static final int HELLO_SMALL_BYTES = 28;
    public static final int HELLO_TIMEOUT_MS = 32;
    public static final int HELLO_REFUSED = 36;
    public static final int HELLO_SIZE = 40;

    /** struct urom_coll_agree. */
    public static final int AGREE_FIELDS = 5;

    public static final int AGREE_MIN = 0;
    public static final int AGREE_MAX = 40;
    public static final int AGREE_REFUSED = 80;
    public static final int AGREE_REFUSED_REASON = 84;
    public static final int AGREE_SIZE = 88;

    private CollLayout() {}
}
