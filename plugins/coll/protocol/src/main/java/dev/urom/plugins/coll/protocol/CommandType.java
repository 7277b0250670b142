// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/**
 * The commands ({@code enum urom_coll_cmd_type}) with their wire codes, the fixed size of each
 * command and of its answer. Immutable.
 */
public enum CommandType {
    TEAM_CREATE(1, CollLayout.TEAM_CREATE_SIZE, CollLayout.NOTIF_TEAM_CREATE_SIZE),
    TEAM_DESTROY(2, CollLayout.TEAM_DESTROY_SIZE, CollLayout.NOTIF_TEAM_DESTROY_SIZE),
    MEM_MAP(3, CollLayout.MEM_MAP_SIZE, CollLayout.NOTIF_MEM_MAP_SIZE),
    MEM_UNMAP(4, CollLayout.MEM_UNMAP_SIZE, CollLayout.NOTIF_MEM_UNMAP_SIZE),
    POST(5, CollLayout.POST_SIZE, CollLayout.NOTIF_POST_SIZE);

    private final int code;
    private final int commandSize;
    private final int answerSize;

    CommandType(int code, int commandSize, int answerSize) {
        this.code = code;
        this.commandSize = commandSize;
        this.answerSize = answerSize;
    }

    public int code() {
        return code;
    }

    /** Bytes of the command (TEAM_CREATE: its fixed part). */
    public int commandSize() {
        return commandSize;
    }

    /** Bytes of its notification, header included. */
    public int answerSize() {
        return answerSize;
    }

    /** The command type with this code, or null when there is none. */
    public static CommandType ofCode(long code) {
        for (CommandType type : values()) {
            if (type.code == code) {
                return type;
            }
        }
        return null;
    }
}
