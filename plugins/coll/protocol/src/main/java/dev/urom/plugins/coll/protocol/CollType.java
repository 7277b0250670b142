// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/** The collectives ({@code enum urom_coll_type}) with their wire codes. Immutable. */
public enum CollType {
    BARRIER(0),
    BCAST(1),
    REDUCE(2),
    ALLREDUCE(3),
    ALLGATHER(4),
    ALLTOALL(5);

    private static final CollType[] BY_CODE = values();

    private final int code;

    CollType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Whether the collective reduces (and so reads {@code op}). */
    public boolean reduces() {
        return this == REDUCE || this == ALLREDUCE;
    }

    /** Whether the collective reads {@code root}. */
    public boolean rooted() {
        return this == BCAST || this == REDUCE;
    }

    /** The collective with this code, or null when there is none. */
    public static CollType ofCode(long code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[(int) code] : null;
    }
}
